package org.vancetope.worktarget.core.transfer;

import java.util.Objects;

/**
 * {@code transfer_resume}, sender → receiver ({@link TransferCapability#RESUME} only): asks the
 * receiver how much of an interrupted transfer it kept, on a new connection. It names the same file as
 * the transfer's {@code transfer_init} did, so the receiver can check that the kept prefix belongs to it;
 * the receiver answers with {@link TransferResumeResponse}.
 *
 * <pre>{@code
 * new TransferResume(id, "reports/2026-q2.pdf", null, 12345678L, "sha256:8f3c...");
 * }</pre>
 *
 * @param transferId the id of the interrupted transfer
 * @param target the path relative to the receiver's root, as {@code transfer_init} named it
 * @param dirName the Brain RootDir, as {@code transfer_init} named it, or null
 * @param totalSize the exact size in bytes, as announced
 * @param hash the whole file's {@code "sha256:<hex>"} as announced, or null when it comes with the last
 *             chunk ({@link TransferCapability#HASH_TRAILER})
 */
public record TransferResume(String transferId, String target, String dirName, long totalSize, String hash)
        implements TransferFrame {

    /** The wire type. */
    public static final String TYPE = "transfer_resume";

    /**
     * Validates the structural fields.
     *
     * @param transferId the id of the interrupted transfer
     * @param target the path relative to the receiver's root, as {@code transfer_init} named it
     * @param dirName the Brain RootDir, as {@code transfer_init} named it, or null
     * @param totalSize the exact size in bytes, as announced
     * @param hash the whole file's {@code "sha256:<hex>"} as announced, or null when it comes with the last
     *        chunk ({@link TransferCapability#HASH_TRAILER})
     */
    public TransferResume {
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
