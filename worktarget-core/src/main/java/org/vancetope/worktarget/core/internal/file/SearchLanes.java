package org.vancetope.worktarget.core.internal.file;

import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of walks and searches: every call gets a fork/join pool of its own (a "lane") of
 * {@code parallelism} threads for as long as it runs, so concurrent calls never queue behind each
 * other's tasks. Before, all calls shared one pool sized to the machine, and two searches stuck in a
 * backtracking pattern held every thread and stalled every other caller's {@code file_grep} and
 * {@code file_find}; now such calls only compete for the CPU with the others, which the operating
 * system shares between all their threads, and each is bounded by its deadline.
 *
 * <p>Idle lanes are kept for reuse (at most {@value #MAX_IDLE}; their threads end after the pool's
 * keep-alive when unused), so a call normally starts on warm threads. A lane goes back only once it is
 * quiet: no task of the finished call still runs.
 */
final class SearchLanes {
    private static final int MAX_IDLE = 4;
    /** How long a finished call waits for its last tasks to notice the end before the lane is dropped. */
    private static final long QUIESCE_SECONDS = 30;

    private static final AtomicInteger THREADS = new AtomicInteger();
    /** Threads named for what they do (a thread dump or a leak check of a host names this library). */
    private static final ForkJoinPool.ForkJoinWorkerThreadFactory NAMED = pool -> {
        ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
        t.setName("worktarget-search-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    };

    private final int parallelism;
    private final ConcurrentLinkedDeque<ForkJoinPool> idle = new ConcurrentLinkedDeque<>();
    private volatile boolean closed;

    /**
     * Lanes of {@code parallelism} threads each.
     *
     * @param parallelism threads per call
     */
    SearchLanes(int parallelism) {
        this.parallelism = parallelism;
    }

    /**
     * Runs a call's root task on a lane of its own and returns when it is over and no task of it runs.
     *
     * @param deadline the call's deadline
     * @param root the root task
     * @throws CallDeadline.Stop when the call is over before the task finished
     */
    void run(CallDeadline deadline, ForkJoinTask<?> root) {
        ForkJoinPool pool = idle.pollFirst();
        if (pool == null) {
            pool = new ForkJoinPool(parallelism, NAMED, null, false);
        }
        try {
            pool.execute(root);
            deadline.await(root);
        } catch (RuntimeException | Error e) {
            deadline.cancel();  // whatever ended the call (a stop, a bug in a task), the other tasks stop too
            throw e;
        } finally {
            release(pool);
        }
    }

    private void release(ForkJoinPool pool) {
        if (!pool.awaitQuiescence(QUIESCE_SECONDS, TimeUnit.SECONDS)) {
            pool.shutdownNow(); // a task that does not stop (stuck I/O): never hand this lane to another call
            return;
        }
        if (!closed && idle.size() < MAX_IDLE) {
            idle.addFirst(pool);
            if (closed && idle.remove(pool)) {
                pool.shutdown();    // closed meanwhile: close() may have drained the lanes before this one came
            }
        } else {
            pool.shutdown();
        }
    }

    /**
     * Ends the idle lanes' threads now (they would otherwise end after the pool's keep-alive, a minute), and
     * those of lanes in use once their call is over. Calls may still run afterwards, each on a lane that
     * ends with it.
     */
    void close() {
        closed = true;
        ForkJoinPool pool;
        while ((pool = idle.pollFirst()) != null) {
            pool.shutdown();
        }
    }

    /**
     * How many lanes wait for a call.
     *
     * @return the count
     */
    int idle() {
        return idle.size();
    }

    /**
     * The threads each call gets.
     *
     * @return the parallelism
     */
    int parallelism() {
        return parallelism;
    }
}
