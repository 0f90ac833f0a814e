package org.vancetope.worktarget.backend.workspace.internal;

import java.io.IOException;
import java.nio.file.Files;
import org.vancetope.worktarget.core.internal.Trees;
import org.vancetope.worktarget.spi.RootDirHandle;
import org.vancetope.worktarget.spi.RootDirTypeHandler;

/**
 * The built-in {@code temp} type: the lazy scratch RootDir of one process. Init creates the folder,
 * suspend keeps the content where it is, recover recreates a missing folder, close deletes it.
 */
public final class TempRootDirType implements RootDirTypeHandler {
    /** The type name. */
    public static final String TYPE = "temp";

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public void init(RootDirHandle dir) throws IOException {
        Files.createDirectories(dir.path());
    }

    @Override
    public void suspend(RootDirHandle dir) {
        // content stays on disk
    }

    @Override
    public void recover(RootDirHandle dir) throws IOException {
        Files.createDirectories(dir.path());
    }

    @Override
    public void close(RootDirHandle dir) throws IOException {
        Trees.deleteRecursively(dir.path());
    }
}
