package org.vancetope.worktarget.core;

import java.io.IOException;

/**
 * Maintenance of the per-scope HOME directories of a workspace's jobs, for when a project or a user is
 * deleted or renamed in the host application. Every name must be a safe single path segment; a rename
 * never merges into an existing home.
 *
 * <pre>{@code
 * HomeMaintenance.Result r = workspace.homes().deleteProject("acme", "old-project");
 * if (r.deleteNote() != null) log.info(r.deleteNote());
 * }</pre>
 */
public interface HomeMaintenance {

    /**
     * What a maintenance step did.
     *
     * @param changed whether a home was deleted or moved
     * @param deleteNote for a project delete under a shared (tenant or user) home scope: why the shared
     *                   home stays; otherwise null
     * @param renameBlocker for a blocked rename: why it was not done (the target exists); otherwise null
     */
    record Result(boolean changed, String deleteNote, String renameBlocker) {
    }

    /**
     * Deletes the project-scoped home of a project, if it exists. When the project's home scope is the
     * tenant or the user, the shared home stays and the result says so.
     *
     * @param tenant the tenant
     * @param project the project
     * @return what happened
     * @throws IOException when the home cannot be deleted
     */
    Result deleteProject(String tenant, String project) throws IOException;

    /**
     * Deletes the home of a user.
     *
     * @param tenant the tenant
     * @param login the user login
     * @return what happened
     * @throws IOException when the home cannot be deleted
     */
    Result deleteUser(String tenant, String login) throws IOException;

    /**
     * Moves a project's home to its new name; blocked (nothing moved) when the target exists.
     *
     * @param tenant the tenant
     * @param from the old project name
     * @param to the new project name
     * @return what happened
     * @throws IOException when the move fails
     */
    Result renameProject(String tenant, String from, String to) throws IOException;

    /**
     * Moves a user's home to the new login; blocked (nothing moved) when the target exists.
     *
     * @param tenant the tenant
     * @param from the old login
     * @param to the new login
     * @return what happened
     * @throws IOException when the move fails
     */
    Result renameUser(String tenant, String from, String to) throws IOException;
}
