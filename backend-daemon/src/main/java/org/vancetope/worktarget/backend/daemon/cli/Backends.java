package org.vancetope.worktarget.backend.daemon.cli;

import java.nio.file.Path;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.backend.daemon.internal.Args;
import org.vancetope.worktarget.core.ExecSettings;

/**
 * The one place where the command-line tool chooses its backends: the {@code client_*} tools a
 * {@code daemon} serves ({@link LocalBackend} over its work directory) and the {@code work_*} backend a
 * {@code serve} runs ({@link WorkspaceBackend} over its workspace). Both are closed by their command on
 * shutdown, which kills their running jobs.
 */
final class Backends {
    private Backends() {
    }

    /**
     * The CLIENT backend a daemon serves from its work directory.
     *
     * @param workdir the daemon's work directory
     * @param exec the exec limits (the command line may change the defaults)
     * @return the backend (the caller closes it)
     */
    static LocalBackend local(Path workdir, ExecSettings exec) {
        return LocalBackend.builder().workDirectory(workdir).execSettings(exec).build();
    }

    /**
     * The builder of the WORK backend of a server workspace, for {@code serve} to add its settings to; the
     * exec isolation mode {@code VANCE_EXEC_ISOLATION_MODE} of the environment overrides the configured one.
     *
     * @param workspace the workspace directory
     * @return the builder (the caller closes the backend it builds)
     */
    static WorkspaceBackend.Builder workspaceBuilder(Path workspace) {
        return WorkspaceBackend.builder().workspaceRoot(workspace).execSettings(ExecSettings.defaults());
    }

    /** The options of the jobs' control groups, the same for {@code serve} and {@code daemon}. */
    static final String JOB_CGROUP = "job-cgroup";
    /** The cap on one job's processes, with {@link #JOB_CGROUP}. */
    static final String MAX_JOB_PROCESSES = "max-job-processes";

    /**
     * Applies {@code --job-cgroup DIR} and {@code --max-job-processes N} to exec settings.
     *
     * @param a the command line
     * @param exec the settings to change
     * @throws Args.UsageException for a number that is not one or out of range
     * @throws IllegalArgumentException for a value the settings refuse (the caller names its options)
     */
    static void jobControlGroup(Args a, ExecSettings.Builder exec) throws Args.UsageException {
        if (a.has(JOB_CGROUP)) {
            exec.jobControlGroup(Path.of(a.get(JOB_CGROUP, "")).toAbsolutePath());
        }
        if (a.has(MAX_JOB_PROCESSES)) {
            exec.maxJobProcesses(a.intOption(MAX_JOB_PROCESSES, 0, 0, Integer.MAX_VALUE));
        }
    }

    /**
     * The usage error for a backend that could not be built because of its jobs' control group directory
     * (checked when its exec engine starts), or null for any other failure.
     *
     * @param e why the backend was not built
     * @return the error naming the options, or null
     */
    static Args.UsageException jobControlGroupRefused(IllegalArgumentException e) {
        return String.valueOf(e.getMessage()).startsWith("jobControlGroup ")
                ? new Args.UsageException("The exec settings (--" + JOB_CGROUP + ", --" + MAX_JOB_PROCESSES + "): "
                + e.getMessage()) : null;
    }
}
