package org.vancetope.worktarget.backend.daemon.internal;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.LogLimiter;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.Peers;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * Every connected peer of the server, foots ({@link SessionKey}) and daemons ({@link DaemonKey}) alike,
 * in one map: the {@link Peers} of the CLIENT and DAEMON targets. A second peer with the same key
 * supersedes the first (it is told {@code superseded} and closed; its pending calls fail at once).
 *
 * <p>A node of a fleet has a {@link FleetRouter} attached: the registry then announces its peers to the
 * fleet, finds a peer it does not hold on the node that does (a forwarding endpoint), lists the daemons
 * of every node, and lets a peer that reconnected to another node supersede its connection here.
 */
public final class PeerRegistry implements Peers {
    private static final Logger LOG = LoggerFactory.getLogger(PeerRegistry.class);
    private final Map<PeerKey, ServerConnection> peers = new ConcurrentHashMap<>();
    private volatile FleetRouter fleet;

    /**
     * Joins the registry to a fleet: from now on peers are announced to it and found through it.
     *
     * @param router the node's fleet router
     */
    void attach(FleetRouter router) {
        this.fleet = router;
        peers.values().forEach(router::connected);
    }

    /**
     * Registers a connection under its key; an older one with the same key is superseded. A foot does
     * not supersede the open foot of another subject: its session id is all it would need to take over
     * the calls of another user's session.
     *
     * @param connection the new connection
     * @return null when it was registered; otherwise the foot of another subject that holds the session
     *         (the new connection was not registered)
     */
    public ServerConnection register(ServerConnection connection) {
        PeerKey key = connection.key();
        ServerConnection[] found = new ServerConnection[1];
        boolean[] refused = new boolean[1];
        peers.compute(key, (k, held) -> {
            found[0] = held;
            refused[0] = held != null && k instanceof SessionKey && !held.isClosed()
                    && !held.principal().subject().equals(connection.principal().subject());
            return refused[0] ? held : connection;
        });
        if (refused[0]) {
            return found[0];
        }
        ServerConnection replaced = found[0];
        if (replaced != null && replaced != connection) {
            LOG.info("{} reconnected: connection {} supersedes {}", logName(key), connection.id(), replaced.id());
            replaced.supersede(key.describe());
        } else {
            LOG.info("{} online on connection {}", logName(key), connection.id());
        }
        FleetRouter f = fleet;
        if (f != null) {
            f.connected(connection);
        }
        return null;
    }

    /**
     * The connection replaced its manifest: the fleet learns the new one.
     *
     * @param connection the connection
     */
    public void manifestChanged(ServerConnection connection) {
        FleetRouter f = fleet;
        if (f != null && peers.get(connection.key()) == connection) {
            f.connected(connection);
        }
    }

    /**
     * A peer reconnected to another node of the fleet: its connection here is superseded, if it is
     * still the one named, unless it is a foot and the new connection belongs to another subject (as on
     * one node, a foot only gives way to its own subject).
     *
     * @param key the peer
     * @param connectionId the connection the other node replaced
     * @param subject the subject of the new connection, or null or empty when the other node did not say
     * @return the foot that keeps its session against another subject; null when nothing was kept
     */
    ServerConnection supersedeRemotely(PeerKey key, String connectionId, String subject) {
        ServerConnection c = peers.get(key);
        if (c == null || !c.id().equals(connectionId)) {
            return null;
        }
        if (key instanceof SessionKey && subject != null && !subject.isEmpty() && !c.isClosed()
                && !subject.equals(c.principal().subject())) {
            LOG.warn("{} keeps connection {}: a connection of another subject ('{}') on another server node asked "
                    + "for the session", logName(key), c.id(), LogLimiter.printable(subject));
            return c;
        }
        if (peers.remove(key, c)) {
            LOG.info("{} reconnected to another server node: connection {} is superseded", logName(key), c.id());
            c.supersede(key.describe());
        }
        return null;
    }

    /**
     * The node holding a foot refused to give its session to this node's connection, which belongs to
     * another subject: that connection is closed with {@code forbidden} (4403).
     *
     * @param key the session
     * @param connectionId the connection here that asked for it
     */
    void refuseRemotely(PeerKey key, String connectionId) {
        ServerConnection c = peers.get(key);
        if (c != null && c.id().equals(connectionId) && peers.remove(key, c)) {
            LOG.warn("{}: connection {} is closed, the session is served by a connection of another subject on "
                    + "another server node", logName(key), c.id());
            c.refuse(ErrorCode.FORBIDDEN, "The session is served by a connection of another token's subject; a foot "
                    + "may only replace a connection of its own subject. Connect with the session id your host gave "
                    + "this user.", Wire.CLOSE_FORBIDDEN);
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
            FleetRouter f = fleet;
            if (f != null) {
                f.disconnected(connection);
            }
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
        // a peer's own words (its session id): printed so that they cannot forge log lines
        return LogLimiter.printable(key instanceof SessionKey s ? "Foot of session " + s.tenant() + "/" + s.sessionId()
                : "Daemon " + key);
    }

    @Override
    public Optional<Endpoint> find(PeerKey key) {
        Optional<Endpoint> local = connection(key).map(Endpoint.class::cast);
        FleetRouter f = fleet;
        return local.isPresent() || f == null ? local : f.find(key);
    }

    @Override
    public List<String> onlineDaemons(String tenant, String project) {
        List<String> local = peers.entrySet().stream()
                .filter(e -> e.getKey() instanceof DaemonKey d && d.tenant().equals(tenant) && d.project().equals(project))
                .filter(e -> !e.getValue().isClosed() && !e.getValue().isStale())
                .map(e -> ((DaemonKey) e.getKey()).name()).sorted().toList();
        FleetRouter f = fleet;
        if (f == null) {
            return local;
        }
        java.util.TreeSet<String> all = new java.util.TreeSet<>(local);
        all.addAll(f.daemons(tenant, project));
        return List.copyOf(all);
    }

    /**
     * Tells the peers that may hold jobs of the process, when they understand it ({@code process.end}):
     * every daemon of the process's project and the foot of its session, on this node and, in a fleet,
     * on every other node.
     *
     * @param process the process
     */
    @Override
    public void processEnded(ToolContext process) {
        processEndedHere(process);
        FleetRouter f = fleet;
        if (f != null) {
            f.processEnded(process);
        }
    }

    /**
     * Tells the peers of this node only that may hold jobs of the process (a node of the fleet where the
     * process ended asked for it).
     *
     * @param process the process
     */
    void processEndedHere(ToolContext process) {
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
