package org.vancetope.worktarget.backend.daemon.internal;

import java.util.function.LongSupplier;

/**
 * Lets one event of a kind per window be logged at its normal level and sends the others of the
 * window to DEBUG, counting them into the next normal line; for events that a peer without a token can
 * cause as often as it likes (a refused upgrade), so that they stay visible without filling the disk.
 * Thread-safe.
 */
public final class LogLimiter {
    private final long windowNanos;
    private final LongSupplier nanoClock;
    private long nextLoud;
    private boolean started;
    private long quiet;

    /**
     * Creates a limiter.
     *
     * @param windowNanos the window: at most one normal line per window
     * @param nanoClock the clock, e.g. {@code System::nanoTime}
     */
    public LogLimiter(long windowNanos, LongSupplier nanoClock) {
        this.windowNanos = windowNanos;
        this.nanoClock = nanoClock;
    }

    /**
     * Asks whether this event may be logged at its normal level.
     *
     * @return -1 when it must go to DEBUG; otherwise how many events went to DEBUG since the last normal line
     */
    public synchronized long tryLoud() {
        long now = nanoClock.getAsLong();
        if (started && now - nextLoud < 0) {
            quiet++;
            return -1;
        }
        started = true;
        nextLoud = now + windowNanos;
        long n = quiet;
        quiet = 0;
        return n;
    }
}
