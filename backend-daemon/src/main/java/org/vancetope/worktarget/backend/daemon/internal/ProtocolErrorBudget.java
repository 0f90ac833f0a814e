package org.vancetope.worktarget.backend.daemon.internal;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongSupplier;

/**
 * Counts protocol errors in a sliding window: {@link #record()} answers true when the limit is reached
 * (by default three errors within 10 s close the connection). Not thread-safe; used on one I/O
 * thread.
 */
public final class ProtocolErrorBudget {
    private final int limit;
    private final long windowNanos;
    private final LongSupplier nanoClock;
    private final Deque<Long> times = new ArrayDeque<>();

    /**
     * Creates a budget.
     *
     * @param limit errors that exhaust it, at least 1
     * @param windowNanos the window length
     * @param nanoClock the clock, e.g. {@code System::nanoTime}
     */
    public ProtocolErrorBudget(int limit, long windowNanos, LongSupplier nanoClock) {
        this.limit = limit;
        this.windowNanos = windowNanos;
        this.nanoClock = nanoClock;
    }

    /**
     * Records one error.
     *
     * @return true when {@code limit} errors fell within the window
     */
    public boolean record() {
        long now = nanoClock.getAsLong();
        times.addLast(now);
        while (!times.isEmpty() && now - times.peekFirst() >= windowNanos) {
            times.removeFirst();
        }
        return times.size() >= limit;
    }

    /** What exhausts the budget, for the log: {@code 3 protocol errors within 10000 ms}. */
    @Override
    public String toString() {
        return limit + " protocol errors within " + java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(windowNanos) + " ms";
    }
}
