package org.vancetope.worktarget.core.transfer;

/**
 * {@code transfer_finish}, sender → receiver: the last frame of a transfer; never
 * answered. It carries an {@code error} only when a requested upload failed before it started.
 *
 * <pre>{@code
 * new TransferFinish(id, false, "file not found: test.wav");
 * }</pre>
 *
 * @param transferId the correlation id
 * @param ok the final status
 * @param error null, or the local failure of a requested upload
 */
public record TransferFinish(String transferId, boolean ok, String error) implements TransferFrame {

    /** The wire type. */
    public static final String TYPE = "transfer_finish";

    /**
     * Validates the id.
     *
     * @param transferId the correlation id
     * @param ok the final status
     * @param error null, or the local failure of a requested upload
     */
    public TransferFinish {
        TransferFrame.requireId(transferId);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
