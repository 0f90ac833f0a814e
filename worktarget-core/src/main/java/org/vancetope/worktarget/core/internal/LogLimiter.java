package org.vancetope.worktarget.core.internal;

import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Lets one event of a kind per window be logged at its normal level and sends the others of the
 * window to DEBUG, counting them into the next normal line; for events that a peer can cause as often
 * as it likes (a refused upgrade, a frame it should not have sent), so that they stay visible without
 * filling the disk.
 * Thread-safe.
 */
public final class LogLimiter {
    private final long windowNanos;
    private final LongSupplier nanoClock;
    private long nextLoud;
    private boolean started;
    private long quiet;

    /**
     * Creates a limiter.
     *
     * @param windowNanos the window: at most one normal line per window
     * @param nanoClock the clock, e.g. {@code System::nanoTime}
     */
    public LogLimiter(long windowNanos, LongSupplier nanoClock) {
        this.windowNanos = windowNanos;
        this.nanoClock = nanoClock;
    }

    /**
     * Asks whether this event may be logged at its normal level.
     *
     * @return -1 when it must go to DEBUG; otherwise how many events went to DEBUG since the last normal line
     */
    public synchronized long tryLoud() {
        long now = nanoClock.getAsLong();
        if (started && now - nextLoud < 0) {
            quiet++;
            return -1;
        }
        started = true;
        nextLoud = now + windowNanos;
        long n = quiet;
        quiet = 0;
        return n;
    }

    /**
     * Logs a line at WARN when the window allows, else at DEBUG; a WARN line that follows quiet ones says
     * how many went to DEBUG. The arguments must not end with a throwable.
     *
     * @param log the logger
     * @param format the SLF4J format
     * @param args its arguments
     */
    public void warn(Logger log, String format, Object... args) {
        log(log, true, format, args);
    }

    /**
     * Logs a line at INFO when the window allows, else at DEBUG, as {@link #warn} does.
     *
     * @param log the logger
     * @param format the SLF4J format
     * @param args its arguments
     */
    public void info(Logger log, String format, Object... args) {
        log(log, false, format, args);
    }

    private void log(Logger log, boolean warn, String format, Object... args) {
        long quiet = tryLoud();
        if (quiet < 0) {
            log.debug(format, args);
            return;
        }
        String f = format;
        Object[] a = args;
        if (quiet > 0) {
            f = format + " ({} more such lines went to DEBUG)";
            a = java.util.Arrays.copyOf(args, args.length + 1);
            a[args.length] = quiet;
        }
        if (warn) {
            log.warn(f, a);
        } else {
            log.info(f, a);
        }
    }

    /** The longest text of a peer's that {@link #printable} passes on. */
    public static final int MAX_PRINTABLE = 1000;

    /**
     * A peer's text as a log line or a message may show it: control characters (line breaks, escape
     * sequences that drive a terminal, C1 controls, line and paragraph separators) written as a backslash,
     * u and four hex digits, and at most {@value #MAX_PRINTABLE} characters, so a peer cannot forge log lines.
     *
     * @param text the text, or null
     * @return the printable text; {@code "null"} for null
     */
    public static String printable(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = null;
        int n = Math.min(text.length(), MAX_PRINTABLE);
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            boolean control = c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029;
            if (control && out == null) {
                out = new StringBuilder(n + 16).append(text, 0, i);
            }
            if (out != null) {
                if (control) {
                    out.append(String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
        }
        String shown = out != null ? out.toString() : text.substring(0, n);
        return text.length() > n ? shown + "…" : shown;
    }
}
