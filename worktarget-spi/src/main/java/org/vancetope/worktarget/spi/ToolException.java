package org.vancetope.worktarget.spi;

import java.util.Objects;

/**
 * The one exception a tool call fails with: a stable {@link ErrorCode} plus a message that tells the
 * caller (often an LLM) what happened and what to do next.
 *
 * <p>It lives in the SPI because backends written by integrators throw it; {@code worktarget-core}
 * and every backend of this project use the same type. Messages must never reveal host paths
 * outside the root a call is confined to.
 *
 * <pre>{@code
 * throw new ToolException(ErrorCode.NOT_FOUND,
 *         "File 'src/Main.java' does not exist. Call file_list on 'src' to see what is there.");
 * }</pre>
 */
public class ToolException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The stable code. */
    private final ErrorCode code;

    /**
     * Creates an exception with a code and a message.
     *
     * @param code the stable error code
     * @param message what happened and what to do next
     */
    public ToolException(ErrorCode code, String message) {
        super(message);
        this.code = Objects.requireNonNull(code, "code");
    }

    /**
     * Creates an exception with a code, a message and a cause.
     *
     * @param code the stable error code
     * @param message what happened and what to do next
     * @param cause the underlying failure (never shown to the caller)
     */
    public ToolException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = Objects.requireNonNull(code, "code");
    }

    /**
     * The stable error code.
     *
     * @return the code
     */
    public ErrorCode code() {
        return code;
    }

    @Override
    public String toString() {
        return "ToolException[" + code.wire() + "]: " + getMessage();
    }
}
