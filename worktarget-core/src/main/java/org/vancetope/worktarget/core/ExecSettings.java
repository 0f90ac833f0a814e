package org.vancetope.worktarget.core;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.vancetope.worktarget.core.internal.exec.HeadTail;
import org.vancetope.worktarget.core.internal.exec.Isolation;

/**
 * The limits and the isolation of the exec tools ({@code exec_run} … {@code exec_kill}), shared by every
 * backend that runs them. Immutable; start from {@link #defaults()} or {@link #builder()}, change with
 * {@link #toBuilder()}. Each setter of the {@link Builder} refuses a bad value at once;
 * {@link Builder#build()} checks what needs several settings together and the isolation wrapper (an
 * invalid isolation configuration fails there, never silently falls back to no isolation).
 *
 * <pre>{@code
 * ExecSettings exec = ExecSettings.builder()
 *         .isolationMode(ExecSettings.IsolationMode.CUSTOM)   // wrap WORK jobs in bubblewrap
 *         .killGrace(Duration.ofSeconds(5))
 *         .build();
 * }</pre>
 *
 * <p>The isolation applies to WORK jobs; CLIENT jobs run as the user. The environment variable
 * {@code VANCE_EXEC_ISOLATION_MODE} of the host overrides {@link #isolationMode()} when the backend is
 * built (read with {@link IsolationMode#parse(String)}). This class does not read system properties or
 * environment variables itself. The engine uses the times in whole milliseconds. What each setting does to
 * a job's life is described in {@code docs/exec.md}; what isolation defends in {@code docs/security.md}.
 */
public final class ExecSettings {
    private static final int DEFAULT_INLINE_OUTPUT_CHAR_CAP = 8_000;
    private static final Duration DEFAULT_WAIT = Duration.ofSeconds(15);
    private static final Duration DEFAULT_MAX_WAIT = Duration.ofMinutes(5);
    private static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(10);
    private static final int DEFAULT_MAX_JOBS_PER_SCOPE = 32;
    private static final long DEFAULT_OUTPUT_FILE_MAX_BYTES = 64L * 1024 * 1024;
    private static final Duration DEFAULT_OUTPUT_RETENTION = Duration.ofHours(1);
    private static final Duration DEFAULT_SCOPE_IDLE = Duration.ofHours(1);
    /** The least memory cap: a job's shell, and bubblewrap around it, need a few MiB. */
    private static final long MIN_JOB_MEMORY = 16L << 20;
    /** The least CPU cap: the kernel's least quota is 1 ms per period (100 ms). */
    private static final double MIN_JOB_CPUS = 0.01;
    /** The largest CPU cap taken: more cores than a machine has is no cap. */
    private static final double MAX_JOB_CPUS = 65536;

    private static final ExecSettings DEFAULTS = new Builder().build();

    /** How WORK jobs are isolated from the machine. */
    public enum IsolationMode {
        /** No wrapper: jobs run as {@code /bin/sh -c <command>} (the default). */
        NONE,
        /** Jobs run inside the configured wrapper template, e.g. bubblewrap. */
        CUSTOM;

        /**
         * Reads a mode as written in configuration or in {@code VANCE_EXEC_ISOLATION_MODE}: {@code none} or
         * {@code custom}, in any case, with surrounding blanks ignored.
         *
         * @param value the text
         * @return the mode
         * @throws IllegalArgumentException for null or any other text, naming the value and the valid ones
         */
        public static IsolationMode parse(String value) {
            String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
            switch (v) {
                case "none":
                    return NONE;
                case "custom":
                    return CUSTOM;
                default:
                    throw new IllegalArgumentException("isolationMode must be 'none' or 'custom' (any case), got "
                            + (value == null ? "null" : "'" + value + "'"));
            }
        }
    }

    private final int inlineOutputCharCap;
    private final Duration defaultWait;
    private final Duration maxWait;
    private final Duration killGrace;
    private final int maxJobsPerScope;
    private final int maxRunningJobsPerProject;
    private final long outputFileMaxBytes;
    private final Duration outputRetention;
    private final Duration scopeIdle;
    private final IsolationMode isolationMode;
    private final String isolationWrapper;
    private final List<Path> jobControlGroups;
    private final int maxJobProcesses;
    private final long maxJobMemory;
    private final double maxJobCpus;
    private final Duration maxJobDuration;

    private ExecSettings(Builder b) {
        this.maxJobDuration = b.maxJobDuration;
        this.maxJobCpus = b.maxJobCpus;
        this.jobControlGroups = b.jobControlGroups;
        this.maxJobProcesses = b.maxJobProcesses;
        this.maxJobMemory = b.maxJobMemory;
        this.inlineOutputCharCap = b.inlineOutputCharCap;
        this.defaultWait = b.defaultWait;
        this.maxWait = b.maxWait;
        this.killGrace = b.killGrace;
        this.maxJobsPerScope = b.maxJobsPerScope;
        this.maxRunningJobsPerProject = b.maxRunningJobsPerProject;
        this.outputFileMaxBytes = b.outputFileMaxBytes;
        this.outputRetention = b.outputRetention;
        this.scopeIdle = b.scopeIdle;
        this.isolationMode = b.isolationMode;
        this.isolationWrapper = b.isolationWrapper;
    }

    /**
     * The defaults.
     *
     * @return the default settings
     */
    public static ExecSettings defaults() {
        return DEFAULTS;
    }

    /**
     * A builder starting from the defaults.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder starting from these settings.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.inlineOutputCharCap = inlineOutputCharCap;
        b.defaultWait = defaultWait;
        b.maxWait = maxWait;
        b.killGrace = killGrace;
        b.maxJobsPerScope = maxJobsPerScope;
        b.maxRunningJobsPerProject = maxRunningJobsPerProject;
        b.outputFileMaxBytes = outputFileMaxBytes;
        b.outputRetention = outputRetention;
        b.scopeIdle = scopeIdle;
        b.isolationMode = isolationMode;
        b.isolationWrapper = isolationWrapper;
        b.jobControlGroups = jobControlGroups;
        b.maxJobProcesses = maxJobProcesses;
        b.maxJobMemory = maxJobMemory;
        b.maxJobCpus = maxJobCpus;
        b.maxJobDuration = maxJobDuration;
        return b;
    }

    /**
     * The characters of each stream returned inline, cut to head and tail beyond that (default 8,000).
     *
     * @return characters per stream
     */
    public int inlineOutputCharCap() {
        return inlineOutputCharCap;
    }

    /**
     * How long {@code exec_run} waits for the exit when the caller gives no {@code waitMs} (default 15 s).
     *
     * @return the wait, at most {@link #maxWait()}
     */
    public Duration defaultWait() {
        return defaultWait;
    }

    /**
     * The cap of a caller's {@code waitMs} (default 5 min).
     *
     * @return the cap
     */
    public Duration maxWait() {
        return maxWait;
    }

    /**
     * The time between SIGTERM and SIGKILL of a job's process tree (default 10 s). {@code exec_kill},
     * deadlines and closing a scope return at once and send SIGKILL later; closing the backend (its engine)
     * waits up to this long for the jobs to end on SIGTERM, then sends SIGKILL itself before it returns.
     * Zero sends SIGKILL right after SIGTERM.
     *
     * @return the grace period
     */
    public Duration killGrace() {
        return killGrace;
    }

    /**
     * How many jobs one scope (tenant/project/session) may hold at once (default 32); when full, the oldest
     * finished job is forgotten to make room.
     *
     * @return the maximum
     */
    public int maxJobsPerScope() {
        return maxJobsPerScope;
    }

    /**
     * How many jobs one project (the {@code tenant/project} of the job scope) may have running at once,
     * over all its sessions and processes; 0 (the default) sets no such cap. One more {@code exec_run} is
     * refused {@code size_limit} before it starts.
     *
     * @return the maximum, or 0 for none
     */
    public int maxRunningJobsPerProject() {
        return maxRunningJobsPerProject;
    }

    /**
     * The cap of each stream's output file (default 64 MiB); the in-memory tail stays the true end.
     *
     * @return bytes per file
     */
    public long outputFileMaxBytes() {
        return outputFileMaxBytes;
    }

    /**
     * How long a finished job's output files are kept (default 1 h after the job finished). Then both files
     * are deleted; the job stays known until it is forgotten, and {@code exec_status} returns its status and
     * the head and tail kept in memory, with null paths and a hint that the files expired.
     * {@link Duration#ZERO} keeps the files until the job is forgotten (evicted by
     * {@link #maxJobsPerScope()}, or its scope closed or expired).
     *
     * @return the retention, or zero to keep the files
     */
    public Duration outputRetention() {
        return outputRetention;
    }

    /**
     * How long a scope may stay idle before it is closed (default 1 h). A scope is idle when all its jobs
     * have finished and neither a call of it nor the end of one of its jobs happened for this long; closing
     * it forgets its jobs, deletes their output files and ends what they left running in the background (as
     * closing it explicitly does). A later call of the scope starts afresh. {@link Duration#ZERO} keeps idle
     * scopes until they are closed explicitly.
     *
     * @return the idle time, or zero for never
     */
    public Duration scopeIdle() {
        return scopeIdle;
    }

    /**
     * The isolation of WORK jobs (default {@link IsolationMode#NONE}).
     *
     * @return the mode
     */
    public IsolationMode isolationMode() {
        return isolationMode;
    }

    /**
     * The wrapper template of {@link IsolationMode#CUSTOM}, with {@code {workdir}} and {@code {cmd}}
     * placeholders (default: the shipped bubblewrap template). Kept, and not checked, while the mode is
     * {@link IsolationMode#NONE}.
     *
     * @return the template
     */
    public String isolationWrapper() {
        return isolationWrapper;
    }

    /**
     * The Linux control group (cgroup) directories in which every job gets a group of its own (default none):
     * with cgroup v2 one directory, with v1 one per hierarchy (e.g. one below {@code /sys/fs/cgroup/pids} and
     * one below {@code /sys/fs/cgroup/memory}). With them, a job's tree kill finds every process the job
     * started, also one that left the job's session and cleared its environment, and {@link #maxJobProcesses()}
     * and {@link #maxJobMemory()} can cap the job. The engine checks when it starts that it can make groups
     * there and that a cap's controller is there (see {@code docs/exec.md}, Caps per job).
     *
     * @return the directories, in the order given; empty for none
     */
    public List<Path> jobControlGroups() {
        return jobControlGroups;
    }

    /**
     * The most processes and threads one job may have at once, counted in its control group (default 0: no
     * cap). A fork beyond it fails in the job ("Cannot fork", "Resource temporarily unavailable") instead of
     * taking the machine's process numbers from the server, and the job's result says so. Needs
     * {@link #jobControlGroups()} directory with the pids controller.
     *
     * @return the cap, 0 for none
     */
    public int maxJobProcesses() {
        return maxJobProcesses;
    }

    /**
     * The most memory one job may use at once, in bytes, counted in its control group (default 0: no cap):
     * its processes' memory and the page cache they fill, with no swap beyond it. A job at the cap whose
     * memory cannot be reclaimed has a process ended by the kernel's out-of-memory killer ("Killed", exit
     * code 137), instead of the machine running out of memory beside the server, and the job's result says
     * so. Needs a {@link #jobControlGroups()} directory with the memory controller.
     *
     * @return the cap in bytes, 0 for none
     */
    public long maxJobMemory() {
        return maxJobMemory;
    }

    /**
     * The most CPU time one job may have, in CPUs (default 0: no cap): 0.5 is half of one core's time, 2 is
     * two cores' time, over all the job's processes together, counted in its control group in periods of
     * 100 ms. A job that would take more is held back until the next period, so that it cannot starve the
     * server and the jobs beside it; a result held back for long says so. Needs a {@link #jobControlGroups()}
     * directory with the cpu controller.
     *
     * @return the cap in CPUs, 0 for none
     */
    public double maxJobCpus() {
        return maxJobCpus;
    }

    /**
     * The longest one job may run, whatever deadline its caller gave (default {@link Duration#ZERO}: no limit
     * but the caller's {@code deadlineSeconds}). A job without a deadline gets this one, and a longer deadline is
     * cut to it; at it the job is ended as at its own deadline ({@code timed_out}), and its result says that the
     * limit is the server's. It ends a server or a watcher a job runs too. Needs no control group.
     *
     * @return the limit, zero for none
     */
    public Duration maxJobDuration() {
        return maxJobDuration;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExecSettings s
                && inlineOutputCharCap == s.inlineOutputCharCap
                && defaultWait.equals(s.defaultWait)
                && maxWait.equals(s.maxWait)
                && killGrace.equals(s.killGrace)
                && maxJobsPerScope == s.maxJobsPerScope
                && maxRunningJobsPerProject == s.maxRunningJobsPerProject
                && outputFileMaxBytes == s.outputFileMaxBytes
                && outputRetention.equals(s.outputRetention)
                && scopeIdle.equals(s.scopeIdle)
                && isolationMode == s.isolationMode
                && isolationWrapper.equals(s.isolationWrapper)
                && jobControlGroups.equals(s.jobControlGroups)
                && maxJobProcesses == s.maxJobProcesses
                && maxJobMemory == s.maxJobMemory
                && Double.compare(maxJobCpus, s.maxJobCpus) == 0
                && maxJobDuration.equals(s.maxJobDuration);
    }

    @Override
    public int hashCode() {
        return Objects.hash(inlineOutputCharCap, defaultWait, maxWait, killGrace, maxJobsPerScope, outputFileMaxBytes,
                maxRunningJobsPerProject, outputRetention, scopeIdle, isolationMode, isolationWrapper, jobControlGroups, maxJobProcesses,
                maxJobMemory, maxJobCpus, maxJobDuration);
    }

    @Override
    public String toString() {
        return "ExecSettings[inlineOutputCharCap=" + inlineOutputCharCap + ", defaultWait=" + defaultWait
                + ", maxWait=" + maxWait + ", killGrace=" + killGrace + ", maxJobsPerScope=" + maxJobsPerScope
                + ", maxRunningJobsPerProject=" + maxRunningJobsPerProject
                + ", outputFileMaxBytes=" + outputFileMaxBytes + ", outputRetention=" + outputRetention
                + ", scopeIdle=" + scopeIdle + ", isolationMode=" + isolationMode + ", isolationWrapper="
                + isolationWrapper + ", jobControlGroups=" + jobControlGroups + ", maxJobProcesses=" + maxJobProcesses
                + ", maxJobMemory=" + maxJobMemory + ", maxJobCpus=" + maxJobCpus + ", maxJobDuration=" + maxJobDuration
                + "]";
    }

    /**
     * Builds {@link ExecSettings}; every setting starts at its default. Each setter refuses a bad value at
     * once with an {@link IllegalArgumentException} that names the setting, the value and what is valid.
     */
    public static final class Builder {
        private int inlineOutputCharCap = DEFAULT_INLINE_OUTPUT_CHAR_CAP;
        private Duration defaultWait = DEFAULT_WAIT;
        private Duration maxWait = DEFAULT_MAX_WAIT;
        private Duration killGrace = DEFAULT_KILL_GRACE;
        private int maxJobsPerScope = DEFAULT_MAX_JOBS_PER_SCOPE;
        private int maxRunningJobsPerProject;
        private long outputFileMaxBytes = DEFAULT_OUTPUT_FILE_MAX_BYTES;
        private Duration outputRetention = DEFAULT_OUTPUT_RETENTION;
        private Duration scopeIdle = DEFAULT_SCOPE_IDLE;
        private IsolationMode isolationMode = IsolationMode.NONE;
        private String isolationWrapper = Isolation.defaultBubblewrapTemplate();
        private List<Path> jobControlGroups = List.of();
        private int maxJobProcesses;
        private long maxJobMemory;
        private double maxJobCpus;
        private Duration maxJobDuration = Duration.ZERO;

        private Builder() {
        }

        /**
         * Sets {@link ExecSettings#inlineOutputCharCap()}.
         *
         * @param chars at least 80
         * @return this
         * @throws IllegalArgumentException when below 80
         */
        public Builder inlineOutputCharCap(int chars) {
            if (chars < HeadTail.MIN_CAP) {
                throw new IllegalArgumentException("inlineOutputCharCap must be at least " + HeadTail.MIN_CAP
                        + " characters, got " + chars);
            }
            this.inlineOutputCharCap = chars;
            return this;
        }

        /**
         * Sets {@link ExecSettings#defaultWait()}; {@link #build()} checks that it is at most
         * {@link ExecSettings#maxWait()}.
         *
         * @param wait zero or more
         * @return this
         * @throws IllegalArgumentException when null or negative
         */
        public Builder defaultWait(Duration wait) {
            this.defaultWait = checked("defaultWait", wait, "zero (do not wait) or more");
            return this;
        }

        /**
         * Sets {@link ExecSettings#maxWait()}; {@link #build()} checks that it is at least
         * {@link ExecSettings#defaultWait()}.
         *
         * @param wait zero or more
         * @return this
         * @throws IllegalArgumentException when null or negative
         */
        public Builder maxWait(Duration wait) {
            this.maxWait = checked("maxWait", wait, "zero (never wait) or more");
            return this;
        }

        /**
         * Sets {@link ExecSettings#killGrace()}.
         *
         * @param grace zero (SIGKILL at once) or more
         * @return this
         * @throws IllegalArgumentException when null or negative
         */
        public Builder killGrace(Duration grace) {
            this.killGrace = checked("killGrace", grace, "zero (SIGKILL at once) or more");
            return this;
        }

        /**
         * Sets {@link ExecSettings#maxJobsPerScope()}.
         *
         * @param max at least 1
         * @return this
         * @throws IllegalArgumentException when below 1
         */
        public Builder maxJobsPerScope(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxJobsPerScope must be at least 1, got " + max);
            }
            this.maxJobsPerScope = max;
            return this;
        }

        /**
         * Sets {@link ExecSettings#maxRunningJobsPerProject()}.
         *
         * @param max 0 (no cap) or more
         * @return this
         * @throws IllegalArgumentException when negative
         */
        public Builder maxRunningJobsPerProject(int max) {
            if (max < 0) {
                throw new IllegalArgumentException("maxRunningJobsPerProject must be 0 (no cap) or more, got " + max);
            }
            this.maxRunningJobsPerProject = max;
            return this;
        }

        /**
         * Sets {@link ExecSettings#outputFileMaxBytes()}.
         *
         * @param bytes at least 1
         * @return this
         * @throws IllegalArgumentException when below 1
         */
        public Builder outputFileMaxBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("outputFileMaxBytes must be at least 1 byte, got " + bytes);
            }
            this.outputFileMaxBytes = bytes;
            return this;
        }

        /**
         * Sets {@link ExecSettings#outputRetention()}.
         *
         * @param retention zero (keep the files until the job is forgotten) or at least 1 ms
         * @return this
         * @throws IllegalArgumentException when null, negative or between zero and 1 ms
         */
        public Builder outputRetention(Duration retention) {
            this.outputRetention = checkedZeroOrMillis("outputRetention", retention,
                    "zero (keep the files until the job is forgotten) or at least 1 ms");
            return this;
        }

        /**
         * Sets {@link ExecSettings#scopeIdle()}.
         *
         * @param idle zero (never close idle scopes) or at least 1 ms
         * @return this
         * @throws IllegalArgumentException when null, negative or between zero and 1 ms
         */
        public Builder scopeIdle(Duration idle) {
            this.scopeIdle = checkedZeroOrMillis("scopeIdle", idle, "zero (never close idle scopes) or at least 1 ms");
            return this;
        }

        /**
         * Sets {@link ExecSettings#isolationMode()}.
         *
         * @param mode the mode
         * @return this
         * @throws IllegalArgumentException when null
         */
        public Builder isolationMode(IsolationMode mode) {
            if (mode == null) {
                throw new IllegalArgumentException("isolationMode must be NONE or CUSTOM, got null");
            }
            this.isolationMode = mode;
            return this;
        }

        /**
         * Sets {@link ExecSettings#isolationWrapper()}; {@link #build()} checks it when the mode is
         * {@link IsolationMode#CUSTOM}.
         *
         * @param template the template, split into argv on blanks; {@code {cmd}} must be one argument
         * @return this
         * @throws IllegalArgumentException when null
         */
        public Builder isolationWrapper(String template) {
            if (template == null) {
                throw new IllegalArgumentException("isolationWrapper must be a wrapper template with a {cmd} "
                        + "placeholder, got null");
            }
            this.isolationWrapper = template;
            return this;
        }

        /**
         * Sets {@link ExecSettings#jobControlGroups()}; the engine checks them when it starts.
         *
         * @param dirs absolute control group directories, one per hierarchy; none to have no groups
         * @return this
         * @throws IllegalArgumentException when one is null or relative, or one is given twice
         */
        public Builder jobControlGroups(Path... dirs) {
            List<Path> out = new ArrayList<>();
            for (Path dir : dirs) {
                if (dir == null || !dir.isAbsolute()) {
                    throw new IllegalArgumentException("jobControlGroups must be absolute paths of control group "
                            + "directories (below /sys/fs/cgroup), got " + dir);
                }
                Path d = dir.normalize();
                if (out.contains(d)) {
                    throw new IllegalArgumentException("jobControlGroups names " + d + " twice; name each directory "
                            + "once");
                }
                out.add(d);
            }
            this.jobControlGroups = List.copyOf(out);
            return this;
        }

        /**
         * Sets {@link ExecSettings#maxJobProcesses()}; {@link #build()} checks that a
         * {@link #jobControlGroups(Path...)} are set with it.
         *
         * @param max 0 for no cap, or at least 2 (the job's shell and one command)
         * @return this
         * @throws IllegalArgumentException when negative or 1
         */
        public Builder maxJobProcesses(int max) {
            if (max < 0 || max == 1) {
                throw new IllegalArgumentException("maxJobProcesses must be 0 (no cap) or at least 2, got " + max);
            }
            this.maxJobProcesses = max;
            return this;
        }

        /**
         * Sets {@link ExecSettings#maxJobMemory()}; {@link #build()} checks that {@link #jobControlGroups(Path...)}
         * are set with it.
         *
         * @param bytes 0 for no cap, or at least 16 MiB (a job's shell and its sandbox need a few MiB)
         * @return this
         * @throws IllegalArgumentException when negative or below 16 MiB
         */
        public Builder maxJobMemory(long bytes) {
            if (bytes < 0 || bytes > 0 && bytes < MIN_JOB_MEMORY) {
                throw new IllegalArgumentException("maxJobMemory must be 0 (no cap) or at least " + MIN_JOB_MEMORY
                        + " bytes (16 MiB), got " + bytes);
            }
            this.maxJobMemory = bytes;
            return this;
        }

        /**
         * Sets {@link ExecSettings#maxJobCpus()}; {@link #build()} checks that {@link #jobControlGroups(Path...)}
         * are set with it.
         *
         * @param cpus 0 for no cap, or at least 0.01 (1 ms of CPU time in every 100 ms), at most 65536
         * @return this
         * @throws IllegalArgumentException when not a number, negative, or out of that range
         */
        public Builder maxJobCpus(double cpus) {
            if (!(cpus == 0 || cpus >= MIN_JOB_CPUS && cpus <= MAX_JOB_CPUS)) {
                throw new IllegalArgumentException("maxJobCpus must be 0 (no cap) or from " + MIN_JOB_CPUS + " to "
                        + MAX_JOB_CPUS + " CPUs (0.5 is half of one core's time), got " + cpus);
            }
            this.maxJobCpus = cpus;
            return this;
        }

        /**
         * Sets {@link ExecSettings#maxJobDuration()}.
         *
         * @param limit zero for none, or at least one second, in whole seconds
         * @return this
         * @throws IllegalArgumentException when null, negative, under a second or not whole seconds
         */
        public Builder maxJobDuration(Duration limit) {
            checked("maxJobDuration", limit, "zero (no limit) or whole seconds, at least 1");
            if (!limit.isZero() && (limit.getSeconds() < 1 || limit.getNano() != 0)) {
                throw new IllegalArgumentException("maxJobDuration must be zero (no limit) or whole seconds, at least "
                        + "1, got " + limit);
            }
            this.maxJobDuration = limit;
            return this;
        }

        /**
         * Checks what needs several settings together and builds.
         *
         * @return the settings
         * @throws IllegalArgumentException when {@code defaultWait} is longer than {@code maxWait}, or when the
         *                                  mode is {@link IsolationMode#CUSTOM} and the wrapper template is
         *                                  invalid (saying what is wrong with it), or for a
         *                                  {@code maxJobProcesses}, {@code maxJobMemory} or {@code maxJobCpus} without
         *                                  {@code jobControlGroups}
         */
        public ExecSettings build() {
            if (maxJobProcesses > 0 && jobControlGroups.isEmpty()) {
                throw new IllegalArgumentException("maxJobProcesses=" + maxJobProcesses + " needs jobControlGroups: the "
                        + "cap is kept by a control group of each job's own, made in such a directory");
            }
            if (maxJobCpus > 0 && jobControlGroups.isEmpty()) {
                throw new IllegalArgumentException("maxJobCpus=" + maxJobCpus + " needs jobControlGroups: the "
                        + "cap is kept by a control group of each job's own, made in such a directory");
            }
            if (maxJobMemory > 0 && jobControlGroups.isEmpty()) {
                throw new IllegalArgumentException("maxJobMemory=" + maxJobMemory + " needs jobControlGroups: the "
                        + "cap is kept by a control group of each job's own, made in such a directory");
            }
            if (defaultWait.compareTo(maxWait) > 0) {
                throw new IllegalArgumentException("defaultWait must be at most maxWait, got defaultWait=" + defaultWait
                        + " and maxWait=" + maxWait);
            }
            if (isolationMode == IsolationMode.CUSTOM) {
                // Validates the template now, so a broken one fails when the backend is built.
                Isolation.custom(isolationWrapper);
            }
            return new ExecSettings(this);
        }

        private static Duration checked(String name, Duration d, String valid) {
            if (d == null || d.isNegative()) {
                throw new IllegalArgumentException(name + " must be " + valid + ", got " + d);
            }
            try {
                d.toMillis();
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(name + " must be " + valid + " and fit in a long of milliseconds, "
                        + "got " + d, e);
            }
            return d;
        }

        private static Duration checkedZeroOrMillis(String name, Duration d, String valid) {
            checked(name, d, valid);
            if (!d.isZero() && d.toMillis() == 0) {
                throw new IllegalArgumentException(name + " must be " + valid + ", got " + d);
            }
            return d;
        }
    }
}
