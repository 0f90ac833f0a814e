package org.vancetope.worktarget.backend.daemon.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.vancetope.worktarget.core.ExecSettings;

/**
 * The command-line options of the jobs' limits, the same for {@code serve}, {@code daemon} and {@code mcp}:
 * {@code --job-cgroup DIR[,DIR]} ({@link ExecSettings#jobControlGroups()}), {@code --max-job-processes N}
 * ({@link ExecSettings#maxJobProcesses()}), {@code --max-job-memory-mib N} ({@link ExecSettings#maxJobMemory()}),
 * {@code --max-job-cpus N} ({@link ExecSettings#maxJobCpus()}) and {@code --max-job-seconds N}
 * ({@link ExecSettings#maxJobDuration()}).
 */
public final class ExecOptions {
    /** The control group directories each job gets a group of its own in, separated by commas. */
    public static final String JOB_CGROUP = "job-cgroup";
    /** The cap on one job's processes and threads, with {@link #JOB_CGROUP}. */
    public static final String MAX_JOB_PROCESSES = "max-job-processes";
    /** The cap on one job's memory in MiB, with {@link #JOB_CGROUP}. */
    public static final String MAX_JOB_MEMORY_MIB = "max-job-memory-mib";
    /** The cap on one job's CPU time in CPUs (a decimal number), with {@link #JOB_CGROUP}. */
    public static final String MAX_JOB_CPUS = "max-job-cpus";
    /** The longest one job may run, in seconds; needs no control group. */
    public static final String MAX_JOB_SECONDS = "max-job-seconds";
    /** Every option of this class, for a command's list of known options. */
    public static final List<String> NAMES = List.of(JOB_CGROUP, MAX_JOB_PROCESSES, MAX_JOB_MEMORY_MIB, MAX_JOB_CPUS,
            MAX_JOB_SECONDS);
    /** The control group options in a usage line. */
    public static final String USAGE = "[--job-cgroup DIR[,DIR] [--max-job-processes N] [--max-job-memory-mib N] "
            + "[--max-job-cpus N]]";
    /** The option of a job's run time in a usage line. */
    public static final String USAGE_TIME = "[--max-job-seconds N]";

    private ExecOptions() {
    }

    /**
     * A command's known options: its own and these.
     *
     * @param own the command's own option names
     * @return all of them
     */
    public static Set<String> withOwn(String... own) {
        return withOwn(List.of(), own);
    }

    /**
     * A command's known options: its own, those of a group of shared options and these.
     *
     * @param shared shared options, e.g. {@link WorkspaceOptions#NAMES}
     * @param own the command's own option names
     * @return all of them
     */
    public static Set<String> withOwn(List<String> shared, String... own) {
        Set<String> all = new HashSet<>(List.of(own));
        all.addAll(shared);
        all.addAll(NAMES);
        return Set.copyOf(all);
    }

    /**
     * The lines of a command's help that describe these options.
     *
     * @param column where the descriptions' next lines start
     * @param jobs what runs the jobs, e.g. "WORK job" or "job"
     * @param server what the command runs, e.g. "server" or "daemon"
     * @return the lines
     */
    public static List<String> help(int column, String jobs, String server) {
        String pad = " ".repeat(column);
        return List.of(
                "  --job-cgroup DIR[,DIR]  control group directories (below /sys/fs/cgroup) this " + server + " may",
                pad + "write, one per hierarchy (cgroup v2: one; v1: one below pids/, one below memory/):",
                pad + "each " + jobs + " runs in a group of its own there, and its kill finds every process",
                pad + "it started (default none)",
                "  --max-job-processes N  the most processes and threads one " + jobs + " may have at once;",
                pad + "more forks fail in the job, not in the " + server + " (needs --job-cgroup with pids;",
                pad + "default 0, no cap)",
                "  --max-job-memory-mib N  the most memory one " + jobs + " may use (at least 16); beyond it the",
                pad + "kernel ends a process of that job, not the " + server + " (needs --job-cgroup with",
                pad + "memory; default 0, no cap)",
                "  --max-job-cpus N    the CPU time one " + jobs + " may have, in CPUs (0.5, 2; at least 0.01); beyond",
                pad + "it the job waits, not the " + server + " (needs --job-cgroup with cpu; default 0, no cap)",
                "  --max-job-seconds N the longest one " + jobs + " may run, whatever deadline its caller gave; then",
                pad + "it is ended as timed_out (default 0: only the caller's deadlineSeconds)");
    }

    /**
     * Applies the options to exec settings.
     *
     * @param a the command line
     * @param exec the settings to change
     * @throws Args.UsageException for a number that is not one or out of range
     * @throws IllegalArgumentException for a value the settings refuse (the caller names its options)
     */
    public static void apply(Args a, ExecSettings.Builder exec) throws Args.UsageException {
        if (a.has(JOB_CGROUP)) {
            List<Path> dirs = new ArrayList<>();
            for (String d : a.get(JOB_CGROUP, "").split(",", -1)) {
                if (d.isBlank()) {
                    throw new Args.UsageException("--" + JOB_CGROUP + " '" + a.get(JOB_CGROUP, "") + "' has an empty "
                            + "directory name; give directories separated by single commas.");
                }
                dirs.add(Path.of(d.strip()).toAbsolutePath());
            }
            exec.jobControlGroups(dirs.toArray(Path[]::new));
        }
        if (a.has(MAX_JOB_PROCESSES)) {
            exec.maxJobProcesses(a.intOption(MAX_JOB_PROCESSES, 0, 0, Integer.MAX_VALUE));
        }
        if (a.has(MAX_JOB_MEMORY_MIB)) {
            exec.maxJobMemory((long) a.intOption(MAX_JOB_MEMORY_MIB, 0, 0, Integer.MAX_VALUE) << 20);
        }
        if (a.has(MAX_JOB_SECONDS)) {
            exec.maxJobDuration(Duration.ofSeconds(a.intOption(MAX_JOB_SECONDS, 0, 0, Integer.MAX_VALUE)));
        }
        if (a.has(MAX_JOB_CPUS)) {
            String v = a.get(MAX_JOB_CPUS, "").strip();
            if (!v.matches("[0-9]{1,9}(\\.[0-9]{1,9})?")) {
                throw new Args.UsageException("--" + MAX_JOB_CPUS + " must be a number of CPUs such as 0.5 or 2, got '"
                        + v + "'.");
            }
            exec.maxJobCpus(Double.parseDouble(v));
        }
    }

    /**
     * The default exec settings with the options applied.
     *
     * @param a the command line
     * @return the settings
     * @throws Args.UsageException for a bad value, naming the options
     */
    public static ExecSettings settings(Args a) throws Args.UsageException {
        ExecSettings.Builder exec = ExecSettings.defaults().toBuilder();
        try {
            apply(a, exec);
            return exec.build();
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException(named() + e.getMessage() + ".");
        }
    }

    /**
     * The usage error for a backend that could not be built because of its jobs' control group directory
     * (checked when its exec engine starts), or null for any other failure.
     *
     * @param e why the backend was not built
     * @return the error naming the options, or null
     */
    public static Args.UsageException refused(IllegalArgumentException e) {
        return String.valueOf(e.getMessage()).startsWith("jobControlGroups ")
                ? new Args.UsageException(named() + e.getMessage()) : null;
    }

    /**
     * Builds a backend; one whose jobs' control group directory its exec engine refuses is a usage error
     * naming the options ({@link #refused}), any other failure is thrown as it is.
     *
     * @param build what builds the backend
     * @param <T> the backend's type
     * @return the backend
     * @throws Args.UsageException when the directory is refused
     */
    public static <T> T build(Supplier<T> build) throws Args.UsageException {
        try {
            return build.get();
        } catch (IllegalArgumentException e) {
            Args.UsageException usage = refused(e);
            if (usage == null) {
                throw e;
            }
            throw usage;
        }
    }

    private static String named() {
        return "The exec settings (--" + String.join(", --", NAMES) + "): ";
    }
}
