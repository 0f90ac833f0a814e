package org.vancetope.worktarget.core;

import java.util.Locale;
import java.util.Objects;
import org.vancetope.worktarget.core.internal.exec.ExecEngine;
import org.vancetope.worktarget.core.internal.exec.HeadTail;
import org.vancetope.worktarget.core.internal.exec.Isolation;

/**
 * The limits and the isolation of the exec tools ({@code exec_run} … {@code exec_kill}), shared by every
 * backend that runs them. Immutable; start from {@link #defaults()} or {@link #builder()}, change with
 * {@link #toBuilder()}; {@link Builder#build()} validates (an invalid isolation configuration fails
 * here, never silently falls back to no isolation).
 *
 * <pre>{@code
 * ExecSettings exec = ExecSettings.builder()
 *         .isolationMode("custom")                        // wrap WORK jobs in bubblewrap
 *         .killGraceMs(5_000)
 *         .build();
 * }</pre>
 *
 * <p>The isolation applies to WORK jobs; CLIENT jobs run as the user, as the spec says. The environment
 * variable {@code VANCE_EXEC_ISOLATION_MODE} of the host overrides {@link #isolationMode()} when the
 * backend is built.
 *
 * @param inlineOutputCharCap characters of each stream returned inline, cut as HEAD_TAIL (spec default 8,000)
 * @param defaultWaitMs how long {@code exec_run} waits for the exit when {@code waitMs} is absent (spec: 15,000)
 * @param maxWaitMs the largest accepted {@code waitMs} (default 300,000)
 * @param killGraceMs time between SIGTERM and SIGKILL of a job's process tree (spec: 10,000)
 * @param maxJobsPerScope jobs one scope (tenant/project/session) may hold at once (default 32)
 * @param outputFileMaxBytes the cap of each stream's output file (default 64 MiB)
 * @param outputRetentionMs how long a finished job's output files are kept (default 3,600,000: one hour after
 *        the job finished); then they are deleted and {@code exec_status} says so; 0 keeps them until the job is
 *        forgotten
 * @param scopeIdleMs how long a scope whose jobs have all finished may go without a call before it is closed:
 *        its jobs are forgotten, their output files deleted and what they left running ended (default
 *        3,600,000: one hour); 0 keeps idle scopes until they are closed explicitly
 * @param isolationMode {@code none} (default) or {@code custom}
 * @param isolationWrapper the wrapper template with {@code {workdir}} and {@code {cmd}} placeholders (default:
 *        the shipped bubblewrap template)
 */
public record ExecSettings(int inlineOutputCharCap, long defaultWaitMs, long maxWaitMs, long killGraceMs,
                           int maxJobsPerScope, long outputFileMaxBytes, long outputRetentionMs, long scopeIdleMs,
                           String isolationMode, String isolationWrapper) {

    private static final ExecSettings DEFAULTS = builder().build();

    /** Validates. */
    public ExecSettings {
        if (inlineOutputCharCap < HeadTail.MIN_CAP) {
            throw new IllegalArgumentException("inlineOutputCharCap must be at least " + HeadTail.MIN_CAP + ", got "
                    + inlineOutputCharCap);
        }
        if (defaultWaitMs < 0 || maxWaitMs < defaultWaitMs) {
            throw new IllegalArgumentException("need 0 <= defaultWaitMs <= maxWaitMs, got " + defaultWaitMs + " and "
                    + maxWaitMs);
        }
        if (killGraceMs < 0) {
            throw new IllegalArgumentException("killGraceMs must be 0 or more, got " + killGraceMs);
        }
        if (maxJobsPerScope < 1) {
            throw new IllegalArgumentException("maxJobsPerScope must be at least 1, got " + maxJobsPerScope);
        }
        if (outputFileMaxBytes < 1) {
            throw new IllegalArgumentException("outputFileMaxBytes must be at least 1, got " + outputFileMaxBytes);
        }
        if (outputRetentionMs < 0) {
            throw new IllegalArgumentException("outputRetentionMs must be 0 (keep) or more, got " + outputRetentionMs);
        }
        if (scopeIdleMs < 0) {
            throw new IllegalArgumentException("scopeIdleMs must be 0 (never expire) or more, got " + scopeIdleMs);
        }
        isolationMode = Objects.requireNonNullElse(isolationMode, "none").strip().toLowerCase(Locale.ROOT);
        if (!isolationMode.equals("none") && !isolationMode.equals("custom")) {
            throw new IllegalArgumentException("isolationMode must be 'none' or 'custom', got '" + isolationMode + "'");
        }
        Objects.requireNonNull(isolationWrapper, "isolationWrapper");
        if (isolationMode.equals("custom")) {
            // Validates the template now, so a broken one fails when the backend is built.
            Isolation.custom(isolationWrapper);
        }
    }

    /**
     * The spec defaults.
     *
     * @return the defaults
     */
    public static ExecSettings defaults() {
        return DEFAULTS;
    }

    /**
     * A builder with the spec defaults.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding these settings.
     *
     * @return the builder
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.inlineOutputCharCap = inlineOutputCharCap;
        b.defaultWaitMs = defaultWaitMs;
        b.maxWaitMs = maxWaitMs;
        b.killGraceMs = killGraceMs;
        b.maxJobsPerScope = maxJobsPerScope;
        b.outputFileMaxBytes = outputFileMaxBytes;
        b.outputRetentionMs = outputRetentionMs;
        b.scopeIdleMs = scopeIdleMs;
        b.isolationMode = isolationMode;
        b.isolationWrapper = isolationWrapper;
        return b;
    }

    /** Builds {@link ExecSettings}. */
    public static final class Builder {
        private int inlineOutputCharCap = ExecEngine.DEFAULT_INLINE_OUTPUT_CHAR_CAP;
        private long defaultWaitMs = ExecEngine.DEFAULT_WAIT_MS;
        private long maxWaitMs = ExecEngine.DEFAULT_MAX_WAIT_MS;
        private long killGraceMs = ExecEngine.DEFAULT_KILL_GRACE_MS;
        private int maxJobsPerScope = ExecEngine.DEFAULT_MAX_JOBS_PER_SCOPE;
        private long outputFileMaxBytes = ExecEngine.DEFAULT_OUTPUT_FILE_MAX_BYTES;
        private long outputRetentionMs = ExecEngine.DEFAULT_OUTPUT_RETENTION_MS;
        private long scopeIdleMs = ExecEngine.DEFAULT_SCOPE_IDLE_MS;
        private String isolationMode = "none";
        private String isolationWrapper = Isolation.defaultBubblewrapTemplate();

        private Builder() {
        }

        /**
         * {@code inlineOutputCharCap} (default 8,000).
         *
         * @param chars characters per stream
         * @return this
         */
        public Builder inlineOutputCharCap(int chars) {
            this.inlineOutputCharCap = chars;
            return this;
        }

        /**
         * The default {@code waitMs} (default 15,000).
         *
         * @param ms milliseconds
         * @return this
         */
        public Builder defaultWaitMs(long ms) {
            this.defaultWaitMs = ms;
            return this;
        }

        /**
         * The cap of {@code waitMs} (default 300,000).
         *
         * @param ms milliseconds
         * @return this
         */
        public Builder maxWaitMs(long ms) {
            this.maxWaitMs = ms;
            return this;
        }

        /**
         * {@code killGraceMs} between SIGTERM and SIGKILL (default 10,000). {@code exec_kill}, deadlines and
         * closing a scope return at once and send SIGKILL later; closing the backend (its engine) waits up
         * to this long for the jobs to end on SIGTERM, then sends SIGKILL itself before it returns.
         *
         * @param ms milliseconds
         * @return this
         */
        public Builder killGraceMs(long ms) {
            this.killGraceMs = ms;
            return this;
        }

        /**
         * Jobs per scope (default 32).
         *
         * @param max the maximum
         * @return this
         */
        public Builder maxJobsPerScope(int max) {
            this.maxJobsPerScope = max;
            return this;
        }

        /**
         * The cap of each output file (default 64 MiB).
         *
         * @param bytes the cap
         * @return this
         */
        public Builder outputFileMaxBytes(long bytes) {
            this.outputFileMaxBytes = bytes;
            return this;
        }

        /**
         * How long a finished job's output files are kept (default 3,600,000 ms: one hour after the job
         * finished). Then both files are deleted; the job stays known until it is forgotten, and
         * {@code exec_status} returns its status and the head and tail kept in memory, with null paths and
         * a hint that the files expired. 0 keeps the files until the job is forgotten (evicted by
         * {@code maxJobsPerScope}, or its scope closed or expired).
         *
         * @param ms milliseconds, 0 or more
         * @return this
         */
        public Builder outputRetentionMs(long ms) {
            this.outputRetentionMs = ms;
            return this;
        }

        /**
         * How long a scope may stay idle before it is closed (default 3,600,000 ms: one hour). A scope is
         * idle when all its jobs have finished and neither a call of it nor the end of one of its jobs
         * happened for this long; closing it forgets its jobs, deletes their output files and ends what they
         * left running in the background (as closing it explicitly does). A later call of the scope starts
         * afresh. 0 keeps idle scopes until they are closed explicitly.
         *
         * @param ms milliseconds, 0 or more
         * @return this
         */
        public Builder scopeIdleMs(long ms) {
            this.scopeIdleMs = ms;
            return this;
        }

        /**
         * The isolation mode of WORK jobs: {@code none} (default) or {@code custom}.
         *
         * @param mode the mode
         * @return this
         */
        public Builder isolationMode(String mode) {
            this.isolationMode = mode;
            return this;
        }

        /**
         * The isolation wrapper template (default: the shipped bubblewrap template).
         *
         * @param template the template, split into argv on blanks; {@code {cmd}} must be one argument
         * @return this
         */
        public Builder isolationWrapper(String template) {
            this.isolationWrapper = template;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @return the settings
         * @throws IllegalArgumentException naming the setting that is out of range or the template's fault
         */
        public ExecSettings build() {
            return new ExecSettings(inlineOutputCharCap, defaultWaitMs, maxWaitMs, killGraceMs, maxJobsPerScope,
                    outputFileMaxBytes, outputRetentionMs, scopeIdleMs, isolationMode, isolationWrapper);
        }
    }
}
