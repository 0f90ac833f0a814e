package org.vancetope.worktarget.core.transfer;

import org.vancetope.worktarget.spi.ErrorCode;

/**
 * {@code transfer_complete}, receiver → sender: the receiver's verdict, sent after
 * the last chunk was verified and moved onto the target, or early (mid-stream) when receiving
 * failed.
 *
 * <pre>{@code
 * new TransferComplete(id, true, null, 12345678L, TransferComplete.HASH_OK);
 * new TransferComplete(id, false, "hash mismatch", 12345678L, TransferComplete.HASH_MISMATCH, ErrorCode.HASH_MISMATCH);
 * }</pre>
 *
 * @param transferId the correlation id
 * @param ok whether the file is verified and in place
 * @param error null when ok, otherwise what went wrong
 * @param bytesWritten the bytes the receiver had written
 * @param hashCheck {@link #HASH_OK}, {@link #HASH_MISMATCH}, or null when no hash was compared
 * @param code null when ok, otherwise the stable code of the failure (the frame's {@code code}); null from a
 *        peer that sent none
 */
public record TransferComplete(String transferId, boolean ok, String error, long bytesWritten, String hashCheck,
                               ErrorCode code) implements TransferFrame {

    /** The wire type. */
    public static final String TYPE = "transfer_complete";
    /** {@code hashCheck} value of a matching hash. */
    public static final String HASH_OK = "ok";
    /** {@code hashCheck} value of a mismatching hash. */
    public static final String HASH_MISMATCH = "mismatch";

    /**
     * Validates the id; a verified file has no code.
     *
     * @param transferId the correlation id
     * @param ok whether the file is verified and in place
     * @param error null when ok, otherwise what went wrong
     * @param bytesWritten the bytes the receiver had written
     * @param hashCheck {@link #HASH_OK}, {@link #HASH_MISMATCH}, or null when no hash was compared
     * @param code null when ok, otherwise the stable code of the failure, or null when unknown
     */
    public TransferComplete {
        TransferFrame.requireId(transferId);
        if (ok) {
            code = null;
        }
    }

    /**
     * A verdict without a code (a success, or the failure of a peer that names none).
     *
     * @param transferId the correlation id
     * @param ok whether the file is verified and in place
     * @param error null when ok, otherwise what went wrong
     * @param bytesWritten the bytes the receiver had written
     * @param hashCheck {@link #HASH_OK}, {@link #HASH_MISMATCH}, or null when no hash was compared
     */
    public TransferComplete(String transferId, boolean ok, String error, long bytesWritten, String hashCheck) {
        this(transferId, ok, error, bytesWritten, hashCheck, null);
    }

    /**
     * The code of a failed verdict as the sender reports it: the one the receiver named, else a hash
     * mismatch when {@code hashCheck} says so, else {@code internal}.
     *
     * @return the code, or null when ok
     */
    public ErrorCode failureCode() {
        if (ok) {
            return null;
        }
        if (code != null) {
            return code;
        }
        return HASH_MISMATCH.equals(hashCheck) ? ErrorCode.HASH_MISMATCH : ErrorCode.INTERNAL;
    }

    @Override
    public String type() {
        return TYPE;
    }
}
