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
     * A RootDir is about to be disposed (its handler's {@code close} runs next).
     *
     * @param dir the RootDir
     */
    default void disposing(RootDirInfo dir) {
    }
}
