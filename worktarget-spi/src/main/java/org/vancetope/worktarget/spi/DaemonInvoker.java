package org.vancetope.worktarget.spi;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The seam to named daemons (the DAEMON target): look one up, list the online ones of a project, and
 * run a {@code client_*} tool on one. Implemented by the daemon registry of {@code backend-daemon};
 * fakes in {@code worktarget-testkit}.
 */
public interface DaemonInvoker {

    /**
     * The state and manifest of a daemon.
     *
     * @param key the daemon
     * @return its status; {@link DaemonStatus#OFFLINE} when unknown
     */
    DaemonStatus status(DaemonKey key);

    /**
     * The names of the daemons of a project that are online now.
     *
     * @param tenant the tenant
     * @param project the project
     * @return the names, sorted
     */
    List<String> onlineDaemons(String tenant, String project);

    /**
     * Runs a tool on a daemon.
     *
     * @param key the daemon
     * @param tool the tool name, a {@code client_*} name
     * @param params the parameters
     * @param context the calling process
     * @param timeout how long to wait for the result
     * @return the result
     * @throws ToolException {@code offline}, {@code timeout}, or the tool's own failure
     */
    Map<String, Object> invoke(DaemonKey key, String tool, Map<String, Object> params, ToolContext context,
                               Duration timeout) throws ToolException;

    /**
     * The process ended: free what this daemon side holds for it (for example by telling the project's
     * daemons, which may hold jobs of the process). Called by the dispatcher's {@code processEnded}, after
     * the process's last call; must not throw. Default: nothing.
     *
     * @param process the process that ended
     */
    default void processEnded(ToolContext process) {
        // nothing to free
    }
}
