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
     * Progress of a whole directory transfer, on the side that runs it (the Brain): after each chunk of
     * each of its files and after each file's outcome. Its files also report their own
     * {@link #onProgress} and {@link #onFinished} under their own transfer ids.
     *
     * @param transferId the directory transfer
     * @param role this side's role (sender for a download, receiver for an upload)
     * @param filesDone the files that ended so far (landed or failed)
     * @param filesTotal the files the receiver accepted
     * @param bytesDone bytes moved so far over all of them
     * @param totalBytes the sum of their sizes
     */
    default void onDirectoryProgress(String transferId, Role role, int filesDone, int filesTotal, long bytesDone,
                                     long totalBytes) {
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
