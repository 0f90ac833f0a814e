package org.vancetope.worktarget.spi;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A snapshot of one process of the host (an agent run, a "think process"): its identity, its place
 * in the spawn tree and scope, and its {@code engineParams} map, where the WorkTarget is kept under
 * the key {@code "workTarget"}.
 *
 * @param id the process id
 * @param parentId the spawning process, or null for a root process
 * @param sessionId the session, or null
 * @param tenant the tenant
 * @param project the project
 * @param user the user login, or null
 * @param engineParams a snapshot of the engine parameters (unmodifiable)
 */
public record ProcessInfo(String id, String parentId, String sessionId, String tenant, String project, String user,
                          Map<String, Object> engineParams) {

    /**
     * Validates and copies.
     *
     * @param id the process id
     * @param parentId the spawning process, or null for a root process
     * @param sessionId the session, or null
     * @param tenant the tenant
     * @param project the project
     * @param user the user login, or null
     * @param engineParams a snapshot of the engine parameters (unmodifiable)
     */
    public ProcessInfo {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(project, "project");
        engineParams = engineParams == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(engineParams));
    }
}
