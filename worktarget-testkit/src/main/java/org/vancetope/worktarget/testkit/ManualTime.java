package org.vancetope.worktarget.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import org.vancetope.worktarget.core.transfer.TransferScheduler;

/**
 * A clock and a scheduler that move only when a test says so: {@link #advance(Duration)} runs every
 * task that falls due, in time order, with the clock set to each task's due time. Tasks scheduled by
 * running tasks are honoured within the same advance. Thread-safe, but tasks run on the thread that
 * calls {@code advance}.
 *
 * <pre>{@code
 * ManualTime time = new ManualTime();
 * TransferEndpoint ep = TransferEndpoint.builder(TransferSide.FOOT)
 *         .clock(time.clock()).scheduler(time.scheduler()).resolver(r).build();
 * time.advance(Duration.ofSeconds(31));   // fires the 30 s phase timeout
 * }</pre>
 */
public final class ManualTime {
    private final Object lock = new Object();
    private final PriorityQueue<Task> queue = new PriorityQueue<>();
    private long nowMillis;
    /** Where the advances asked for so far lead (at least {@code nowMillis}). */
    private long reachedMillis;
    private long sequence;

    private final class Task implements Comparable<Task>, TransferScheduler.Cancellable {
        final long due;
        final long order;
        final Runnable runnable;
        boolean cancelled;

        Task(long due, long order, Runnable runnable) {
            this.due = due;
            this.order = order;
            this.runnable = runnable;
        }

        @Override
        public int compareTo(Task o) {
            int c = Long.compare(due, o.due);
            return c != 0 ? c : Long.compare(order, o.order);
        }

        @Override
        public void cancel() {
            synchronized (lock) {
                cancelled = true;
                queue.remove(this);
            }
        }
    }

    /** Starts at 2026-01-01T00:00:00Z. */
    public ManualTime() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    /**
     * Starts at a given instant.
     *
     * @param start the initial time
     */
    public ManualTime(Instant start) {
        this.nowMillis = start.toEpochMilli();
    }

    /**
     * A clock showing this time (UTC).
     *
     * @return the clock
     */
    public Clock clock() {
        return new Clock() {
            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                synchronized (lock) {
                    return Instant.ofEpochMilli(nowMillis);
                }
            }
        };
    }

    /**
     * A scheduler on this time.
     *
     * @return the scheduler
     */
    public TransferScheduler scheduler() {
        return (delay, task) -> {
            Objects.requireNonNull(task, "task");
            synchronized (lock) {
                Task t = new Task(nowMillis + Math.max(0, delay.toMillis()), sequence++, task);
                queue.add(t);
                return t;
            }
        };
    }

    /**
     * The current time.
     *
     * @return now
     */
    public Instant now() {
        synchronized (lock) {
            return Instant.ofEpochMilli(nowMillis);
        }
    }

    /**
     * Moves time forward, running every task that falls due on the way.
     *
     * @param by how far
     * @return the number of tasks run
     */
    public int advance(Duration by) {
        long target;
        synchronized (lock) {
            // Advances add up, also when several threads advance at once: each reserves its own stretch.
            reachedMillis = Math.max(reachedMillis, nowMillis) + by.toMillis();
            target = reachedMillis;
        }
        int ran = 0;
        while (true) {
            Task next;
            synchronized (lock) {
                next = queue.peek();
                if (next == null || next.due > target) {
                    // Never backwards: another thread may have advanced further meanwhile.
                    nowMillis = Math.max(nowMillis, target);
                    return ran;
                }
                queue.poll();
                nowMillis = Math.max(nowMillis, next.due);
            }
            next.runnable.run();
            ran++;
        }
    }

    /**
     * The due times of pending tasks, earliest first.
     *
     * @return a snapshot
     */
    public List<Instant> pendingTasks() {
        synchronized (lock) {
            List<Task> tasks = new ArrayList<>(queue);
            tasks.sort(null);
            return tasks.stream().map(t -> Instant.ofEpochMilli(t.due)).toList();
        }
    }
}
