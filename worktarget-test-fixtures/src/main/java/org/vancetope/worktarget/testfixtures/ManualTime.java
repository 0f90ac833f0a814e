package org.vancetope.worktarget.testfixtures;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;

/**
 * Time that moves only when a test says so: a {@link #clock() clock} and a task queue on it.
 * {@link #advance(Duration)} runs every task that falls due, in time order, with the clock set to each
 * task's due time; tasks scheduled by running tasks are honoured within the same advance. Thread-safe:
 * other threads may read the clock at any time (an engine's own threads, say), but tasks run on the
 * thread that calls {@code advance}.
 *
 * <pre>{@code
 * ManualTime time = new ManualTime();
 * ExecEngine engine = ExecEngine.builder().clock(time.clock()).build();
 * time.schedule(Duration.ofSeconds(30), this::onTimeout);
 * time.advance(Duration.ofSeconds(31));   // the clock moves on, onTimeout runs
 * }</pre>
 *
 * <p>The testkit adapts it to the transfer endpoint's scheduler ({@code ManualTransferScheduler}).
 */
public final class ManualTime {
    /** Where a {@code new ManualTime()} starts: 2026-01-01T00:00:00Z. */
    public static final Instant DEFAULT_START = Instant.parse("2026-01-01T00:00:00Z");

    private final Object lock = new Object();
    private final PriorityQueue<Task> queue = new PriorityQueue<>();
    private Instant now;
    /** Where the advances asked for so far lead (never before {@code now}). */
    private Instant reached;
    private long sequence;

    /** A task waiting on a {@link ManualTime}; cancelling it keeps it from running. */
    @FunctionalInterface
    public interface Scheduled {
        /** Cancels the task; no effect when it already ran. */
        void cancel();
    }

    private final class Task implements Comparable<Task>, Scheduled {
        final Instant due;
        final long order;
        final Runnable runnable;

        Task(Instant due, long order, Runnable runnable) {
            this.due = due;
            this.order = order;
            this.runnable = runnable;
        }

        @Override
        public int compareTo(Task o) {
            int c = due.compareTo(o.due);
            return c != 0 ? c : Long.compare(order, o.order);
        }

        @Override
        public void cancel() {
            synchronized (lock) {
                queue.remove(this);
            }
        }
    }

    /** A clock view of this time in one zone. */
    private final class View extends Clock {
        private final ZoneId zone;

        View(ZoneId zone) {
            this.zone = zone;
        }

        @Override
        public ZoneId getZone() {
            return zone;
        }

        @Override
        public Clock withZone(ZoneId other) {
            return other.equals(zone) ? this : new View(other);
        }

        @Override
        public Instant instant() {
            return now();
        }
    }

    /** Starts at {@link #DEFAULT_START}. */
    public ManualTime() {
        this(DEFAULT_START);
    }

    /**
     * Starts at a given instant.
     *
     * @param start the initial time
     */
    public ManualTime(Instant start) {
        this.now = Objects.requireNonNull(start, "start");
        this.reached = start;
    }

    /**
     * A clock showing this time, in UTC; {@link Clock#withZone(ZoneId)} gives the same time in another zone.
     *
     * @return the clock
     */
    public Clock clock() {
        return new View(ZoneOffset.UTC);
    }

    /**
     * The current time.
     *
     * @return now
     */
    public Instant now() {
        synchronized (lock) {
            return now;
        }
    }

    /**
     * Schedules a task once, a delay from now; it runs during the {@link #advance(Duration)} that reaches
     * its due time.
     *
     * @param delay the delay; a negative one counts as zero
     * @param task the task
     * @return a handle that cancels the task if it has not run yet
     */
    public Scheduled schedule(Duration delay, Runnable task) {
        Objects.requireNonNull(delay, "delay");
        Objects.requireNonNull(task, "task");
        synchronized (lock) {
            Task t = new Task(now.plus(delay.isNegative() ? Duration.ZERO : delay), sequence++, task);
            queue.add(t);
            return t;
        }
    }

    /**
     * Moves time forward, running every task that falls due on the way. Advances add up, also when
     * several threads advance at once; time never goes backwards.
     *
     * @param by how far, not negative
     * @return the number of tasks run
     */
    public int advance(Duration by) {
        if (by.isNegative()) {
            throw new IllegalArgumentException("time only moves forward: " + by);
        }
        Instant target;
        synchronized (lock) {
            // Each advance reserves its own stretch, so concurrent advances add up.
            reached = later(reached, now).plus(by);
            target = reached;
        }
        int ran = 0;
        while (true) {
            Task next;
            synchronized (lock) {
                next = queue.peek();
                if (next == null || next.due.isAfter(target)) {
                    // Never backwards: another thread may have advanced further meanwhile.
                    now = later(now, target);
                    return ran;
                }
                queue.poll();
                now = later(now, next.due);
            }
            next.runnable.run();
            ran++;
        }
    }

    /**
     * The due times of the tasks that have neither run nor been cancelled, earliest first.
     *
     * @return a snapshot
     */
    public List<Instant> pendingTasks() {
        synchronized (lock) {
            List<Task> tasks = new ArrayList<>(queue);
            tasks.sort(null);
            return tasks.stream().map(t -> t.due).toList();
        }
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }
}
