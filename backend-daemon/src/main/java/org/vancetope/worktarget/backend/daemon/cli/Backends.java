package org.vancetope.worktarget.backend.daemon.cli;

import java.nio.file.Path;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
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
}
