package org.vancetope.worktarget.spi;

import java.util.Objects;
import java.util.Set;

/**
 * Who a token belongs to: a subject, the tenant it may act in, the projects it may serve and, for a
 * foot, the user.
 *
 * @param subject a name for logs
 * @param tenant the one tenant the principal is granted
 * @param projects the projects it may serve; the single entry {@code "*"} grants all of the tenant's
 * @param user the user login, or null (daemons)
 */
public record AuthPrincipal(String subject, String tenant, Set<String> projects, String user) {

    /**
     * Validates and copies.
     *
     * @param subject a name for logs
     * @param tenant the one tenant the principal is granted
     * @param projects the projects it may serve; the single entry {@code "*"} grants all of the tenant's
     * @param user the user login, or null (daemons)
     */
    public AuthPrincipal {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(tenant, "tenant");
        projects = Set.copyOf(projects);
    }

    /**
     * Whether the principal may serve a project of a tenant.
     *
     * @param tenant the tenant asked for
     * @param project the project asked for, or null when only the tenant matters
     * @return true when granted
     */
    public boolean mayServe(String tenant, String project) {
        if (!this.tenant.equals(tenant)) {
            return false;
        }
        return project == null || projects.contains("*") || projects.contains(project);
    }
}
