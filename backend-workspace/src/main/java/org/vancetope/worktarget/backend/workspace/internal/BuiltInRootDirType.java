package org.vancetope.worktarget.backend.workspace.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.RootDirHandle;
import org.vancetope.worktarget.spi.RootDirTypeHandler;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The two built-in RootDir types, which differ only in whether content survives a suspend:
 * <ul>
 *   <li>{@code temp}: the lazy scratch RootDir of one process. Init creates the folder, suspend keeps
 *       the content where it is, recover recreates a missing folder, close deletes it.</li>
 *   <li>{@code ephemeral}: one per transfer or bundle. Init creates an empty folder;
 *       suspend does nothing (the content is not persisted); recover creates an empty folder (the content
 *       is gone); close deletes the folder recursively.</li>
 * </ul>
 */
public final class BuiltInRootDirType implements RootDirTypeHandler {
    /** The type name of the scratch RootDir. */
    public static final String TEMP = "temp";
    /** The type name of transfer RootDirs. */
    public static final String EPHEMERAL = "ephemeral";

    private final String type;
    private final boolean keepsContent;

    private BuiltInRootDirType(String type, boolean keepsContent) {
        this.type = type;
        this.keepsContent = keepsContent;
    }

    /**
     * The {@code temp} type.
     *
     * @return a handler
     */
    public static BuiltInRootDirType temp() {
        return new BuiltInRootDirType(TEMP, true);
    }

    /**
     * The {@code ephemeral} type.
     *
     * @return a handler
     */
    public static BuiltInRootDirType ephemeral() {
        return new BuiltInRootDirType(EPHEMERAL, false);
    }

    @Override
    public String type() {
        return type;
    }

    @Override
    public void init(RootDirHandle dir) throws IOException {
        prepare(dir);
    }

    @Override
    public void suspend(RootDirHandle dir) {
        // temp: the content stays on disk; ephemeral: it is not persisted, recover empties the folder
    }

    @Override
    public void recover(RootDirHandle dir) throws IOException {
        prepare(dir);
    }

    /**
     * Creates the folder in its (trusted) project directory without following a link; an ephemeral one
     * is emptied by handle first.
     */
    private void prepare(RootDirHandle dir) throws IOException {
        ConfinedRoot project = project(dir);
        Path folder = entry(project, dir);
        if (!keepsContent) {
            project.deleteTree(folder);
        }
        project.openOrCreate(folder).close();
    }

    /** Deletes the folder and everything in it by directory handle: a link a job left inside is deleted, never followed. */
    @Override
    public void close(RootDirHandle dir) throws IOException {
        ConfinedRoot project = project(dir);
        project.deleteTree(entry(project, dir));
    }

    private static ConfinedRoot project(RootDirHandle dir) throws IOException {
        Path parent = dir.path().toAbsolutePath().normalize().getParent();
        Files.createDirectories(parent);
        return ConfinedRoot.of(parent);
    }

    private static Path entry(ConfinedRoot project, RootDirHandle dir) throws IOException {
        try {
            return project.resolveEntry(dir.path().getFileName().toString());
        } catch (ToolException e) {
            throw new IOException(e.getMessage(), e);
        }
    }
}
