package org.vancetope.worktarget.core.transfer;

import java.util.Objects;

/**
 * {@code transfer_init}, sender → receiver: announces one file with its exact size
 * and SHA-256 (or, with {@link TransferCapability#HASH_TRAILER}, without it: the hash then comes with
 * the last chunk).
 *
 * <pre>{@code
 * new TransferInit(id, "report.pdf", "reports/2026-q2.pdf", null, 12345678L, "sha256:8f3c...", TransferAttrs.NONE);
 * }</pre>
 *
 * @param transferId the correlation id
 * @param source informative: where the sender read the file, or null
 * @param target the path relative to the receiver's root
 * @param dirName the Brain RootDir; set only when the Brain receives (uploads), else null
 * @param totalSize the exact size in bytes, not negative
 * @param hash {@code "sha256:<hex>"} of the whole file (the receiver checks its format), or null when it
 *             comes with the last chunk ({@link TransferCapability#HASH_TRAILER} only)
 * @param attrs optional attributes, or null
 * @param compression {@link #ZSTD} when chunks of this transfer may be zstd-compressed
 *                    ({@link TransferCapability#ZSTD} only), or null when every chunk is raw
 */
public record TransferInit(String transferId, String source, String target, String dirName, long totalSize,
                           String hash, TransferAttrs attrs, String compression) implements TransferFrame {

    /** The wire type. */
    public static final String TYPE = "transfer_init";

    /** {@link #compression()} of a transfer whose chunks may be zstd-compressed. */
    public static final String ZSTD = "zstd";

    /**
     * Validates the structural fields.
     *
     * @param transferId the correlation id
     * @param source informative: where the sender read the file, or null
     * @param target the path relative to the receiver's root
     * @param dirName the Brain RootDir; set only when the Brain receives (uploads), else null
     * @param totalSize the exact size in bytes, not negative
     * @param hash {@code "sha256:<hex>"} of the whole file (the receiver checks its format), or null when it
     *        comes with the last chunk ({@link TransferCapability#HASH_TRAILER} only)
     * @param attrs optional attributes, or null
     * @param compression {@link #ZSTD} when chunks may be zstd-compressed, or null
     */
    public TransferInit {
        TransferFrame.requireId(transferId);
        Objects.requireNonNull(target, "target");
        if (totalSize < 0) {
            throw new IllegalArgumentException("totalSize must not be negative");
        }
    }

    /**
     * An init without compression, as every init of the base protocol is.
     *
     * @param transferId the correlation id
     * @param source informative: where the sender read the file, or null
     * @param target the path relative to the receiver's root
     * @param dirName the Brain RootDir, or null
     * @param totalSize the exact size in bytes, not negative
     * @param hash the whole file's hash, or null with the hash trailer
     * @param attrs optional attributes, or null
     */
    public TransferInit(String transferId, String source, String target, String dirName, long totalSize, String hash,
                        TransferAttrs attrs) {
        this(transferId, source, target, dirName, totalSize, hash, attrs, null);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
