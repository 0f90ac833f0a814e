package org.vancetope.worktarget.core.internal.transfer;

/** The states of a sending transfer. */
public enum SenderState {
    /** Hashing the file; nothing sent yet. */
    PREPARING,
    /** {@code transfer_init} sent; waiting for {@code transfer_init_response}. */
    AWAITING_INIT_RESPONSE,
    /** Sending chunks; a {@code transfer_complete} may still stop it early. */
    STREAMING,
    /** The last chunk is sent; waiting for {@code transfer_complete}. */
    AWAITING_COMPLETE,
    /** {@code transfer_finish} sent (or the transfer was abandoned); the entry is gone. */
    FINISHED;

    /** The allowed transitions. */
    public static final Transitions<SenderState> TABLE = Transitions.of(SenderState.class)
            .allow(PREPARING, AWAITING_INIT_RESPONSE, FINISHED)
            .allow(AWAITING_INIT_RESPONSE, STREAMING, FINISHED)
            .allow(STREAMING, AWAITING_COMPLETE, FINISHED)
            .allow(AWAITING_COMPLETE, FINISHED)
            .build();
}
