package org.vancetope.worktarget.core.internal.exec;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of one {@link ExecEngine}, all daemon threads: the scheduler (deadlines, SIGKILL after the
 * grace period, output drains, expiry passes; engine-owned unless the builder was given one), the
 * {@code io} pool (output pumps, waiters, cleanup of evicted jobs) and the one spawner thread that starts
 * every job for the engine's lifetime.
 *
 * <p>It does not run any task itself; it only creates the executors and shuts down the ones it owns.
 */
final class ExecThreads {
    final ScheduledExecutorService scheduler;
    final ExecutorService io;
    final ExecutorService spawner;
    private final boolean ownsScheduler;

    /**
     * Creates the executors.
     *
     * @param givenScheduler the caller's scheduler, not shut down here; or null for an engine-owned one
     */
    ExecThreads(ScheduledExecutorService givenScheduler) {
        this.ownsScheduler = givenScheduler == null;
        if (ownsScheduler) {
            ScheduledThreadPoolExecutor pool = new ScheduledThreadPoolExecutor(1, daemonThreads("worktarget-exec-watchdog"));
            pool.setRemoveOnCancelPolicy(true);
            // close() ends every tree itself, so pending SIGKILL rounds need not keep the thread after it.
            pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            this.scheduler = pool;
        } else {
            this.scheduler = givenScheduler;
        }
        this.io = Executors.newCachedThreadPool(daemonThreads("worktarget-exec-io"));
        this.spawner = Executors.newSingleThreadExecutor(daemonThreads("worktarget-exec-spawner"));
    }

    /** Shuts down the io pool, the spawner and, when it owns it, the scheduler; waits for none of them. */
    void shutdown() {
        io.shutdown();
        spawner.shutdown();
        if (ownsScheduler) {
            scheduler.shutdown();
        }
    }

    private static ThreadFactory daemonThreads(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
