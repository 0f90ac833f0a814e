package org.vancetope.worktarget.core.transfer;

/**
 * What the other end of a connection announced it accepts, as far as it bounds what this end sends: the
 * client reads it from {@code welcome.limits} ({@code maxChunkBytes}, {@code maxUploadSize},
 * {@code maxFrameBytes}), the server from {@code hello.limits} ({@code maxFrameBytes}). A sender on the
 * connection cuts chunks of at most {@link #maxChunkBytes()} raw bytes (and of its own
 * {@link TransferSettings#chunkSize()}), and refuses a file larger than {@link #maxFileSize()} before it
 * sends anything.
 *
 * <pre>{@code
 * TransferConnection conn = endpoint.attach(channel, scope, capabilities, new PeerLimits(32 * 1024, 10L << 20));
 * }</pre>
 *
 * @param maxChunkBytes the most raw bytes per chunk the peer takes in one frame ({@link Integer#MAX_VALUE}:
 *        it announced nothing, this end's own chunk size applies)
 * @param maxFileSize the largest file the peer accepts from this end ({@link Long#MAX_VALUE}: not announced)
 * @param maxFileSizeName the peer's name of that limit, for the message of a refused file (e.g.
 *        {@code "the server's maxUploadSize"}), or null when not announced
 */
public record PeerLimits(int maxChunkBytes, long maxFileSize, String maxFileSizeName) {
    /** A peer that announced no limit: this end's own settings apply. */
    public static final PeerLimits NONE = new PeerLimits(Integer.MAX_VALUE, Long.MAX_VALUE, null);

    /**
     * Validates.
     *
     * @param maxChunkBytes the most raw bytes per chunk, at least 1
     * @param maxFileSize the largest file, at least 0
     * @param maxFileSizeName the limit's name, or null
     */
    public PeerLimits {
        if (maxChunkBytes < 1) {
            throw new IllegalArgumentException("maxChunkBytes must be at least 1, got " + maxChunkBytes);
        }
        if (maxFileSize < 0) {
            throw new IllegalArgumentException("maxFileSize must not be negative, got " + maxFileSize);
        }
    }
}
