package org.vancetope.worktarget.backend.daemon;

import java.util.Map;
import java.util.Set;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import org.vancetope.worktarget.spi.FrameChannel;

/**
 * A WorkTarget connection as a {@link FrameExtension} sees it: a channel of JSON text frames whose
 * writability follows the connection's write-buffer watermarks, plus what a fast extension needs
 * beyond the SPI's {@link FrameChannel}: frames sent as UTF-8 written straight into the transport's
 * buffer, and receive-side flow control. The server and the client connector hand every extension
 * their connections in this form, so the transfer lane needs no down-cast.
 */
public interface WireChannel extends FrameChannel<String> {

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
     * Sends a binary frame written by {@code writer} straight into the transport's buffer. Only a
     * connection that negotiated a capability defining binary frames ({@code transfer.binary}) may
     * carry them; the peer refuses them otherwise.
     *
     * @param length the frame's exact length in bytes
     * @param writer writes exactly {@code length} bytes into the buffer it is given
     * @return completes when written, exceptionally when the write failed
     * @throws IllegalStateException when the writer wrote another number of bytes
     */
    CompletionStage<Void> sendBinary(int length, Consumer<ByteBuffer> writer);

    /**
     * Receive-side flow control: with {@code false} the channel stops reading frames from its peer
     * (TCP then pushes back on the peer's sender), with {@code true} it reads again.
     *
     * @param on whether to read
     */
    void reading(boolean on);

    /**
     * The capabilities both ends of the connection listed in their handshake.
     *
     * @return the negotiated capability names
     */
    Set<String> capabilities();

    /**
     * The largest frame payload this end sends on the connection: the smaller of its own limit and the
     * one the peer announced ({@code maxFrameBytes}), 2 MiB when neither is smaller.
     *
     * @return bytes
     */
    default int maxFrameBytes() {
        return 2 * 1024 * 1024;
    }

    /**
     * The limits the peer announced in its handshake: the server's {@code welcome.limits} on a client,
     * a client's {@code hello.limits} on the server. A sender holds what it sends to those it knows.
     *
     * @return the announced limits by key (e.g. {@code maxChunkBytes}), empty when it announced none
     */
    default Map<String, Object> peerLimits() {
        return Map.of();
    }
}
