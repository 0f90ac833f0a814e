package org.vancetope.worktarget.spi;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The session-bound client ("Foot") side of the CLIENT target: is a client bound to a session, and
 * run a {@code client_*} tool on it.
 *
 * <p>Implemented by the WebSocket server of {@code backend-daemon} for remote clients, and by
 * {@code backend-local} for an in-process agent where CLIENT means "this machine".
 */
public interface ClientConnectivity {

    /**
     * Whether a client is bound to the session now.
     *
     * @param tenant the tenant
     * @param sessionId the session, may be null (then no client is bound)
     * @return true when CLIENT calls can be delivered
     */
    boolean isBound(String tenant, String sessionId);

    /**
     * Runs a {@code client_*} tool on the session's client.
     *
     * @param tenant the tenant
     * @param sessionId the session
     * @param tool the backend tool name, e.g. {@code client_file_read}
     * @param params the parameters
     * @param context the calling process
     * @param timeout how long to wait for the result
     * @return the result
     * @throws ToolException {@code offline} when no client is bound, {@code timeout}, or the tool's own failure
     */
    Map<String, Object> invoke(String tenant, String sessionId, String tool, Map<String, Object> params,
                               ToolContext context, Duration timeout) throws ToolException;

    /**
     * The tools the session's client declared, when it declared a manifest.
     *
     * @param tenant the tenant
     * @param sessionId the session
     * @return the manifest, or empty to use the standard {@code client_*} specs
     */
    default Optional<List<ToolSpec>> manifest(String tenant, String sessionId) {
        return Optional.empty();
    }

    /**
     * The process ended: free what this client side holds for it (for example by telling the connected
     * client, which may hold jobs of the process). Called by the dispatcher's {@code processEnded}, after
     * the process's last call; must not throw. Default: nothing.
     *
     * @param process the process that ended
     */
    default void processEnded(ToolContext process) {
        // nothing to free
    }
}
