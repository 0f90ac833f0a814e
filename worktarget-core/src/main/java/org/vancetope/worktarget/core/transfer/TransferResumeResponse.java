package org.vancetope.worktarget.core.transfer;

/**
 * {@code transfer_resume_response}, receiver → sender ({@link TransferCapability#RESUME} only): the
 * answer to {@link TransferResume}. When ok, the receiver holds the first {@code offset} bytes of the file
 * and expects the chunk {@code nextSeq} next, starting at that offset and saying so in its
 * {@link TransferChunk#offset()}; when not ok, nothing is kept and the file must be sent again from the
 * start.
 *
 * <pre>{@code
 * new TransferResumeResponse(id, true, 4194304L, 64L, null);
 * }</pre>
 *
 * @param transferId the transfer
 * @param ok whether the transfer goes on
 * @param offset the bytes the receiver kept (0 when not ok)
 * @param nextSeq the seq of the next chunk it accepts (0 when not ok)
 * @param error null when ok, otherwise why it cannot be resumed
 */
public record TransferResumeResponse(String transferId, boolean ok, long offset, long nextSeq, String error)
        implements TransferFrame {

    /** The wire type. */
    public static final String TYPE = "transfer_resume_response";

    /**
     * Validates the fields.
     *
     * @param transferId the transfer
     * @param ok whether the transfer goes on
     * @param offset the bytes the receiver kept (0 when not ok)
     * @param nextSeq the seq of the next chunk it accepts (0 when not ok)
     * @param error null when ok, otherwise why it cannot be resumed
     */
    public TransferResumeResponse {
        TransferFrame.requireId(transferId);
        if (offset < 0 || nextSeq < 0) {
            throw new IllegalArgumentException("offset and nextSeq must not be negative");
        }
    }

    @Override
    public String type() {
        return TYPE;
    }
}
