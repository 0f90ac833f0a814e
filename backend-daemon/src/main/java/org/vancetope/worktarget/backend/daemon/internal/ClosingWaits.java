package org.vancetope.worktarget.backend.daemon.internal;

import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bounded wait of every close step of our Netty servers and clients (closing a listening channel,
 * shutting an event loop group down). Netty completes those futures on the event loop's own thread; when
 * that thread has died (an {@link Error} it could not survive, e.g. a class that no longer loads because
 * the jar was replaced under the running process), the future never completes, and an unbounded wait kept
 * {@code serve} from exiting on SIGTERM for ever. Each step is instead waited for at most
 * {@link #STEP}, then closing goes on with a WARN.
 */
public final class ClosingWaits {
    private static final Logger LOG = LoggerFactory.getLogger(ClosingWaits.class);

    /** The most one step is waited for: the steps give their own work 2 s at most. */
    public static final Duration STEP = Duration.ofSeconds(5);

    private ClosingWaits() {
    }

    /**
     * Waits for a close step, at most {@link #STEP}, without being interrupted.
     *
     * @param step the step's future
     * @param what what the step closes, for the WARN, e.g. "the admin API's event loop"
     * @return true when the step completed in time
     */
    public static boolean await(Future<?> step, String what) {
        return await(step, STEP, what);
    }

    /**
     * {@link #await(Future, String)} with another bound (for tests).
     *
     * @param step the step's future
     * @param max the most to wait
     * @param what what the step closes
     * @return true when the step completed in time
     */
    public static boolean await(Future<?> step, Duration max, String what) {
        if (step.awaitUninterruptibly(max.toMillis(), TimeUnit.MILLISECONDS)) {
            return true;
        }
        LOG.warn("Closing {} did not end within {} ms; going on without it. Its thread may have died: look for an "
                + "error above (a jar replaced while the process ran makes classes fail to load; stop the process "
                + "before replacing its jar)", what, max.toMillis());
        return false;
    }

    /**
     * Lets each event loop of a group run what was handed to it before now (the answers that call threads
     * wrote), before the group shuts down: a shutting-down Netty loop closes its channels first and runs its
     * queued tasks after, so an answer written just before the shutdown was otherwise lost with its
     * connection. Waits at most {@link #STEP} in all.
     *
     * @param group the group about to shut down
     * @param what what the group serves, for the WARN
     */
    public static void drain(io.netty.channel.EventLoopGroup group, String what) {
        long deadline = System.nanoTime() + STEP.toNanos();
        for (io.netty.util.concurrent.EventExecutor loop : group) {
            if (loop.isShuttingDown()) {
                continue;
            }
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            try {
                await(loop.submit(() -> { }), left, "the queued writes of " + what);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // shutting down already
            }
        }
    }
}
