package org.vancetope.worktarget.backend.daemon;

import java.util.Set;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A handler for frame types beyond the base protocol (handshake, manifests, invocations), for example
 * the transfer frames ({@code transfer_*}). The server and the client connector hand every text frame whose
 * {@code type} this extension {@link #handles(String) handles} to it, with the connection as a
 * {@link WireChannel} whose writability follows the connection's write-buffer watermarks. Each
 * connection is announced once it is open ({@link #onOpen}) and once it closed ({@link #onClose}).
 *
 * <pre>{@code
 * FrameExtension transfers = new FrameExtension() {
 *     public boolean handles(String type) { return type.startsWith("transfer_"); }
 *     public void onFrame(WireChannel channel, String type, String frame) { engine.feed(channel, frame); }
 *     public void onClose(WireChannel channel) { engine.abortAll(channel); }
 * };
 * }</pre>
 *
 * <p>Frames arrive through {@link #onFrameUtf8}, whose default hands them to {@link #onFrame} as text,
 * or, when the connection had to parse a frame to learn its type, through {@link #onFrameFields},
 * whose default hands on the bytes.
 * Callbacks run on the connection's I/O thread: they must be fast and must not block (hand work
 * to your own executor). An exception thrown from them is logged, answered with an {@code error}
 * frame of code {@code bad_frame} and counted as a protocol error of the connection; throw an
 * {@link IllegalArgumentException} whose message is meant for the peer (it is sent along) to refuse a
 * frame. The extension does not see the frames of the base protocol ({@code docs/protocol.md}
 * lists them).
 */
public interface FrameExtension {

    /**
     * Whether this extension serves frames of a type.
     *
     * @param type the frame's {@code type}; never one of the base protocol's types
     * @return true to receive such frames; false makes them {@code bad_frame} errors
     */
    boolean handles(String type);

    /**
     * The capabilities this extension adds to the handshake (a server offers them in {@code welcome} to a
     * client that listed them in {@code hello}; a client lists them in {@code hello}). A connection
     * uses those both ends listed: {@link WireChannel#capabilities()}. Default: none.
     *
     * @return the capability names, e.g. {@code transfer.hash-trailer}
     */
    default Set<String> capabilities() {
        return Set.of();
    }

    /**
     * A frame arrived.
     *
     * @param channel the connection it arrived on; send answers through it
     * @param type the frame's type
     * @param frame the whole frame, a JSON object as text
     */
    void onFrame(WireChannel channel, String type, String frame);

    /**
     * A frame arrived, as bytes: the connection calls this method, whose default decodes the text and
     * calls {@link #onFrame(WireChannel, String, String)}. Override it to parse the bytes directly
     * (the transfer frames do: a chunk frame is about 87 KiB of base64 that need not become a
     * {@code String}).
     *
     * @param channel the connection it arrived on; send answers through it
     * @param type the frame's type
     * @param utf8 the whole frame, a JSON object as UTF-8 bytes that were checked to be valid UTF-8;
     *             read-only and valid only during this call (it is a view of the network buffer):
     *             copy what you keep
     */
    default void onFrameUtf8(WireChannel channel, String type, ByteBuffer utf8) {
        onFrame(channel, type, StandardCharsets.UTF_8.decode(utf8).toString());
    }

    /**
     * A frame arrived that the connection parsed to learn its type (its {@code type} was not its first
     * field): the connection calls this method with the frame's fields, so that the frame need not be
     * parsed twice. The default ignores them and calls {@link #onFrameUtf8}.
     *
     * @param channel the connection it arrived on; send answers through it
     * @param type the frame's type
     * @param fields the frame's fields as the JSON parser gave them (strings, numbers, booleans, maps and lists)
     * @param utf8 the whole frame, as for {@link #onFrameUtf8}
     */
    default void onFrameFields(WireChannel channel, String type, Map<String, Object> fields, ByteBuffer utf8) {
        onFrameUtf8(channel, type, utf8);
    }

    /**
     * A binary frame arrived on a connection that negotiated binary frames ({@code transfer.binary});
     * on any other connection the connection itself refuses them with {@code bad_frame}. Default:
     * refused.
     *
     * @param channel the connection it arrived on
     * @param frame the whole frame, read-only and valid only during this call: copy what you keep
     * @throws IllegalArgumentException to refuse the frame; the message is sent to the peer
     */
    default void onBinaryFrame(WireChannel channel, ByteBuffer frame) {
        throw new IllegalArgumentException("This connection does not handle binary frames.");
    }

    /**
     * A connection completed its handshake (the server accepted its {@code hello}, or the client
     * received its {@code welcome}); it may carry frames from now on. Called once per connection,
     * before any of its frames reaches this extension. Default: nothing.
     *
     * @param channel the connection
     */
    default void onOpen(WireChannel channel) {
    }

    /**
     * The connection closed; abort whatever runs on it. Called once per connection that completed
     * its hello, whether or not a frame reached this extension.
     *
     * @param channel the connection
     */
    default void onClose(WireChannel channel) {
    }
}
