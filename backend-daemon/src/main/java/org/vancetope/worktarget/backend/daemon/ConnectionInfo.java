package org.vancetope.worktarget.backend.daemon;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A snapshot of one connected client as the server sees it, for admin listings and logs.
 *
 * @param connectionId the id the server gave the connection in {@code welcome}
 * @param profile {@code "foot"} or {@code "daemon"}
 * @param tenant the tenant the client serves
 * @param project the project (always set for daemons, may be null for foots)
 * @param daemonName the daemon name, or null for a foot
 * @param sessionId the session, or null for a daemon
 * @param clientName the client's self-description from {@code hello}, or null
 * @param subject the authenticated principal's subject
 * @param remoteAddress the peer's address as text
 * @param connectedAt when the hello was accepted
 * @param state {@code ONLINE}, or {@code STALE} when it stopped answering pings
 * @param pendingCalls invocations sent to it that have not been answered
 * @param tools the names in its manifest
 */
public record ConnectionInfo(String connectionId, String profile, String tenant, String project, String daemonName,
                             String sessionId, String clientName, String subject, String remoteAddress,
                             Instant connectedAt, ConnectionInfo.State state, int pendingCalls, List<String> tools) {

    /**
     * Validates and copies.
     *
     * @param connectionId the id the server gave the connection in {@code welcome}
     * @param profile {@code "foot"} or {@code "daemon"}
     * @param tenant the tenant the client serves
     * @param project the project (always set for daemons, may be null for foots)
     * @param daemonName the daemon name, or null for a foot
     * @param sessionId the session, or null for a daemon
     * @param clientName the client's self-description from {@code hello}, or null
     * @param subject the authenticated principal's subject
     * @param remoteAddress the peer's address as text
     * @param connectedAt when the hello was accepted
     * @param state {@code ONLINE}, or {@code STALE} when it stopped answering pings
     * @param pendingCalls invocations sent to it that have not been answered
     * @param tools the names in its manifest
     */
    public ConnectionInfo {
        Objects.requireNonNull(connectionId, "connectionId");
        Objects.requireNonNull(profile, "profile");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(state, "state");
        tools = List.copyOf(tools);
    }

    /** Whether a connected client answers. */
    public enum State {
        /** Connected and answering. */
        ONLINE,
        /** Connected, but it stopped answering pings; calls to it would likely time out. */
        STALE
    }
}
