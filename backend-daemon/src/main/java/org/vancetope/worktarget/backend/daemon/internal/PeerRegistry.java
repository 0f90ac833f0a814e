package org.vancetope.worktarget.backend.daemon.internal;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.Peers;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * Every connected peer of the server, foots ({@link SessionKey}) and daemons ({@link DaemonKey}) alike,
 * in one map: the {@link Peers} of the CLIENT and DAEMON targets. A second peer with the same key
 * supersedes the first (it is told {@code superseded} and closed; its pending calls fail at once).
 */
public final class PeerRegistry implements Peers {
    private static final Logger LOG = LoggerFactory.getLogger(PeerRegistry.class);
    private final Map<PeerKey, ServerConnection> peers = new ConcurrentHashMap<>();

    /**
     * Registers a connection under its key; an older one with the same key is superseded.
     *
     * @param connection the new connection
     */
    public void register(ServerConnection connection) {
        PeerKey key = connection.key();
        ServerConnection previous = peers.put(key, connection);
        if (previous != null && previous != connection) {
            LOG.info("{} reconnected: connection {} supersedes {}", logName(key), connection.id(), previous.id());
            previous.supersede(key.describe());
        } else {
            LOG.info("{} online on connection {}", logName(key), connection.id());
        }
    }

    /**
     * Removes a connection if it is still the registered one of its key.
     *
     * @param connection the closed connection
     */
    public void unregister(ServerConnection connection) {
        if (peers.remove(connection.key(), connection)) {
            LOG.info("{} offline (connection {})", logName(connection.key()), connection.id());
        }
    }

    /**
     * The open connection of a peer.
     *
     * @param key the peer
     * @return the connection, if one is registered and open
     */
    public Optional<ServerConnection> connection(PeerKey key) {
        ServerConnection c = peers.get(key);
        return c == null || c.isClosed() ? Optional.empty() : Optional.of(c);
    }

    /**
     * Every registered connection, foots first, then daemons.
     *
     * @return a snapshot
     */
    public List<ServerConnection> all() {
        List<ServerConnection> foots = new java.util.ArrayList<>();
        List<ServerConnection> daemons = new java.util.ArrayList<>();
        peers.values().forEach(c -> (c.key() instanceof SessionKey ? foots : daemons).add(c));
        foots.addAll(daemons);
        return foots;
    }

    /** "Daemon acme/proj/box" or "Foot of session acme/s-1", as the log names a peer. */
    private static String logName(PeerKey key) {
        return key instanceof SessionKey s ? "Foot of session " + s.tenant() + "/" + s.sessionId() : "Daemon " + key;
    }

    @Override
    public Optional<Endpoint> find(PeerKey key) {
        return connection(key).map(Endpoint.class::cast);
    }

    @Override
    public List<String> onlineDaemons(String tenant, String project) {
        return peers.entrySet().stream()
                .filter(e -> e.getKey() instanceof DaemonKey d && d.tenant().equals(tenant) && d.project().equals(project))
                .filter(e -> !e.getValue().isClosed() && !e.getValue().isStale())
                .map(e -> ((DaemonKey) e.getKey()).name()).sorted().toList();
    }

    /**
     * Tells the peers that may hold jobs of the process, when they understand it ({@code process.end}):
     * every daemon of the process's project and the foot of its session.
     *
     * @param process the process
     */
    @Override
    public void processEnded(ToolContext process) {
        for (Map.Entry<PeerKey, ServerConnection> e : peers.entrySet()) {
            boolean holds = e.getKey() instanceof DaemonKey d
                    ? d.tenant().equals(process.tenant()) && d.project().equals(process.project())
                    : e.getKey().equals(process.sessionId() == null ? null
                            : new SessionKey(process.tenant(), process.sessionId()));
            if (holds) {
                e.getValue().processEnded(process);
            }
        }
    }
}
