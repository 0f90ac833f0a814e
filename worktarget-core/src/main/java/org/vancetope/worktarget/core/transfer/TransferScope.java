package org.vancetope.worktarget.core.transfer;

import java.util.Objects;

/**
 * The tenant and project a transfer runs for: the Foot sandboxes files under
 * {@code <footRoot>/<tenant>/<project>/}, the Brain looks RootDirs up in the project.
 *
 * @param tenant the tenant
 * @param project the project id
 */
public record TransferScope(String tenant, String project) {
    /**
     * Validates.
     *
     * @param tenant the tenant
     * @param project the project id
     */
    public TransferScope {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(project, "project");
    }
}
