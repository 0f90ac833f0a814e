package org.vancetope.worktarget.backend.daemon.internal;

/**
 * A frame that would be larger than the limit it was encoded against; nothing was sent. The encoder
 * stops as soon as the limit is passed, so the frame is never built whole.
 */
public final class FrameTooLargeException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int limit;

    /**
     * Creates the exception.
     *
     * @param type the frame type
     * @param limit the limit in bytes that the frame would have exceeded
     */
    public FrameTooLargeException(String type, int limit) {
        super("A " + type + " frame would exceed " + limit + " bytes");
        this.limit = limit;
    }

    /**
     * The limit the frame would have exceeded.
     *
     * @return the limit in bytes
     */
    public int limit() {
        return limit;
    }
}
