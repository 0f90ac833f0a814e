package org.vancetope.worktarget.core.transfer;

/**
 * A transfer state machine was asked to move along a transition its table does not allow, e.g. a
 * {@code transfer_chunk} for a transfer whose file is already verified. The endpoint drops the
 * frame that caused it and logs it; it never reaches the transport.
 */
public final class IllegalTransitionException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** The state the machine was in. */
    private final Enum<?> from;
    /** The state it was asked to enter. */
    private final Enum<?> to;

    /**
     * Creates the exception.
     *
     * @param from the current state
     * @param to the requested state
     */
    public IllegalTransitionException(Enum<?> from, Enum<?> to) {
        super("illegal transition " + from + " -> " + to);
        this.from = from;
        this.to = to;
    }

    /**
     * The state the machine was in.
     *
     * @return the state
     */
    public Enum<?> from() {
        return from;
    }

    /**
     * The state it was asked to enter.
     *
     * @return the state
     */
    public Enum<?> to() {
        return to;
    }
}
