package org.vancetope.worktarget.backend.daemon.internal;

import io.netty.channel.Channel;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.spi.FrameChannel;

/**
 * A {@link FrameChannel} of JSON text frames over one WebSocket connection. Writability is Netty's:
 * it turns false above the channel's high write-buffer watermark and true again below the low one,
 * so a sender that waits for {@link #whenWritable(Runnable)} never queues without bound.
 */
public final class NettyFrameChannel implements FrameChannel<String> {
    private static final Logger LOG = LoggerFactory.getLogger(NettyFrameChannel.class);
    private static final byte FIN_TEXT = (byte) 0x81;
    private static final int MASKED = 0x80;
    private final Channel channel;
    private final String id;
    private final boolean client;
    private final List<Runnable> waiting = new ArrayList<>();

    /**
     * Wraps the channel of a server's connection: frames go out unmasked through Netty's encoder.
     *
     * @param channel the WebSocket channel (after the upgrade)
     * @param id the connection id
     */
    public NettyFrameChannel(Channel channel, String id) {
        this(channel, id, false);
    }

    /**
     * Wraps a channel.
     *
     * @param channel the WebSocket channel (after the upgrade)
     * @param id the connection id
     * @param client whether this is the client end, whose frames RFC 6455 §5.3 requires to be masked:
     *        {@link #sendUtf8(int, Consumer)} then writes whole masked frames itself (see there)
     */
    public NettyFrameChannel(Channel channel, String id, boolean client) {
        this.channel = channel;
        this.id = id;
        this.client = client;
        channel.closeFuture().addListener(f -> writabilityChanged());
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
        return write(new TextWebSocketFrame(channel.alloc().buffer(frame.length())
                .writeBytes(frame.getBytes(StandardCharsets.UTF_8))));
    }

    /**
     * Sends a text frame given as its UTF-8 bytes, without a {@code String} round trip. The caller
     * vouches that the bytes are valid UTF-8 (JSON it encoded itself).
     *
     * @param utf8 the whole frame
     * @return completes when written, exceptionally when the write failed
     */
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
    public CompletionStage<Void> sendUtf8(int length, Consumer<ByteBuffer> writer) {
        int head = client ? headLength(length) : 0;
        ByteBuf buf = channel.alloc().buffer(head + length, head + length);
        try {
            ByteBuffer view = buf.nioBuffer(0, head + length).position(head).slice();
            writer.accept(view);
            if (view.position() != length) {
                throw new IllegalStateException("the writer wrote " + view.position() + " of " + length + " bytes");
            }
            if (client) {
                frameInPlace(buf.nioBuffer(0, head + length), length, ThreadLocalRandom.current().nextInt());
            }
            buf.writerIndex(head + length);
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
        // A client's frame is complete on the wire already: Netty's frame encoder passes a ByteBuf on as it is.
        return write(client ? buf : new TextWebSocketFrame(buf));
    }

    /** The length of a masked text frame's head (RFC 6455 §5.2): 2 bytes, the extended length, the key. */
    static int headLength(int payload) {
        return 2 + (payload <= 125 ? 0 : payload <= 0xFFFF ? 2 : 8) + 4;
    }

    /**
     * Turns {@code frame}, whose payload of {@code length} bytes follows {@link #headLength} free bytes,
     * into a final masked text frame: writes the head and masks the payload in place, eight bytes at a
     * time. Netty's encoder would copy the payload into a second buffer to mask it, byte-buffer access
     * by byte-buffer access (about 1 s per GiB of chunks here); this costs a small fraction of that.
     */
    static void frameInPlace(ByteBuffer frame, int length, int key) {
        ByteBuffer f = frame.duplicate().order(ByteOrder.BIG_ENDIAN);
        int p = 0;
        f.put(p++, FIN_TEXT);
        if (length <= 125) {
            f.put(p++, (byte) (MASKED | length));
        } else if (length <= 0xFFFF) {
            f.put(p++, (byte) (MASKED | 126));
            f.putShort(p, (short) length);
            p += 2;
        } else {
            f.put(p++, (byte) (MASKED | 127));
            f.putLong(p, length);
            p += 8;
        }
        f.putInt(p, key);
        p += 4;
        long key8 = (key & 0xFFFFFFFFL) << 32 | (key & 0xFFFFFFFFL);
        int end = p + length;
        int i = p;
        for (; end - i >= 8; i += 8) {
            f.putLong(i, f.getLong(i) ^ key8);
        }
        for (int k = 0; i < end; i++, k++) {
            f.put(i, (byte) (f.get(i) ^ (key >>> (24 - 8 * (k & 3)))));
        }
    }

    private CompletionStage<Void> write(Object f) {
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
