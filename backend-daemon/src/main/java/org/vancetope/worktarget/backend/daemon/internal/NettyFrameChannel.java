package org.vancetope.worktarget.backend.daemon.internal;

import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import java.util.Set;
import org.vancetope.worktarget.backend.daemon.WireChannel;
import io.netty.channel.Channel;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.spi.FrameChannel;

/**
 * A {@link FrameChannel} of JSON text frames over one WebSocket connection. Writability is Netty's:
 * it turns false above the channel's high write-buffer watermark and true again below the low one,
 * so a sender that waits for {@link #whenWritable(Runnable)} never queues without bound.
 */
public final class NettyFrameChannel implements WireChannel {
    private static final Logger LOG = LoggerFactory.getLogger(NettyFrameChannel.class);
    private final Channel channel;
    private final String id;
    private final Set<String> capabilities;
    private final int maxFrameBytes;
    private final Map<String, Object> peerLimits;
    private final List<Runnable> waiting = new ArrayList<>();

    /**
     * Wraps a channel.
     *
     * @param channel the WebSocket channel (after the upgrade)
     * @param id the connection id
     */
    public NettyFrameChannel(Channel channel, String id) {
        this(channel, id, Set.of());
    }

    /**
     * Wraps a channel whose ends negotiated capabilities.
     *
     * @param channel the WebSocket channel (after the upgrade)
     * @param id the connection id
     * @param capabilities the capabilities both ends listed
     */
    public NettyFrameChannel(Channel channel, String id, Set<String> capabilities) {
        this(channel, id, capabilities, Wire.PROTOCOL_MAX_FRAME_BYTES, Map.of());
    }

    /**
     * Wraps a channel whose ends negotiated capabilities and whose peer announced limits.
     *
     * @param channel the WebSocket channel (after the upgrade)
     * @param id the connection id
     * @param capabilities the capabilities both ends listed
     * @param maxFrameBytes the largest frame this end sends on it
     * @param peerLimits the limits the peer announced in its handshake
     */
    public NettyFrameChannel(Channel channel, String id, Set<String> capabilities, int maxFrameBytes,
                             Map<String, Object> peerLimits) {
        this.channel = channel;
        this.id = id;
        this.capabilities = Set.copyOf(capabilities);
        this.maxFrameBytes = maxFrameBytes;
        this.peerLimits = Collections.unmodifiableMap(new LinkedHashMap<>(peerLimits));
        channel.closeFuture().addListener(f -> writabilityChanged());
    }

    @Override
    public Set<String> capabilities() {
        return capabilities;
    }

    @Override
    public int maxFrameBytes() {
        return maxFrameBytes;
    }

    @Override
    public Map<String, Object> peerLimits() {
        return peerLimits;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public boolean isOpen() {
        return channel.isActive();
    }

    @Override
    public CompletionStage<Void> send(String frame) {
        return sendUtf8(frame.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Sends a text frame given as its UTF-8 bytes, without a {@code String} round trip. The caller
     * vouches that the bytes are valid UTF-8 (JSON it encoded itself).
     *
     * @param utf8 the whole frame
     * @return completes when written, exceptionally when the write failed
     */
    @Override
    public CompletionStage<Void> sendUtf8(byte[] utf8) {
        // Copied into a pooled (direct) buffer rather than wrapped: the socket write needs direct memory
        // anyway, and a client's frame masking runs several times faster over it than over a heap array.
        return sendUtf8(utf8.length, dst -> dst.put(utf8));
    }

    /**
     * Sends a text frame written straight into a pooled network buffer, without a {@code String} or
     * an intermediate array. The caller vouches that the bytes are valid UTF-8.
     *
     * @param length the frame's exact length in bytes
     * @param writer writes exactly {@code length} bytes into the buffer it is given
     * @return completes when written, exceptionally when the write failed
     * @throws IllegalStateException when the writer wrote another number of bytes
     */
    @Override
    public CompletionStage<Void> sendUtf8(int length, Consumer<ByteBuffer> writer) {
        return write(new TextWebSocketFrame(written(length, writer)));
    }

    @Override
    public CompletionStage<Void> sendBinary(int length, Consumer<ByteBuffer> writer) {
        return write(new BinaryWebSocketFrame(written(length, writer)));
    }

    /** A pooled buffer of exactly {@code length} bytes, filled by the writer. */
    private ByteBuf written(int length, Consumer<ByteBuffer> writer) {
        ByteBuf buf = channel.alloc().buffer(length, length);
        try {
            ByteBuffer view = buf.nioBuffer(0, length);
            writer.accept(view);
            if (view.position() != length) {
                throw new IllegalStateException("the writer wrote " + view.position() + " of " + length + " bytes");
            }
            buf.writerIndex(length);
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
        return buf;
    }

    /** Turns Netty's auto-read off and on. */
    @Override
    public void reading(boolean on) {
        channel.config().setAutoRead(on);
    }

    private CompletionStage<Void> write(WebSocketFrame f) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        channel.writeAndFlush(f).addListener(w -> {
            if (w.isSuccess()) {
                done.complete(null);
            } else {
                done.completeExceptionally(w.cause());
            }
        });
        return done;
    }

    @Override
    public boolean isWritable() {
        return channel.isWritable();
    }

    @Override
    public void whenWritable(Runnable callback) {
        synchronized (waiting) {
            if (channel.isActive() && !channel.isWritable()) {
                waiting.add(callback);
                return;
            }
        }
        run(callback);
    }

    /**
     * Called by the connection's handler when Netty's writability changed or the channel closed;
     * runs the waiting callbacks when the channel is writable or gone.
     */
    public void writabilityChanged() {
        List<Runnable> ready;
        synchronized (waiting) {
            if (waiting.isEmpty() || (channel.isActive() && !channel.isWritable())) {
                return;
            }
            ready = new ArrayList<>(waiting);
            waiting.clear();
        }
        ready.forEach(NettyFrameChannel::run);
    }

    private static void run(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.warn("A writability callback failed", e);
        }
    }

    /**
     * The underlying channel.
     *
     * @return the channel
     */
    public Channel channel() {
        return channel;
    }

    @Override
    public String toString() {
        return "FrameChannel[" + id + "]";
    }
}
