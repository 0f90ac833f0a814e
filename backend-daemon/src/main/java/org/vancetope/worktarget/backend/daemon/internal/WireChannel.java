package org.vancetope.worktarget.backend.daemon.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.vancetope.worktarget.spi.FrameChannel;

/**
 * A channel of JSON text frames with what the transfer bridge needs beyond the {@link FrameChannel}
 * of the SPI: frames sent as UTF-8 written straight into the transport's buffer, and receive-side
 * flow control. Every WorkTarget connection is one ({@link NettyFrameChannel}); {@link #of} adapts
 * any other text channel (an in-memory pair in tests), which then sends text and has no flow control.
 */
public interface WireChannel extends FrameChannel<String> {

    /**
     * The wire view of a text channel: a WorkTarget connection as it is, any other channel adapted.
     *
     * @param channel the channel an extension was handed
     * @return the channel as a wire channel
     */
    static WireChannel of(FrameChannel<String> channel) {
        return channel instanceof WireChannel wire ? wire : new Text(channel);
    }

    /**
     * Sends a text frame written by {@code writer} straight into the transport's buffer, without a
     * {@code String} or an intermediate array. The caller vouches that the bytes are valid UTF-8.
     *
     * @param length the frame's exact length in bytes
     * @param writer writes exactly {@code length} bytes into the buffer it is given
     * @return completes when written, exceptionally when the write failed
     * @throws IllegalStateException when the writer wrote another number of bytes
     */
    CompletionStage<Void> sendUtf8(int length, Consumer<ByteBuffer> writer);

    /**
     * Sends a text frame given as its UTF-8 bytes. The caller vouches that they are valid UTF-8.
     *
     * @param utf8 the whole frame
     * @return completes when written, exceptionally when the write failed
     */
    default CompletionStage<Void> sendUtf8(byte[] utf8) {
        return sendUtf8(utf8.length, dst -> dst.put(utf8));
    }

    /**
     * Receive-side flow control: with {@code false} the channel stops reading frames from its peer
     * (TCP then pushes back on the peer's sender), with {@code true} it reads again.
     *
     * @param on whether to read
     */
    void reading(boolean on);

    /** A text channel that is not a WorkTarget connection: frames are sent as text; reading cannot be paused. */
    final class Text extends ForwardingChannel<String> implements WireChannel {
        private final FrameChannel<String> text;

        Text(FrameChannel<String> text) {
            super(text);
            this.text = text;
        }

        @Override
        public CompletionStage<Void> send(String frame) {
            return text.send(frame);
        }

        @Override
        public CompletionStage<Void> sendUtf8(int length, Consumer<ByteBuffer> writer) {
            ByteBuffer buf = ByteBuffer.allocate(length);
            writer.accept(buf);
            if (buf.position() != length) {
                throw new IllegalStateException("the writer wrote " + buf.position() + " of " + length + " bytes");
            }
            return text.send(new String(buf.array(), 0, length, StandardCharsets.UTF_8));
        }

        @Override
        public void reading(boolean on) {
            // no flow control: the frames keep coming
        }
    }
}
