package org.vancetope.worktarget.core.internal.exec;

import java.time.Clock;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retention of what ended jobs leave: every {@code expiryCheckMs}, on the engine's clock, one pass
 * deletes the output files of jobs that finished {@code outputRetention} ago (the job stays known, with
 * its in-memory head and tail) and closes the scopes idle for {@code scopeIdle}, as an explicit close
 * would. A time of 0 turns its half off; with both 0 there is no periodic pass at all.
 *
 * <p>It does not decide what is idle or due (that is {@link JobTable}) and does not end processes itself
 * (that is {@link JobReaper}). Thread-safe.
 */
final class ExecExpiry {
    /** The longest default of {@code expiryCheckMs}: how often the engine looks for expired output and idle scopes. */
    static final long MAX_DEFAULT_CHECK_MS = 60_000;

    private static final Logger LOG = LoggerFactory.getLogger(ExecExpiry.class);

    private final JobTable table;
    private final JobReaper reaper;
    private final Clock clock;
    private final long outputRetentionMs;
    private final ScheduledFuture<?> task;

    /**
     * What one expiry pass did.
     *
     * @param scopesClosed how many idle scopes it closed
     * @param outputsExpired how many jobs' output files it deleted
     */
    record Pass(int scopesClosed, int outputsExpired) {
    }

    /**
     * Starts the periodic pass on the scheduler, unless both times are 0.
     *
     * @param checkMs the period, or null for {@link #defaultCheckMs}
     */
    ExecExpiry(JobTable table, JobReaper reaper, Clock clock, ScheduledExecutorService scheduler,
               long outputRetentionMs, long scopeIdleMs, Long checkMs) {
        this.table = table;
        this.reaper = reaper;
        this.clock = clock;
        this.outputRetentionMs = outputRetentionMs;
        long check = checkMs != null ? checkMs : defaultCheckMs(outputRetentionMs, scopeIdleMs);
        this.task = outputRetentionMs > 0 || scopeIdleMs > 0
                ? scheduler.scheduleWithFixedDelay(this::passQuietly, check, check, TimeUnit.MILLISECONDS)
                : null;
    }

    /**
     * The default period: a tenth of the shorter non-zero expiry time, between 1 s and
     * {@value #MAX_DEFAULT_CHECK_MS} ms.
     *
     * @param retentionMs {@code outputRetention}
     * @param idleMs {@code scopeIdle}
     * @return milliseconds
     */
    static long defaultCheckMs(long retentionMs, long idleMs) {
        long shortest = Long.MAX_VALUE;
        if (retentionMs > 0) {
            shortest = retentionMs;
        }
        if (idleMs > 0) {
            shortest = Math.min(shortest, idleMs);
        }
        return Math.max(1_000, Math.min(MAX_DEFAULT_CHECK_MS, shortest / 10));
    }

    /**
     * One pass at the clock's current time: closes the idle scopes, disposing of their jobs in one pass
     * over the process table, and deletes the due output files.
     *
     * @return what it did
     */
    Pass passNow() {
        JobTable.Expired found = table.expire(clock.instant(), outputRetentionMs);
        int outputsExpired = 0;
        for (Job j : found.expiring()) {
            if (j.expireOutput()) {
                JobOutputs.delete(j);
                outputsExpired++;
            }
        }
        reaper.dispose(found.closedJobs());
        return new Pass(found.scopesClosed(), outputsExpired);
    }

    /** Stops the periodic pass. */
    void stop() {
        if (task != null) {
            task.cancel(false);
        }
    }

    private void passQuietly() {
        try {
            passNow();
        } catch (RuntimeException e) {
            // A failed pass must not stop the periodic task; the next one tries again.
            LOG.warn("exec expiry pass failed: {}", e.toString());
        }
    }
}
