package org.vancetope.worktarget.core.internal.file;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The deadline and cancellation of one walking call ({@code file_grep}, {@code file_find},
 * {@code file_count}), shared by every thread working for it.
 *
 * <p>Work checks it often: the walk at every directory and file, matching at every
 * {@value GuardedText#CHECK_EVERY}th character the regex engine reads (through {@link GuardedText}),
 * so even a catastrophically backtracking pattern stops soon after the deadline. The call is over
 * when the deadline passes, when the calling thread is interrupted (a daemon cancels a call by
 * interrupting its worker; the caller may also be interrupted while it waits for the pool) or when a
 * task asks to stop with a failure of its own. A stopped task throws {@link Stop}; the engine turns
 * the state into a {@link ToolException} with {@link #failure}.
 */
final class CallDeadline {
    /** Unwinds the work of a call that is over; carries nothing (the state is in the deadline). */
    static final class Stop extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** A stop. */
        public Stop() {
            super("stopped", null, false, false);
        }

        /**
         * A stop, as the fork/join framework may rebuild it on the joining thread.
         *
         * @param cause the original stop
         */
        public Stop(Throwable cause) {
            super("stopped", cause, false, false);
        }
    }

    private static final Stop STOP = new Stop();

    private final String tool;
    private final long timeoutMillis;
    private final long deadlineNanos;
    private final Thread owner;
    private volatile boolean cancelled;
    private volatile boolean expired;
    private final AtomicReference<ToolException> failure = new AtomicReference<>();
    private final AtomicReference<String> where = new AtomicReference<>();

    private CallDeadline(String tool, long timeoutMillis) {
        this.tool = tool;
        this.timeoutMillis = timeoutMillis;
        this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        this.owner = Thread.currentThread();
    }

    /**
     * Starts the deadline of a call on the calling thread.
     *
     * @param tool the wrapper name, for messages
     * @param timeoutMillis the call's time budget
     * @return the deadline
     */
    static CallDeadline start(String tool, long timeoutMillis) {
        return new CallDeadline(tool, timeoutMillis);
    }

    /**
     * Throws {@link Stop} when the call is over: deadline passed, cancelled (also: the calling thread
     * is interrupted), or failed.
     *
     * @throws Stop when the work must stop
     */
    void check() {
        if (cancelled || expired || failure.get() != null) {
            throw STOP;
        }
        if (System.nanoTime() - deadlineNanos > 0) {
            expired = true;
            throw STOP;
        }
        if (owner.isInterrupted()) {
            cancelled = true;
            throw STOP;
        }
    }

    /**
     * {@link #check()}, remembering the file being worked on when this is what ends the call.
     *
     * @param rel the file, relative to the gate's root
     * @throws Stop when the work must stop
     */
    void check(String rel) {
        try {
            check();
        } catch (Stop s) {
            where.compareAndSet(null, rel);
            throw s;
        }
    }

    /** Cancels the call: every task stops at its next check. */
    void cancel() {
        cancelled = true;
    }

    /**
     * Ends the call with a failure of its own (the first one wins), for example a pattern that overflows
     * the stack; every task stops at its next check.
     *
     * @param e the failure
     * @return a {@link Stop} to throw
     */
    Stop fail(ToolException e) {
        failure.compareAndSet(null, e);
        return STOP;
    }

    /**
     * Whether the call is over.
     *
     * @return true after a deadline, cancellation or failure
     */
    boolean over() {
        return cancelled || expired || failure.get() != null;
    }

    /**
     * Waits for a submitted task on the caller's behalf until the deadline; when the deadline passes or
     * the waiting thread is interrupted, marks the call over (every task stops at its next check). The
     * caller then waits for the pool to be quiet ({@link SearchLanes}) so that nothing touches the
     * call's directories after it returned. An interrupt is kept for the caller.
     *
     * @param task the call's root task, already submitted to its pool
     * @throws Stop when the call is over
     */
    void await(ForkJoinTask<?> task) {
        boolean interrupted = false;
        try {
            while (true) {
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    expired = true;
                    break;
                }
                try {
                    task.get(left, TimeUnit.NANOSECONDS);
                    return;
                } catch (TimeoutException e) {
                    expired = true;
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                    cancelled = true;
                    break;
                } catch (ExecutionException e) {
                    Throwable c = e.getCause();
                    if (c instanceof Stop) {
                        throw STOP;
                    }
                    if (c instanceof RuntimeException r) {
                        throw r;
                    }
                    if (c instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException(c);
                }
            }
            throw STOP;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The error that ends a call that is over.
     *
     * @param whatToDo what the caller should try instead, for a timeout
     * @return {@code timeout}, {@code cancelled} or the failure a task reported
     */
    ToolException failure(String whatToDo) {
        ToolException f = failure.get();
        if (f != null) {
            return f;
        }
        if (cancelled && !expired) {
            return new ToolException(ErrorCode.CANCELLED, tool + " was cancelled (the call was cancelled or its caller "
                    + "stopped waiting); nothing was returned.");
        }
        String at = where.get();
        return new ToolException(ErrorCode.TIMEOUT, tool + " stopped at its deadline of " + seconds()
                + " (FileToolSettings.searchTimeout)"
                + (at == null ? "" : " while it was working on " + ConfinedRoot.quote(at)) + "; nothing was returned. "
                + whatToDo);
    }

    private String seconds() {
        return timeoutMillis % 1000 == 0 ? timeoutMillis / 1000 + " s" : timeoutMillis + " ms";
    }
}
