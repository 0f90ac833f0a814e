package org.vancetope.worktarget.core.transfer;

import java.util.Optional;

/**
 * A transfer feature beyond the base protocol, negotiated per connection: a peer lists the ones it
 * supports in its handshake, and a connection uses only those both ends listed. A connection without
 * any of them transfers exactly as the base protocol says.
 */
public enum TransferCapability {
    /**
     * {@code transfer.hash-trailer}: the sender announces a file without its SHA-256 and sends the hash
     * with the last chunk, so it reads the file once instead of twice; the receiver still verifies the
     * whole file before it commits it.
     */
    HASH_TRAILER("transfer.hash-trailer"),

    /**
     * {@code transfer.binary}: chunks travel in binary WebSocket frames (a small header, then the raw
     * bytes) instead of base64 in JSON; the other transfer frames stay JSON text. The receiver's checks
     * are those of every chunk.
     */
    BINARY("transfer.binary"),

    /**
     * {@code transfer.zstd}: a transfer announced with {@code compression: "zstd"} may send each chunk
     * zstd-compressed (a chunk that does not shrink goes raw). Offered only when zstd-jni is on the
     * class path and its native library loads; the receiver's limits apply to the decompressed bytes.
     */
    ZSTD("transfer.zstd"),

    /**
     * {@code transfer.resume}: a transfer cut off by a disconnect keeps the receiver's staging file for
     * {@link TransferSettings#resumeRetention()}; on a new connection the sender asks for the kept offset
     * ({@link TransferResume}, {@link TransferResumeResponse}) and sends the rest, the first chunk naming
     * its offset. The whole file's hash is still verified before the rename. Downloads and uploads alike: for
     * an upload the Brain, its receiver, asks the client to resume ({@link UploadRequest#resume()}).
     */
    RESUME("transfer.resume"),

    /**
     * {@code transfer.directory}: a directory tree moves in one call: a manifest of its entries (paths,
     * kinds, sizes, SHA-256 of each file) that the receiver checks entry by entry, then each accepted file
     * as an ordinary single-file transfer. Links are listed, never followed nor created.
     */
    DIRECTORY("transfer.directory");

    private final String wire;

    TransferCapability(String wire) {
        this.wire = wire;
    }

    /**
     * The name in the handshake's {@code capabilities}.
     *
     * @return the wire name, e.g. {@code transfer.hash-trailer}
     */
    public String wire() {
        return wire;
    }

    /**
     * The capability of a wire name.
     *
     * @param name a name from a handshake
     * @return the capability, empty for a name this version does not know
     */
    public static Optional<TransferCapability> fromWire(String name) {
        for (TransferCapability c : values()) {
            if (c.wire.equals(name)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }
}
