package org.vancetope.worktarget.backend.workspace;

/**
 * Hears about RootDirs being created and disposed, e.g. so that an exec engine can kill the jobs that
 * run in a RootDir before it is deleted. Methods must be fast and must not throw; a throwing listener
 * is logged and ignored.
 *
 * <pre>{@code
 * workspace.addListener(new RootDirListener() {
 *     public void disposing(RootDirInfo dir) { jobs.killAllIn(dir.path()); }
 * });
 * }</pre>
 */
public interface RootDirListener {

    /**
     * A RootDir was created and initialised.
     *
     * @param dir the new RootDir
     */
    default void created(RootDirInfo dir) {
    }

    /**
     * A RootDir is about to be disposed: from now on no new call may use it. Its handler's {@code close}
     * runs next, or, when calls still work in it, once the last of them has returned.
     *
     * @param dir the RootDir
     */
    default void disposing(RootDirInfo dir) {
    }

    /**
     * A RootDir was disposed: its handler closed it (its folder is gone, unless that failed, which is
     * logged) and its descriptor is deleted. A RootDir of the same name may be created again from now on.
     *
     * @param dir the RootDir
     */
    default void disposed(RootDirInfo dir) {
    }
}
