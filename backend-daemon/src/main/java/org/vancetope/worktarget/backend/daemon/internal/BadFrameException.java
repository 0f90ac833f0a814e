package org.vancetope.worktarget.backend.daemon.internal;

/** A frame that breaks the framing rules: not JSON, not an object, no {@code type}, or a malformed field. */
public final class BadFrameException extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what is wrong with the frame, for the peer
     */
    public BadFrameException(String message) {
        super(message);
    }
}
