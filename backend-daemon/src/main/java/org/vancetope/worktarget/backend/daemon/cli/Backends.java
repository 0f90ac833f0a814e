package org.vancetope.worktarget.backend.daemon.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.Discovery;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.BackendToolProvider;

/**
 * The one place where the command-line tool chooses its backends: the {@code client_*} tools a
 * {@code daemon} serves and the {@code work_*} backend a {@code serve} runs. Both come from the
 * {@link BackendToolProvider}s on the class path ({@code META-INF/services}); when the local and
 * workspace backends are part of the build, they are wired here with the directory they work in.
 */
final class Backends {
    private static final Logger LOG = LoggerFactory.getLogger(Backends.class);

    private Backends() {
    }

    /**
     * The {@code client_*} tools a daemon serves from its work directory.
     *
     * @param workdir the daemon's work directory
     * @return the tools (empty when this build has no client backend; a warning is logged)
     */
    static List<BackendTool> clientTools(Path workdir) {
        List<BackendTool> tools = new ArrayList<>();
        for (BackendToolProvider p : Discovery.backendProviders(Backends.class.getClassLoader())) {
            for (BackendTool t : p.tools()) {
                if (t.spec().name().startsWith(ToolCatalog.CLIENT_PREFIX)) {
                    tools.add(t);
                }
            }
        }
        if (tools.isEmpty()) {
            LOG.warn("This build has no client_* backend on its class path; the daemon serves no tools (work dir {}).",
                    workdir);
        }
        return tools;
    }

    /**
     * The backends of the WORK target for a server workspace.
     *
     * @param workspace the workspace directory
     * @return the providers of {@code work_*} tools (empty when this build has none; a warning is logged)
     */
    static List<BackendToolProvider> workBackends(Path workspace) {
        List<BackendToolProvider> out = new ArrayList<>();
        for (BackendToolProvider p : Discovery.backendProviders(Backends.class.getClassLoader())) {
            if (p.tools().stream().anyMatch(t -> t.spec().name().startsWith(ToolCatalog.WORK_PREFIX))) {
                out.add(p);
            }
        }
        if (out.isEmpty()) {
            LOG.warn("This build has no work_* backend on its class path; WORK calls fail with unknown_tool "
                    + "(workspace {}).", workspace);
        }
        return out;
    }
}
