package org.vancetope.worktarget.mcp.internal;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.mcp.McpCaller;
import org.vancetope.worktarget.mcp.McpProcessMapping;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.ToolException;

/** {@link McpProcessMapping#perSession}: one process per MCP session, ended with the session. */
public final class PerSessionProcesses implements McpProcessMapping {
    private final InMemoryProcessStore store;
    private final WorkTargetDispatcher dispatcher;
    private final String tenant;
    private final String project;
    private final Map<String, ProcessInfo> bySession = new ConcurrentHashMap<>();

    /**
     * A mapping.
     *
     * @param store the store processes are added to
     * @param dispatcher told when a process ends
     * @param tenant the tenant of stdio callers
     * @param project the project of stdio callers, preferred for HTTP callers
     */
    public PerSessionProcesses(InMemoryProcessStore store, WorkTargetDispatcher dispatcher, String tenant,
                               String project) {
        this.store = Objects.requireNonNull(store, "store");
        this.dispatcher = Objects.requireNonNull(dispatcher, "dispatcher");
        this.tenant = Objects.requireNonNull(tenant, "tenant");
        this.project = Objects.requireNonNull(project, "project");
    }

    @Override
    public String processFor(McpCaller caller) throws ToolException {
        ProcessInfo known = bySession.get(caller.sessionId());
        if (known != null) {
            return known.id();
        }
        String t = tenant;
        String p = project;
        String user = null;
        AuthPrincipal principal = caller.principal();
        if (principal != null) {
            t = principal.tenant();
            user = principal.user();
            if (!principal.mayServe(t, project)) {
                if (principal.projects().size() != 1) {
                    throw new ToolException(ErrorCode.FORBIDDEN, "The token of '" + principal.subject()
                            + "' may use the projects " + principal.projects() + " of tenant '" + t + "' but not '"
                            + project + "': give it exactly one project, or start the server with that project.");
                }
                p = principal.projects().iterator().next();
            }
        }
        String tenantOf = t;
        String projectOf = p;
        String userOf = user;
        return bySession.computeIfAbsent(caller.sessionId(), s -> {
            InMemoryProcessStore.NewProcess np = store.process("mcp-" + s).tenant(tenantOf).project(projectOf).session(s);
            if (userOf != null) {
                np.user(userOf);
            }
            return np.add();
        }).id();
    }

    @Override
    public void sessionClosed(McpCaller caller) {
        ProcessInfo p = bySession.remove(caller.sessionId());
        if (p != null) {
            store.remove(p.id());           // first, so that no new call finds it; its end waits for the running ones
            dispatcher.processEnded(p);
        }
    }
}
