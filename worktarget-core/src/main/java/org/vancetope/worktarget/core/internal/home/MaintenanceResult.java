package org.vancetope.worktarget.core.internal.home;

/**
 * What a maintenance step did to the homes tree.
 *
 * @param changed whether a home was deleted or moved
 * @param deleteNote for a project delete under a shared (tenant or user) scope: why the shared home
 *                   stays; otherwise null
 * @param renameBlocker for a blocked rename: why it was not done (the target exists); otherwise null
 */
public record MaintenanceResult(boolean changed, String deleteNote, String renameBlocker) {

    static MaintenanceResult done() {
        return new MaintenanceResult(true, null, null);
    }

    static MaintenanceResult nothing() {
        return new MaintenanceResult(false, null, null);
    }
}
