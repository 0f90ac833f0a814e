package org.vancetope.worktarget.core.transfer;

/**
 * Observes transfers, e.g. for progress bars. Methods have no-op defaults, must be fast, and must
 * not throw: an exception is logged and ignored.
 *
 * <pre>{@code
 * TransferListener bar = new TransferListener() {
 *     public void onProgress(String id, Role role, long done, long total) {
 *         System.out.printf("%s %d/%d%n", id, done, total);
 *     }
 * };
 * }</pre>
 */
public interface TransferListener {

    /** A listener that does nothing. */
    TransferListener NONE = new TransferListener() {
    };

    /** Which end of a transfer an event comes from. */
    enum Role {
        /** The side that reads the file and sends chunks. */
        SENDER,
        /** The side that writes the file. */
        RECEIVER
    }

    /**
     * Bytes moved so far: after each chunk handed to the channel (sender) or written (receiver).
     *
     * @param transferId the transfer
     * @param role this side's role
     * @param bytesDone bytes so far
     * @param totalBytes the file size
     */
    default void onProgress(String transferId, Role role, long bytesDone, long totalBytes) {
    }

    /**
     * A transfer ended on this side (its pending entry is gone).
     *
     * @param role this side's role
     * @param result the outcome
     */
    default void onFinished(Role role, TransferResult result) {
    }
}
