package org.vancetope.worktarget.spi;

import java.util.List;
import java.util.Optional;

/**
 * The remote side of the CLIENT and DAEMON targets: finds the {@link Endpoint} of a session's client
 * or of a named daemon. Implemented by the WebSocket server of {@code backend-daemon} (one registry of
 * every connected peer), by {@code backend-local} for an in-process agent whose CLIENT is "this
 * machine", and by the testkit's fake.
 *
 * <pre>{@code
 * Optional<Endpoint> box = peers.find(new DaemonKey("acme", "proj", "box"));
 * }</pre>
 */
public interface Peers {

    /**
     * The endpoint of a connected peer.
     *
     * @param key the session's client or the daemon
     * @return the endpoint, or empty when no such peer is connected
     */
    Optional<Endpoint> find(PeerKey key);

    /**
     * The names of the daemons of a project that are connected and answering.
     *
     * @param tenant the tenant
     * @param project the project
     * @return the names, sorted
     */
    List<String> onlineDaemons(String tenant, String project);

    /**
     * The process ended: free what the peers hold for it (for example by telling the connected clients
     * and daemons, which may hold jobs of the process). Called by the dispatcher's {@code processEnded},
     * after the process's last call; must not throw. Default: nothing.
     *
     * @param process the process that ended
     */
    default void processEnded(ToolContext process) {
        // nothing to free
    }
}
