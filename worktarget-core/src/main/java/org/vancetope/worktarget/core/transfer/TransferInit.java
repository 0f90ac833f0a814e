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
 */
public record TransferInit(String transferId, String source, String target, String dirName, long totalSize,
                           String hash, TransferAttrs attrs) implements TransferFrame {

    /** The wire type. */
    public static final String TYPE = "transfer_init";

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
     */
    public TransferInit {
        TransferFrame.requireId(transferId);
        Objects.requireNonNull(target, "target");
        if (totalSize < 0) {
            throw new IllegalArgumentException("totalSize must not be negative");
        }
    }

    @Override
    public String type() {
        return TYPE;
    }
}
