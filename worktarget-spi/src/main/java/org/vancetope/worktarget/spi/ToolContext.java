package org.vancetope.worktarget.spi;

import java.util.Objects;

/**
 * Who runs a backend tool: the calling process and its scope. Backends use it to find the process's
 * RootDirs, job scope and HOME; they never see WorkTargets.
 *
 * @param processId the calling process
 * @param sessionId the session the process belongs to, or null
 * @param tenant the tenant
 * @param project the project
 * @param user the user login, or null when there is no user context
 */
public record ToolContext(String processId, String sessionId, String tenant, String project, String user) {

    /** Validates the required fields. */
    public ToolContext {
        Objects.requireNonNull(processId, "processId");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(project, "project");
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
}
