package org.vancetope.worktarget.testfixtures;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Bounded waiting in tests, instead of sleeping: event-driven where the JDK offers an event (a process
 * ending), polling every few milliseconds otherwise. Fails with a description of what was awaited once
 * {@link #LIMIT} has passed. The limit bounds a hang; it is not a speed assertion.
 *
 * <pre>{@code
 * Await.until("the staging file is gone", () -> Files.notExists(staging));
 * Await.processGone(pid);
 * }</pre>
 */
public final class Await {
    /** The limit (30 s): generous, because CI machines are shared and noisy. */
    public static final Duration LIMIT = Duration.ofSeconds(30);

    private Await() {
    }

    /**
     * Waits until a condition holds, at most {@link #LIMIT}.
     *
     * @param what the condition, for the failure message
     * @param condition the condition
     * @throws AssertionError when it does not hold within the limit
     */
    public static void until(String what, BooleanSupplier condition) {
        long end = System.nanoTime() + LIMIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("not reached within " + LIMIT + ": " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    /**
     * Waits until a file holds at least one whole line (text ending in a line feed, as {@code echo $$ > f}
     * writes it), at most {@link #LIMIT}, and returns its text without the surrounding blanks.
     *
     * @param file the file
     * @return the stripped text
     * @throws AssertionError when no whole line is there within the limit
     */
    public static String line(Path file) {
        String[] text = new String[1];
        until(file + " holds a whole line", () -> {
            try {
                text[0] = Files.readString(file);
                return text[0].endsWith("\n");
            } catch (IOException e) {
                return false; // not there yet
            }
        });
        return text[0].strip();
    }

    /**
     * Waits until a process has ended (via {@link ProcessHandle#onExit()}), at most {@link #LIMIT}.
     * Returns at once when no such process exists.
     *
     * @param pid the process id
     * @throws AssertionError when it is still alive after the limit, or the wait is interrupted
     */
    public static void processGone(long pid) {
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
