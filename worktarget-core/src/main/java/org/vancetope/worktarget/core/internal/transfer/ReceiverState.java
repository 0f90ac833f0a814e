package org.vancetope.worktarget.core.internal.transfer;

/** The states of a receiving transfer. */
public enum ReceiverState {
    /** Created by an unsolicited {@code transfer_init}; about to validate it. */
    NEW,
    /**
     * The Brain sent {@code client.file.upload.request}; waiting for the client's {@code transfer_init} (or,
     * when it asked to resume a kept upload, its {@code transfer_resume}).
     */
    AWAITING_INIT,
    /** Init accepted, staging file open; appending chunks. */
    RECEIVING,
    /** The file is verified and renamed onto the target; waiting for {@code transfer_finish}. */
    VERIFIED,
    /**
     * Refused or failed, staging file deleted, the peer told, the outcome handed to whoever waits for it;
     * waiting for {@code transfer_finish}.
     */
    FAILED,
    /**
     * The connection ended while receiving and {@code transfer.resume} was negotiated: the staging file and
     * its sidecar are kept for the resume retention, outside the pending map; a {@code transfer_resume}
     * takes the transfer up again on a new connection (for an upload, after the Brain asked for it: then
     * {@link #AWAITING_INIT} again).
     */
    KEPT,
    /** Removed from the pending map. */
    CLOSED;

    /**
     * The allowed transitions. A chunk keeps a transfer in {@link #RECEIVING} and is legal only there;
     * there are no self-loops, so a repeated {@code transfer_init} is an illegal transition.
     */
    public static final Transitions<ReceiverState> TABLE = Transitions.of(ReceiverState.class)
            .allow(NEW, RECEIVING, FAILED, CLOSED)
            .allow(AWAITING_INIT, RECEIVING, FAILED, KEPT, CLOSED)
            .allow(RECEIVING, VERIFIED, FAILED, KEPT, CLOSED)
            .allow(KEPT, RECEIVING, AWAITING_INIT, CLOSED)
            .allow(VERIFIED, CLOSED)
            .allow(FAILED, CLOSED)
            .build();
}
