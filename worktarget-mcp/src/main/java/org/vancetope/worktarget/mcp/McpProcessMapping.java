package org.vancetope.worktarget.mcp;

import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.mcp.internal.PerSessionProcesses;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Which WorkTarget process an MCP caller's tool calls run as. The process's target, RootDirs and jobs
 * are the process's: two MCP sessions mapped to one process share its target.
 *
 * <pre>{@code
 * McpProcessMapping one = caller -> "agent-7";                        // every session is one process
 * McpProcessMapping each = McpProcessMapping.perSession(store, dispatcher, "local", "local");
 * }</pre>
 */
@FunctionalInterface
public interface McpProcessMapping {

    /**
     * The process a caller's tool calls run as; called before every call. The process must be in the
     * dispatcher's process store.
     *
     * @param caller the MCP session and its principal
     * @return the process id
     * @throws ToolException to refuse the call (the MCP client gets an error result with the code)
     */
    String processFor(McpCaller caller) throws ToolException;

    /**
     * The MCP session ended (the HTTP client deleted it, or the server closed). Default: nothing.
     *
     * @param caller the session that ended
     */
    default void sessionClosed(McpCaller caller) {
        // the host owns its processes
    }

    /**
     * One process per MCP session, added to the store on the session's first call and ended (through the
     * dispatcher's {@code processEnded}, which frees its temp RootDir and jobs) and removed when the session
     * ends. The process's session id is the MCP session id. Over HTTP the tenant is the principal's and the
     * project is {@code project} when the principal may use it, else the principal's only project; a
     * principal with several projects and none of them {@code project} is refused {@code forbidden}.
     *
     * @param store the dispatcher's process store
     * @param dispatcher the dispatcher (told when a process ends)
     * @param tenant the tenant of stdio callers
     * @param project the project of stdio callers, and the preferred project of HTTP callers
     * @return the mapping
     */
    static McpProcessMapping perSession(InMemoryProcessStore store, WorkTargetDispatcher dispatcher, String tenant,
                                        String project) {
        return new PerSessionProcesses(store, dispatcher, tenant, project);
    }
}
