package org.vancetope.worktarget.core.transfer;

import org.vancetope.worktarget.spi.ErrorCode;

/**
 * {@code transfer_finish}, sender → receiver: the last frame of a transfer; never
 * answered. It carries an {@code error} (and its {@code code}) only when a requested upload failed before
 * it started.
 *
 * <pre>{@code
 * new TransferFinish(id, false, "file not found: test.wav", ErrorCode.NOT_FOUND);
 * }</pre>
 *
 * @param transferId the correlation id
 * @param ok the final status
 * @param error null, or the local failure of a requested upload
 * @param code null, or the stable code of that failure (null from a peer that sent none)
 */
public record TransferFinish(String transferId, boolean ok, String error, ErrorCode code) implements TransferFrame {

    /** The wire type. */
    public static final String TYPE = "transfer_finish";

    /**
     * Validates the id; a finish without an error has no code.
     *
     * @param transferId the correlation id
     * @param ok the final status
     * @param error null, or the local failure of a requested upload
     * @param code null, or the stable code of that failure
     */
    public TransferFinish {
        TransferFrame.requireId(transferId);
        if (error == null) {
            code = null;
        }
    }

    /**
     * A finish without a code: the end of a transfer, or the failure of a peer that names none.
     *
     * @param transferId the correlation id
     * @param ok the final status
     * @param error null, or the local failure of a requested upload
     */
    public TransferFinish(String transferId, boolean ok, String error) {
        this(transferId, ok, error, null);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
