package org.vancetope.worktarget.core.internal.exec;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices the end of jobs and lets callers wait for it. A job ends when its shell has exited and its
 * output pipes are drained — or {@code outputDrainMs} after the exit, since background children may hold
 * the pipes open. The first wait of a new job runs in the caller's thread (woken by the JDK's own
 * reaper); only a job that outlives it gets a waiter thread, so short jobs cost no extra thread hop.
 *
 * <p>It does not start or end processes and does not render results. Thread-safe.
 */
final class JobWaits {
    private static final Logger LOG = LoggerFactory.getLogger(JobWaits.class);

    private final ExecutorService io;
    private final ScheduledExecutorService scheduler;
    private final long outputDrainMs;

    JobWaits(ExecutorService io, ScheduledExecutorService scheduler, long outputDrainMs) {
        this.io = io;
        this.scheduler = scheduler;
        this.outputDrainMs = outputDrainMs;
    }

    /**
     * The first wait of a new job, in the caller's thread; if the job outlives it, a waiter takes over.
     *
     * @param job the new job
     * @param waitMs the most milliseconds to wait, 0 for none
     */
    void awaitFirst(Job job, long waitMs) {
        boolean exited = false;
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        try {
            exited = waitMs > 0 && job.process.waitFor(waitMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!exited) {
            startWaiter(job);
            return;
        }
        onExit(job);
        awaitDone(job, end - System.nanoTime());
    }

    /**
     * Waits until a job ended or the time passed; an interrupt ends the wait and stays set.
     *
     * @param job the job
     * @param nanos the most nanoseconds to wait
     */
    static void awaitDone(Job job, long nanos) {
        if (nanos <= 0) {
            return;
        }
        try {
            job.done.get(nanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            // still running or draining: the caller gets the output so far
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            LOG.warn("exec job {} ended abnormally: {}", job.id, e.getCause().toString());
        }
    }

    /** Watches for the exit of a job whose caller stopped waiting, on one waiter thread. */
    private void startWaiter(Job job) {
        Process p = job.process;
        Runnable waiter = () -> {
            boolean interrupted = false;
            while (true) {
                try {
                    p.waitFor();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            onExit(job);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        };
        try {
            io.execute(waiter);
        } catch (RejectedExecutionException e) {
            // The engine is closing: the tree is being killed; notice the exit through the JDK instead.
            p.onExit().thenRun(() -> onExit(job));
        }
    }

    /** The shell exited: finish now if the output is drained, else when it is or when the drain time is up. */
    private void onExit(Job job) {
        if (!job.exited(job.process.exitValue(), System.nanoTime())) {
            return;
        }
        CompletableFuture<Void> pumps = job.pumps();
        if (pumps.isDone()) {
            job.finish();
            return;
        }
        pumps.whenComplete((v, e) -> job.finish());
        try {
            scheduler.schedule(job::finish, outputDrainMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            job.finish();
        }
    }
}
