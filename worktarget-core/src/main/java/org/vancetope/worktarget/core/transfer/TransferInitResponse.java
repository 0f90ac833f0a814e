package org.vancetope.worktarget.core.transfer;

/**
 * {@code transfer_init_response}, receiver → sender: whether the receiver accepted
 * the announced file (path sandbox, size limit and disk space checked, staging file created).
 *
 * <pre>{@code
 * new TransferInitResponse(id, false, "exceeds size limit");
 * }</pre>
 *
 * @param transferId the correlation id
 * @param ok whether the transfer may start
 * @param error null when ok, otherwise what went wrong
 */
public record TransferInitResponse(String transferId, boolean ok, String error) implements TransferFrame {

    /** The wire type. */
    public static final String TYPE = "transfer_init_response";

    /**
     * Validates the id.
     *
     * @param transferId the correlation id
     * @param ok whether the transfer may start
     * @param error null when ok, otherwise what went wrong
     */
    public TransferInitResponse {
        TransferFrame.requireId(transferId);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
