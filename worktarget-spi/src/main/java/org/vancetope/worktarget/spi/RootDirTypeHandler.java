package org.vancetope.worktarget.spi;

import java.io.IOException;

/**
 * The lifecycle of one RootDir type ({@code temp}, {@code ephemeral}, or an integrator's own, such as
 * a git checkout): what happens on init, suspend, recover and close.
 */
public interface RootDirTypeHandler {

    /**
     * The type name, e.g. {@code "ephemeral"}.
     *
     * @return the type
     */
    String type();

    /**
     * Prepares a new RootDir (for example creates the empty directory).
     *
     * @param dir the RootDir
     * @throws IOException when it cannot be prepared
     */
    void init(RootDirHandle dir) throws IOException;

    /**
     * Called before the project is suspended (for example persists the content elsewhere).
     *
     * @param dir the RootDir
     * @throws IOException on failure
     */
    void suspend(RootDirHandle dir) throws IOException;

    /**
     * Called when a suspended project comes back.
     *
     * @param dir the RootDir
     * @throws IOException on failure
     */
    void recover(RootDirHandle dir) throws IOException;

    /**
     * Disposes the RootDir (for example deletes the directory).
     *
     * @param dir the RootDir
     * @throws IOException on failure
     */
    void close(RootDirHandle dir) throws IOException;
}
