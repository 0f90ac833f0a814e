package org.vancetope.worktarget.core.transfer;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a task after a delay: the only way the transfer state machines wait for time. Tests inject a
 * manual scheduler ({@code ManualTransferScheduler} of the testkit) and move time instead of sleeping.
 *
 * <pre>{@code
 * TransferScheduler scheduler = TransferScheduler.of(Executors.newSingleThreadScheduledExecutor());
 * TransferScheduler.Cancellable c = scheduler.schedule(Duration.ofSeconds(30), this::onTimeout);
 * c.cancel();
 * }</pre>
 */
@FunctionalInterface
public interface TransferScheduler {

    /**
     * Schedules a task once.
     *
     * @param delay the delay, not negative
     * @param task the task; must not block for long
     * @return a handle that cancels the task if it has not run yet
     */
    Cancellable schedule(Duration delay, Runnable task);

    /** A scheduled task that can be cancelled. */
    @FunctionalInterface
    interface Cancellable {
        /** Cancels the task; no effect when it already ran. */
        void cancel();
    }

    /**
     * A scheduler on a {@link ScheduledExecutorService} (not shut down by the endpoint).
     *
     * @param executor the executor
     * @return the scheduler
     */
    static TransferScheduler of(ScheduledExecutorService executor) {
        java.util.Objects.requireNonNull(executor, "executor");
        return (delay, task) -> {
            ScheduledFuture<?> f = executor.schedule(task, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        };
    }
}
