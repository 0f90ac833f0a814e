package org.vancetope.worktarget.backend.workspace.internal;

import java.io.IOException;
import org.vancetope.worktarget.core.internal.Trees;
import org.vancetope.worktarget.spi.RootDirHandle;
import org.vancetope.worktarget.spi.RootDirTypeHandler;

/**
 * The built-in {@code ephemeral} type (transfer spec §2): one per transfer or bundle. Init creates an
 * empty folder; suspend does nothing (the content is not persisted); recover creates an empty folder
 * (the content is gone); close deletes the folder recursively.
 */
public final class EphemeralRootDirType implements RootDirTypeHandler {
    /** The type name. */
    public static final String TYPE = "ephemeral";

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public void init(RootDirHandle dir) throws IOException {
        Trees.recreateEmpty(dir.path());
    }

    @Override
    public void suspend(RootDirHandle dir) {
        // not persisted: content does not survive a suspend
    }

    @Override
    public void recover(RootDirHandle dir) throws IOException {
        Trees.recreateEmpty(dir.path());
    }

    @Override
    public void close(RootDirHandle dir) throws IOException {
        Trees.deleteRecursively(dir.path());
    }
}
