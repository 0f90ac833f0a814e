package org.vancetope.worktarget.backend.daemon.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.spi.DaemonInvoker;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.DaemonStatus;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The named daemons ({@code profile=daemon}) keyed by (tenant, project, daemonName): the DAEMON
 * target's {@link DaemonInvoker}. A second daemon with the same key supersedes the first.
 * Correlation ids start with {@code dt-}.
 */
public final class DaemonRegistry implements DaemonInvoker {
    private static final Logger LOG = LoggerFactory.getLogger(DaemonRegistry.class);
    private final Map<DaemonKey, ServerConnection> daemons = new ConcurrentHashMap<>();

    /**
     * The routing key of a connection.
     *
     * @param c the connection
     * @return its key
     */
    public static DaemonKey keyOf(ServerConnection c) {
        return new DaemonKey(c.hello().tenant(), c.hello().project(), c.hello().daemonName());
    }

    /**
     * Registers a connection; an older one with the same key gets {@code superseded} and is closed.
     *
     * @param connection the new connection
     */
    public void register(ServerConnection connection) {
        DaemonKey key = keyOf(connection);
        ServerConnection previous = daemons.put(key, connection);
        if (previous != null && previous != connection) {
            LOG.info("Daemon {}: connection {} supersedes {}", key, connection.id(), previous.id());
            previous.supersede(peer(key));
        } else {
            LOG.info("Daemon {} online on connection {}", key, connection.id());
        }
    }

    /**
     * Removes a connection if it is still the registered one of its key.
     *
     * @param connection the closed connection
     */
    public void unregister(ServerConnection connection) {
        if (daemons.remove(keyOf(connection), connection)) {
            LOG.info("Daemon {} offline (connection {})", keyOf(connection), connection.id());
        }
    }

    /**
     * The connection of a daemon.
     *
     * @param key the daemon
     * @return the open connection, if any
     */
    public Optional<ServerConnection> find(DaemonKey key) {
        ServerConnection c = daemons.get(key);
        return c == null || c.isClosed() ? Optional.empty() : Optional.of(c);
    }

    /**
     * Every registered connection.
     *
     * @return every registered connection
     */
    public List<ServerConnection> all() {
        return List.copyOf(daemons.values());
    }

    @Override
    public DaemonStatus status(DaemonKey key) {
        return find(key).map(c -> new DaemonStatus(c.state(), c.manifest())).orElse(DaemonStatus.OFFLINE);
    }

    @Override
    public List<String> onlineDaemons(String tenant, String project) {
        return daemons.entrySet().stream()
                .filter(e -> e.getKey().tenant().equals(tenant) && e.getKey().project().equals(project))
                .filter(e -> e.getValue().state() == DaemonStatus.State.ONLINE)
                .map(e -> e.getKey().name()).sorted().toList();
    }

    @Override
    public Map<String, Object> invoke(DaemonKey key, String tool, Map<String, Object> params, ToolContext context,
                                      Duration timeout) throws ToolException {
        ServerConnection c = find(key).orElseThrow(() -> new ToolException(ErrorCode.OFFLINE, "Daemon '" + key.name()
                + "' of project '" + key.project() + "' is not connected. Online daemons: "
                + onlineDaemons(key.tenant(), key.project()) + ". Start it, or call work_target_set to switch targets."));
        return c.invoke("dt-", peer(key), tool, params, context, timeout);
    }

    /**
     * Tells every connected daemon of the process's project that understands it ({@code process.end})
     * that the process ended, so that it ends the jobs of the process's own scope.
     *
     * @param process the process
     */
    @Override
    public void processEnded(ToolContext process) {
        for (ServerConnection c : all()) {
            DaemonKey key = keyOf(c);
            if (key.tenant().equals(process.tenant()) && key.project().equals(process.project())) {
                c.processEnded(process);
            }
        }
    }

    private static String peer(DaemonKey key) {
        return "daemon '" + key.name() + "' of project '" + key.project() + "'";
    }
}
