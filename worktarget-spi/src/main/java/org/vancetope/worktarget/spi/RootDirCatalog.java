package org.vancetope.worktarget.spi;

import java.util.List;

/**
 * Lists the named RootDirs of a project, for {@code work_target_get} and for the transfer tools'
 * {@code dirName} precondition. Implemented by {@code backend-workspace}.
 */
public interface RootDirCatalog {

    /**
     * The names of the project's RootDirs.
     *
     * @param tenant the tenant
     * @param project the project
     * @return the names, sorted
     */
    List<String> rootDirNames(String tenant, String project);
}
