package org.vancetope.worktarget.testkit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Bounded waiting for a condition in tests, instead of sleeping: polls every few milliseconds and
 * fails with the condition's description once the limit has passed. The limit bounds a hang; it is
 * not a speed assertion.
 *
 * <pre>{@code
 * Await.until("the staging file is gone", () -> Files.notExists(staging));
 * }</pre>
 */
public final class Await {
    /** The default limit (30 s): generous, because CI machines are shared and noisy. */
    public static final Duration LIMIT = Duration.ofSeconds(30);

    private Await() {
    }

    /**
     * Waits until a condition holds, at most {@link #LIMIT}.
     *
     * @param what the condition, for the failure message
     * @param condition the condition
     * @throws AssertionError when it does not hold within the limit
     */
    public static void until(String what, BooleanSupplier condition) {
        long end = System.nanoTime() + LIMIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not reached within " + LIMIT + ": " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }
}
