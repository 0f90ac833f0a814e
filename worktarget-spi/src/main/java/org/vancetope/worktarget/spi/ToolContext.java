package org.vancetope.worktarget.spi;

import java.util.Objects;
import java.util.Optional;

/**
 * Who runs a backend tool: the calling process and its scope. Backends use it to find the process's
 * RootDirs, job scope and HOME; they never see WorkTargets.
 *
 * <p>A host tool (one the dispatcher runs itself whatever the target, such as the file-transfer tools)
 * also gets {@link #peer()}: the endpoint of the remote peer the caller's target names, resolved once
 * by the dispatcher, so the tool does not route again.
 *
 * @param processId the calling process
 * @param sessionId the session the process belongs to, or null
 * @param tenant the tenant
 * @param project the project
 * @param user the user login, or null when there is no user context
 * @param endpoint for host tools, the endpoint of the caller's remote peer (the named daemon for a DAEMON
 *        target, the session's client otherwise) when it is connected; null otherwise
 */
public record ToolContext(String processId, String sessionId, String tenant, String project, String user,
                          Endpoint endpoint) {

    /**
     * Validates the required fields.
     *
     * @param processId the calling process
     * @param sessionId the session the process belongs to, or null
     * @param tenant the tenant
     * @param project the project
     * @param user the user login, or null when there is no user context
     * @param endpoint for host tools, the endpoint of the caller's remote peer (the named daemon for a DAEMON
     *        target, the session's client otherwise) when it is connected; null otherwise
     */
    public ToolContext {
        Objects.requireNonNull(processId, "processId");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(project, "project");
    }

    /**
     * A context without an endpoint (what every backend tool gets).
     *
     * @param processId the calling process
     * @param sessionId the session, or null
     * @param tenant the tenant
     * @param project the project
     * @param user the user login, or null
     */
    public ToolContext(String processId, String sessionId, String tenant, String project, String user) {
        this(processId, sessionId, tenant, project, user, null);
    }

    /**
     * The context of a process.
     *
     * @param process the process
     * @return its context
     */
    public static ToolContext of(ProcessInfo process) {
        return new ToolContext(process.id(), process.sessionId(), process.tenant(), process.project(), process.user());
    }

    /**
     * The endpoint of the caller's remote peer, as {@link #endpoint()}.
     *
     * @return the endpoint, when the dispatcher resolved one for a host tool
     */
    public Optional<Endpoint> peer() {
        return Optional.ofNullable(endpoint);
    }

    /**
     * The same context with another endpoint.
     *
     * @param peerEndpoint the endpoint, or null for none
     * @return a new context
     */
    public ToolContext withEndpoint(Endpoint peerEndpoint) {
        return new ToolContext(processId, sessionId, tenant, project, user, peerEndpoint);
    }
}
