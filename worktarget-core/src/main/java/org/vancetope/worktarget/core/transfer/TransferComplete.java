package org.vancetope.worktarget.core.transfer;

/**
 * {@code transfer_complete}, receiver → sender: the receiver's verdict, sent after
 * the last chunk was verified and moved onto the target, or early (mid-stream) when receiving
 * failed.
 *
 * <pre>{@code
 * new TransferComplete(id, true, null, 12345678L, TransferComplete.HASH_OK);
 * }</pre>
 *
 * @param transferId the correlation id
 * @param ok whether the file is verified and in place
 * @param error null when ok, otherwise what went wrong
 * @param bytesWritten the bytes the receiver had written
 * @param hashCheck {@link #HASH_OK}, {@link #HASH_MISMATCH}, or null when no hash was compared
 */
public record TransferComplete(String transferId, boolean ok, String error, long bytesWritten, String hashCheck)
        implements TransferFrame {

    /** The wire type. */
    public static final String TYPE = "transfer_complete";
    /** {@code hashCheck} value of a matching hash. */
    public static final String HASH_OK = "ok";
    /** {@code hashCheck} value of a mismatching hash. */
    public static final String HASH_MISMATCH = "mismatch";

    /**
     * Validates the id.
     *
     * @param transferId the correlation id
     * @param ok whether the file is verified and in place
     * @param error null when ok, otherwise what went wrong
     * @param bytesWritten the bytes the receiver had written
     * @param hashCheck {@link #HASH_OK}, {@link #HASH_MISMATCH}, or null when no hash was compared
     */
    public TransferComplete {
        TransferFrame.requireId(transferId);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
