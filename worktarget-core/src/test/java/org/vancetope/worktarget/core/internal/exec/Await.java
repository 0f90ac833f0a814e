package org.vancetope.worktarget.core.internal.exec;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Bounded waiting for tests: event-driven where the JDK offers an event, bounded polling otherwise. */
final class Await {
    static final Duration LIMIT = Duration.ofSeconds(30);

    private Await() {
    }

    /** Polls a condition every few milliseconds until it holds; fails after {@link #LIMIT}. */
    static void until(String what, BooleanSupplier condition) {
        long end = System.nanoTime() + LIMIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("not reached within " + LIMIT + ": " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /** Waits for a process to end (via its onExit future); fails after {@link #LIMIT}. */
    static void processGone(long pid) {
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isEmpty()) {
            return;
        }
        try {
            h.get().onExit().get(LIMIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("process " + pid + " still alive after " + LIMIT, e);
        } catch (ExecutionException e) {
            throw new AssertionError(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
