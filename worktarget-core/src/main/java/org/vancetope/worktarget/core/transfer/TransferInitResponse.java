package org.vancetope.worktarget.core.transfer;

import org.vancetope.worktarget.spi.ErrorCode;

/**
 * {@code transfer_init_response}, receiver → sender: whether the receiver accepted
 * the announced file (path sandbox, size limit and disk space checked, staging file created).
 *
 * <pre>{@code
 * new TransferInitResponse(id, false, "exceeds size limit (…)", ErrorCode.SIZE_LIMIT);
 * }</pre>
 *
 * @param transferId the correlation id
 * @param ok whether the transfer may start
 * @param error null when ok, otherwise what went wrong
 * @param code null when ok, otherwise the stable code of the refusal (the frame's {@code code}); null from a
 *        peer that sent none
 */
public record TransferInitResponse(String transferId, boolean ok, String error, ErrorCode code)
        implements TransferFrame {

    /** The wire type. */
    public static final String TYPE = "transfer_init_response";

    /**
     * Validates the id; an accepted init has no code.
     *
     * @param transferId the correlation id
     * @param ok whether the transfer may start
     * @param error null when ok, otherwise what went wrong
     * @param code null when ok, otherwise the stable code of the refusal, or null when unknown
     */
    public TransferInitResponse {
        TransferFrame.requireId(transferId);
        if (ok) {
            code = null;
        }
    }

    /**
     * A response without a code (an acceptance, or a refusal of a peer that names none).
     *
     * @param transferId the correlation id
     * @param ok whether the transfer may start
     * @param error null when ok, otherwise what went wrong
     */
    public TransferInitResponse(String transferId, boolean ok, String error) {
        this(transferId, ok, error, null);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
