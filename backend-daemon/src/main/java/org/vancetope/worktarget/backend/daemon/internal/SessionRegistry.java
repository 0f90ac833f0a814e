package org.vancetope.worktarget.backend.daemon.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.spi.ClientConnectivity;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The session-bound clients ({@code profile=foot}) keyed by (tenant, sessionId): the CLIENT target's
 * {@link ClientConnectivity}. A second foot for the same session replaces the first, like a daemon.
 * Correlation ids start with {@code ct-}.
 */
public final class SessionRegistry implements ClientConnectivity {
    private static final Logger LOG = LoggerFactory.getLogger(SessionRegistry.class);
    private final Map<Key, ServerConnection> sessions = new ConcurrentHashMap<>();

    private record Key(String tenant, String sessionId) {
    }

    /**
     * Registers a connection, replacing (and superseding) an older one of the same session.
     *
     * @param connection the new connection
     */
    public void register(ServerConnection connection) {
        Key key = new Key(connection.hello().tenant(), connection.hello().sessionId());
        ServerConnection previous = sessions.put(key, connection);
        if (previous != null && previous != connection) {
            LOG.info("Foot of session {}/{} reconnected: connection {} supersedes {}", key.tenant(), key.sessionId(),
                    connection.id(), previous.id());
            previous.supersede(peer(key.sessionId()));
        }
    }

    /**
     * Removes a connection if it is still the registered one of its session.
     *
     * @param connection the closed connection
     */
    public void unregister(ServerConnection connection) {
        sessions.remove(new Key(connection.hello().tenant(), connection.hello().sessionId()), connection);
    }

    /**
     * The connection of a session.
     *
     * @param tenant the tenant
     * @param sessionId the session
     * @return the open connection, if any
     */
    public Optional<ServerConnection> find(String tenant, String sessionId) {
        if (tenant == null || sessionId == null) {
            return Optional.empty();
        }
        ServerConnection c = sessions.get(new Key(tenant, sessionId));
        return c == null || c.isClosed() ? Optional.empty() : Optional.of(c);
    }

    /**
     * Every registered connection.
     *
     * @return every registered connection
     */
    public List<ServerConnection> all() {
        return List.copyOf(sessions.values());
    }

    @Override
    public boolean isBound(String tenant, String sessionId) {
        return find(tenant, sessionId).isPresent();
    }

    @Override
    public Map<String, Object> invoke(String tenant, String sessionId, String tool, Map<String, Object> params,
                                      ToolContext context, Duration timeout) throws ToolException {
        ServerConnection c = find(tenant, sessionId).orElseThrow(() -> new ToolException(ErrorCode.OFFLINE,
                "No client is connected to session '" + sessionId + "'. Reconnect the client, or call work_target_set "
                        + "(for example kind WORK) to run on the server workspace instead."));
        return c.invoke("ct-", peer(sessionId), tool, params, context, timeout);
    }

    @Override
    public Optional<List<ToolSpec>> manifest(String tenant, String sessionId) {
        return find(tenant, sessionId).map(ServerConnection::manifest);
    }

    private static String peer(String sessionId) {
        return "the client of session '" + sessionId + "'";
    }
}
