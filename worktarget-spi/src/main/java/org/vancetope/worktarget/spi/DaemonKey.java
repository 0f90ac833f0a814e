package org.vancetope.worktarget.spi;

import java.util.Objects;

/**
 * The routing key of a daemon: a named {@code profile=daemon} client within one project.
 *
 * @param tenant the tenant
 * @param project the project
 * @param name the daemon name
 */
public record DaemonKey(String tenant, String project, String name) {
    /** Validates. */
    public DaemonKey {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(project, "project");
        Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
        return tenant + "/" + project + "/" + name;
    }
}
