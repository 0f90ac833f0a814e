package org.vancetope.worktarget.core.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;

/**
 * A size budget of directories that grow by means the library does not see (jobs) as well as by means it
 * does (the file tools): the bytes a key's directories hold, measured by walking them at most once per
 * measure interval, plus what was charged since the last measurement. A figure that would refuse a call
 * is trusted only while it is fresh: a key over (or, with what a call adds, about to go over) its budget
 * is measured again once the recheck interval has passed, so a caller who cleaned up is let through
 * within that interval (and bytes charged for files that were overwritten since do not refuse anyone),
 * while a caller who keeps calling cannot make the library walk a large tree more often than that.
 *
 * <p>The one budget of the HOMEs (one key per HOME) and of a project's RootDirs (one key per project):
 *
 * <pre>{@code
 * SizeBudget<Path> budget = new SizeBudget<>(maxBytes, Duration.ofMinutes(5), Duration.ofSeconds(5), clock, walk);
 * if (!budget.fits(key, bytes)) throw refusal(budget.usage(key, bytes));
 * write(...);
 * budget.charge(key, bytes);
 * }</pre>
 *
 * <p>Measuring a key runs on the calling thread while other calls of the same key wait for it; other keys
 * go on. It is not a hard limit: what a job writes between two measurements is seen at the next. Past
 * 10,000 keys, the figures older than the measure interval are dropped (measured again when
 * used).
 *
 * @param <K> the key: what one budget covers
 */
public final class SizeBudget<K> {
    private final long maxBytes;
    private final Duration measureInterval;
    private final Duration recheckInterval;
    private final Clock clock;
    private final ToLongFunction<K> measure;
    private final Map<K, Figure> figures = new ConcurrentHashMap<>();
    /** When the old figures were last dropped; null before the first time. */
    private volatile Instant lastDrop;

    /** How many keys are kept before the figures not measured within the measure interval are dropped. */
    static final int MAX_KEYS = 10_000;

    /**
     * The bytes a key's directories held when measured, and what was charged since; guarded by its own lock, so
     * that measuring one key holds up the calls of that key only.
     */
    private static final class Figure {
        Instant at;
        long measured;
        long charged;

        long bytes() {
            return Math.max(0, saturatedAdd(measured, charged));
        }
    }

    /**
     * Creates a budget.
     *
     * @param maxBytes the budget per key; 0 turns it off (every call fits, nothing is measured)
     * @param measureInterval how long a measurement is trusted while it does not refuse
     * @param recheckInterval how long a figure that refuses is trusted
     * @param clock the clock of the intervals
     * @param measure walks a key's directories and returns the bytes of their regular files
     * @throws IllegalArgumentException for a negative budget or an interval that is not positive
     */
    public SizeBudget(long maxBytes, Duration measureInterval, Duration recheckInterval, Clock clock,
                      ToLongFunction<K> measure) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("a size budget must be 0 (off) or more, got " + maxBytes);
        }
        if (measureInterval.isNegative() || measureInterval.isZero() || recheckInterval.isNegative()
                || recheckInterval.isZero()) {
            throw new IllegalArgumentException("the measure intervals must be positive, got " + measureInterval
                    + " and " + recheckInterval);
        }
        this.maxBytes = maxBytes;
        this.measureInterval = measureInterval;
        this.recheckInterval = recheckInterval;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.measure = Objects.requireNonNull(measure, "measure");
    }

    /**
     * The budget per key.
     *
     * @return bytes; 0 when off
     */
    public long maxBytes() {
        return maxBytes;
    }

    /**
     * How long a measurement is trusted while it does not refuse.
     *
     * @return the interval
     */
    public Duration measureInterval() {
        return measureInterval;
    }

    /**
     * How long a figure that refuses is trusted.
     *
     * @return the interval
     */
    public Duration recheckInterval() {
        return recheckInterval;
    }

    /**
     * The bytes a key holds, as far as the budget knows, measuring them again when the figure is too old for
     * the decision it would make.
     *
     * @param key the key
     * @param adding the bytes the call would add (0 for a call that only must not start over the budget)
     * @return the bytes held; 0 when the budget is off
     */
    public long usage(K key, long adding) {
        if (maxBytes == 0) {
            return 0;
        }
        if (figures.size() > MAX_KEYS && dropDue()) {
            Instant now = clock.instant();
            figures.values().removeIf(f -> {
                synchronized (f) {
                    return f.at == null || Duration.between(f.at, now).compareTo(measureInterval) >= 0;
                }
            });
        }
        Figure f = figures.computeIfAbsent(key, k -> new Figure());
        synchronized (f) {
            Instant now = clock.instant();
            if (f.at != null) {
                Duration age = Duration.between(f.at, now);
                boolean refuses = f.bytes() > maxBytes - Math.max(0, adding);
                Duration trusted = refuses ? recheckInterval : measureInterval;
                if (age.compareTo(trusted) < 0) {
                    return f.bytes();
                }
            }
            f.measured = Math.max(0, measure.applyAsLong(key));
            f.charged = 0;
            f.at = now;
            return f.bytes();
        }
    }

    /**
     * Whether a call that adds some bytes stays within the budget.
     *
     * @param key the key
     * @param adding the bytes the call would add, 0 or more
     * @return true when the budget is off or the bytes held plus these stay within it
     */
    public boolean fits(K key, long adding) {
        if (maxBytes == 0) {
            return true;
        }
        long add = Math.max(0, adding);
        long held = usage(key, add);
        return held <= maxBytes && add <= maxBytes - held;
    }

    /**
     * Counts bytes a call added (or, negative, freed), until the next measurement.
     *
     * @param key the key
     * @param bytes the change of the bytes held
     */
    public void charge(K key, long bytes) {
        if (maxBytes == 0 || bytes == 0) {
            return;
        }
        Figure f = figures.get(key);
        if (f != null) {
            synchronized (f) {
                f.charged = saturatedAdd(f.charged, bytes);
            }
        }
    }

    /**
     * Whether the old figures are to be dropped now: at most once per measure interval, so that a budget
     * holding more keys than that, all in use, does not scan them all on every call.
     */
    private boolean dropDue() {
        Instant now = clock.instant();
        Instant last = lastDrop;
        if (last != null && Duration.between(last, now).compareTo(measureInterval) < 0) {
            return false;
        }
        lastDrop = now;
        return true;
    }

    /** How many keys have a figure now (for tests). */
    int keys() {
        return figures.size();
    }

    /**
     * Forgets a key whose directories were deleted or renamed: the next call measures it.
     *
     * @param key the key
     */
    public void forget(K key) {
        figures.remove(key);
    }

    /**
     * Bytes for a message, e.g. {@code 1.5 GiB (1610612736 bytes)}.
     *
     * @param bytes the bytes
     * @return the text
     */
    public static String human(long bytes) {
        if (bytes < 1024) {
            return bytes + " bytes";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s (%d bytes)", v, units[u], bytes);
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        if (((a ^ sum) & (b ^ sum)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return sum;
    }
}
