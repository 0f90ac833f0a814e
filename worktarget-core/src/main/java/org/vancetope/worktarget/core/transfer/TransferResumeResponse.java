package org.vancetope.worktarget.core.transfer;

import org.vancetope.worktarget.spi.ErrorCode;

/**
 * {@code transfer_resume_response}, receiver → sender ({@link TransferCapability#RESUME} only): the
 * answer to {@link TransferResume}. When ok, the receiver holds the first {@code offset} bytes of the file
 * and expects the chunk {@code nextSeq} next, starting at that offset and saying so in its
 * {@link TransferChunk#offset()}; when not ok, nothing is kept and the file must be sent again from the
 * start.
 *
 * <pre>{@code
 * new TransferResumeResponse(id, true, 4194304L, 64L, null);
 * new TransferResumeResponse(id, false, 0, 0, "nothing is kept of this transfer", ErrorCode.NOT_FOUND);
 * }</pre>
 *
 * @param transferId the transfer
 * @param ok whether the transfer goes on
 * @param offset the bytes the receiver kept (0 when not ok)
 * @param nextSeq the seq of the next chunk it accepts (0 when not ok)
 * @param error null when ok, otherwise why it cannot be resumed
 * @param code null when ok, otherwise the stable code of the refusal (the frame's {@code code}); null from a
 *        peer that sent none
 */
public record TransferResumeResponse(String transferId, boolean ok, long offset, long nextSeq, String error,
                                     ErrorCode code) implements TransferFrame {

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
     * @param code null when ok, otherwise the stable code of the refusal, or null when unknown
     */
    public TransferResumeResponse {
        TransferFrame.requireId(transferId);
        if (offset < 0 || nextSeq < 0) {
            throw new IllegalArgumentException("offset and nextSeq must not be negative");
        }
        if (ok) {
            code = null;
        }
    }

    /**
     * An answer without a code (an acceptance, or the refusal of a peer that names none).
     *
     * @param transferId the transfer
     * @param ok whether the transfer goes on
     * @param offset the bytes the receiver kept (0 when not ok)
     * @param nextSeq the seq of the next chunk it accepts (0 when not ok)
     * @param error null when ok, otherwise why it cannot be resumed
     */
    public TransferResumeResponse(String transferId, boolean ok, long offset, long nextSeq, String error) {
        this(transferId, ok, offset, nextSeq, error, null);
    }

    /**
     * The code of a refusal as the sender reports it: the one the receiver named, else {@code internal}.
     *
     * @return the code, or null when ok
     */
    public ErrorCode failureCode() {
        if (ok) {
            return null;
        }
        return code != null ? code : ErrorCode.INTERNAL;
    }

    @Override
    public String type() {
        return TYPE;
    }
}
