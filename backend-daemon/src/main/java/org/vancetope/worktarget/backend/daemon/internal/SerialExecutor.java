package org.vancetope.worktarget.backend.daemon.internal;

import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in submission order, on a shared executor: a lane per connection, so the
 * frames of one connection are handled in order while different connections run in parallel.
 */
public final class SerialExecutor implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);
    private final Executor pool;
    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private boolean running;

    /**
     * A lane on a pool.
     *
     * @param pool the shared executor
     */
    public SerialExecutor(Executor pool) {
        this.pool = Objects.requireNonNull(pool, "pool");
    }

    @Override
    public void execute(Runnable task) {
        Objects.requireNonNull(task, "task");
        synchronized (queue) {
            queue.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        pool.execute(this::drain);
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (queue) {
                next = queue.poll();
                if (next == null) {
                    running = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                LOG.warn("A task of a serial lane failed", e);
            }
        }
    }
}
