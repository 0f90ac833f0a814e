package org.vancetope.worktarget.transfer;

import java.util.Optional;
import org.vancetope.worktarget.spi.ErrorCode;

/**
 * A frame that could not be decoded: malformed JSON, a missing or mistyped field, bad base64 or an
 * unknown {@code type}. The transport answers it with an {@code error} frame of code
 * {@code bad_frame} and keeps the connection open; it never reaches a state machine.
 *
 * <pre>{@code
 * try {
 *     endpoint.onFrame(codec.decode(bytes));
 * } catch (FrameDecodeException e) {
 *     sendError(e.code().wire(), e.getMessage());
 * }
 * }</pre>
 */
public final class FrameDecodeException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a frame was refused. */
    public enum Reason {
        /** Not valid JSON, not a single JSON object, or trailing content after it. */
        MALFORMED_JSON,
        /** The {@code type} field is missing. */
        MISSING_TYPE,
        /** The {@code type} is not a transfer frame type. */
        UNKNOWN_TYPE,
        /** A field the frame type requires is missing or null. */
        MISSING_FIELD,
        /** A field has the wrong JSON type or an out-of-range value. */
        BAD_FIELD,
        /** The chunk's {@code bytes} are not valid base64. */
        BAD_BASE64,
        /** A binary chunk frame ({@code transfer.binary}) whose header is malformed or whose lengths disagree. */
        MALFORMED_BINARY
    }

    /** Why. */
    private final Reason reason;
    /** The frame type, when it was read before the failure. */
    private final String frameType;
    /** The transfer id, when it was read before the failure. */
    private final String transferId;

    /**
     * Creates the exception.
     *
     * @param reason why the frame was refused
     * @param message a human-readable description naming the field
     * @param frameType the type when known, else null
     * @param transferId the transfer id when known, else null
     * @param cause the parser failure, or null
     */
    public FrameDecodeException(Reason reason, String message, String frameType, String transferId, Throwable cause) {
        super(message, cause);
        this.reason = java.util.Objects.requireNonNull(reason, "reason");
        this.frameType = frameType;
        this.transferId = transferId;
    }

    /**
     * Why the frame was refused.
     *
     * @return the reason
     */
    public Reason reason() {
        return reason;
    }

    /**
     * The wire error code to answer with: always {@link ErrorCode#BAD_FRAME}.
     *
     * @return {@code bad_frame}
     */
    public ErrorCode code() {
        return ErrorCode.BAD_FRAME;
    }

    /**
     * The frame's {@code type}, if it was read before the failure.
     *
     * @return the type
     */
    public Optional<String> frameType() {
        return Optional.ofNullable(frameType);
    }

    /**
     * The frame's {@code transferId}, if it could be read: the codec reads on past a broken field (bad
     * base64, a mistyped or negative value) to find it, so it is known before or after that field; JSON
     * that cannot be parsed ends the reading.
     *
     * @return the transfer id
     */
    public Optional<String> transferId() {
        return Optional.ofNullable(transferId);
    }
}
