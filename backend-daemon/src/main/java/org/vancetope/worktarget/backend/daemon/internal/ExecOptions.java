package org.vancetope.worktarget.backend.daemon.internal;

import java.nio.file.Path;
import java.util.function.Supplier;
import org.vancetope.worktarget.core.ExecSettings;

/**
 * The command-line options of the jobs' control groups, the same for {@code serve}, {@code daemon} and
 * {@code mcp}: {@code --job-cgroup DIR} ({@link ExecSettings#jobControlGroup()}) and
 * {@code --max-job-processes N} ({@link ExecSettings#maxJobProcesses()}).
 */
public final class ExecOptions {
    /** A control group directory each job gets a group of its own in. */
    public static final String JOB_CGROUP = "job-cgroup";
    /** The cap on one job's processes and threads, with {@link #JOB_CGROUP}. */
    public static final String MAX_JOB_PROCESSES = "max-job-processes";

    private ExecOptions() {
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
            exec.jobControlGroup(Path.of(a.get(JOB_CGROUP, "")).toAbsolutePath());
        }
        if (a.has(MAX_JOB_PROCESSES)) {
            exec.maxJobProcesses(a.intOption(MAX_JOB_PROCESSES, 0, 0, Integer.MAX_VALUE));
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
        return String.valueOf(e.getMessage()).startsWith("jobControlGroup ")
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
        return "The exec settings (--" + JOB_CGROUP + ", --" + MAX_JOB_PROCESSES + "): ";
    }
}
