package org.vancetope.worktarget.spi;

import java.util.concurrent.CompletionStage;

/**
 * A transport-agnostic, bidirectional channel of frames (one WebSocket connection, or an in-memory
 * pair in tests). The transfer state machines send through it and are fed the frames that arrive on
 * it.
 *
 * @param <F> the frame type
 */
public interface FrameChannel<F> {

    /**
     * A stable id of this channel; a transfer belongs to the channel it started on.
     *
     * @return the id
     */
    String id();

    /**
     * Whether the channel is still open.
     *
     * @return true while frames can be sent
     */
    boolean isOpen();

    /**
     * Sends a frame.
     *
     * @param frame the frame
     * @return completes when the frame was written; exceptionally when the channel closed first, or with a
     *         {@link ToolException} of code {@link ErrorCode#SIZE_LIMIT} when the frame is larger than the
     *         channel carries (then nothing was sent and the channel stays open)
     */
    CompletionStage<Void> send(F frame);

    /**
     * Whether the channel accepts more frames without queueing beyond its high-water mark.
     *
     * @return true when a sender may write more
     */
    boolean isWritable();

    /**
     * Runs the callback once, as soon as the channel is writable again (or closed).
     *
     * @param callback the callback; must be fast
     */
    void whenWritable(Runnable callback);
}
