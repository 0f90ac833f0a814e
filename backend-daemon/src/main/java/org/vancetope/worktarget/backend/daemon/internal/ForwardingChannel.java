package org.vancetope.worktarget.backend.daemon.internal;

import java.util.Objects;
import org.vancetope.worktarget.spi.FrameChannel;

/**
 * A frame channel that is another channel in a different form (transfer frames over text frames, a
 * text channel seen as a wire channel): identity, state and writability are the underlying channel's;
 * a subclass says only how a frame is sent.
 *
 * @param <F> the frames of this channel
 */
public abstract class ForwardingChannel<F> implements FrameChannel<F> {
    private final FrameChannel<?> underlying;

    /**
     * Creates the view.
     *
     * @param underlying the channel the frames really go over
     */
    protected ForwardingChannel(FrameChannel<?> underlying) {
        this.underlying = Objects.requireNonNull(underlying, "underlying");
    }

    @Override
    public final String id() {
        return underlying.id();
    }

    @Override
    public final boolean isOpen() {
        return underlying.isOpen();
    }

    @Override
    public final boolean isWritable() {
        return underlying.isWritable();
    }

    @Override
    public final void whenWritable(Runnable callback) {
        underlying.whenWritable(callback);
    }
}
