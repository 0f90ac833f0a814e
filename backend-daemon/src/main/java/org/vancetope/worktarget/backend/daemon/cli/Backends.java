package org.vancetope.worktarget.backend.daemon.cli;

import java.nio.file.Path;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.core.ExecSettings;

/**
 * The backend of the {@code client_*} tools a {@code daemon} serves ({@link LocalBackend} over its work
 * directory), closed by the command on shutdown, which kills its running jobs. The WORK backend of
 * {@code serve} and {@code mcp --http} is built by {@code WorkspaceOptions}.
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
}
