package org.vancetope.worktarget.backend.daemon.internal;

import org.vancetope.worktarget.backend.daemon.WireChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Receive-side back-pressure for frames handed from a connection's I/O thread to a worker: while
 * {@code high} or more of them wait, the connection stops reading ({@link WireChannel#reading}: Netty's auto-read off), so TCP's
 * window pushes back on the peer, whose sender then waits for writability; reading resumes once
 * at most {@code low} wait. This bounds the memory a fast sender can pin in a slow receiver (a disk
 * slower than the network) to about {@code high} frames.
 *
 * <p>{@link #queued()} runs on the I/O thread, {@link #done()} on the worker; both are thread-safe.
 */
public final class ReadGate {
    private final WireChannel channel;
    private final int high;
    private final int low;
    private final AtomicInteger waiting = new AtomicInteger();
    private boolean paused;

    /**
     * A gate for a channel.
     *
     * @param channel the connection; a channel without flow control makes the gate count only
     * @param high pause reading when this many frames wait
     * @param low resume reading when at most this many wait; below {@code high}
     */
    public ReadGate(WireChannel channel, int high, int low) {
        if (low < 0 || low >= high) {
            throw new IllegalArgumentException("need 0 <= low < high, got low " + low + ", high " + high);
        }
        this.channel = channel;
        this.high = high;
        this.low = low;
    }

    /** A frame was handed to the worker. */
    public void queued() {
        if (waiting.incrementAndGet() >= high) {
            pauseIfFull();
        }
    }

    /** The worker finished a frame. */
    public void done() {
        if (waiting.decrementAndGet() <= low) {
            resumeIfDrained();
        }
    }

    // Both transitions re-check the count under one lock, so a pause and a resume racing at the
    // thresholds cannot leave reading off with nothing left to turn it back on.
    private synchronized void pauseIfFull() {
        if (!paused && waiting.get() >= high) {
            paused = true;
            channel.reading(false);
        }
    }

    private synchronized void resumeIfDrained() {
        if (paused && waiting.get() <= low) {
            paused = false;
            channel.reading(true);
        }
    }

    /**
     * Whether reading is paused now.
     *
     * @return true while paused
     */
    public synchronized boolean paused() {
        return paused;
    }

    /**
     * The frames waiting now.
     *
     * @return the count
     */
    public int waiting() {
        return waiting.get();
    }
}
