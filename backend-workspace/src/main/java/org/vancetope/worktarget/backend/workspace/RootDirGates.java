package org.vancetope.worktarget.backend.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * From a RootDir to the directory a tool may work in: the named lookup with its {@code not_found}
 * message, the check that a RootDir's folder is a plain directory inside the workspace (recovering a
 * missing one through its type handler), and one confinement gate ({@link ConfinedRoot}) per RootDir
 * folder, whose first use sweeps the staging leftovers of crashed processes.
 *
 * <p>It does not create or dispose RootDirs ({@link RootDirLifecycle} does, and tells it to
 * {@link #forget} a folder) and does not run tools.
 */
final class RootDirGates {
    private static final Logger LOG = LoggerFactory.getLogger(RootDirGates.class);

    private final RootDirIndex index;
    private final RootDirTypes types;
    private final FileToolSettings settings;
    private final RootDirUse use;
    private final Map<Path, ConfinedRoot> gates = new ConcurrentHashMap<>();

    RootDirGates(RootDirIndex index, RootDirTypes types, FileToolSettings settings, RootDirUse use) {
        this.index = index;
        this.types = types;
        this.settings = settings;
        this.use = use;
    }

    /**
     * Deletes what processes that crashed left at the top of every RootDir (staged files of a transfer or
     * a write that never finished): they are hidden from the tools, but take space.
     */
    void sweepAtStart() {
        int swept = 0;
        for (Map<String, RootDirInfo> dirs : index.allProjects()) {
            for (RootDirInfo info : dirs.values()) {
                try {
                    swept += ConfinedRoot.of(info.path()).sweep();
                } catch (IOException e) {
                    LOG.debug("RootDir {}/{}/{} has no folder to sweep yet", info.tenant(), info.project(), info.dirName());
                }
            }
        }
        if (swept > 0) {
            LOG.info("Deleted {} staging entries that crashed processes left in RootDirs", swept);
        }
    }

    /**
     * The directory of a named RootDir.
     *
     * @throws ToolException {@code path_escape} for an unsafe name, {@code not_found} for an unknown RootDir
     */
    Path resolve(String tenant, String project, String dirName) throws ToolException {
        Segments.require("tenant", tenant);
        Segments.requireProject(project);
        Segments.require("dirName", dirName);
        RootDirInfo info = index.project(tenant, project).get(dirName);
        if (info == null) {
            List<String> names = index.names(tenant, project);
            throw new ToolException(ErrorCode.NOT_FOUND, "RootDir '" + dirName + "' does not exist in project '"
                    + project + "'. Existing: " + Params.names(names)
                    + ". Omit dirName to work in the process's temporary RootDir.");
        }
        return checkedDir(info);
    }

    /**
     * The canonical folder of a RootDir, recreated by its handler when missing.
     *
     * @throws ToolException {@code path_escape} when it is not a plain directory inside the workspace,
     *         {@code internal} when it cannot be prepared
     */
    Path checkedDir(RootDirInfo info) throws ToolException {
        use.enter(info);
        if (index.project(info.tenant(), info.project()).get(info.dirName()) != info) {
            // deleted between the lookup and enter: what the caller found is gone
            use.leave(info);
            throw new ToolException(ErrorCode.NOT_FOUND, "RootDir '" + info.dirName() + "' was deleted just now (its "
                    + "process ended, or the host deleted it). Retry: without dirName, a process gets a new temporary "
                    + "RootDir.");
        }
        Path expected = info.path();
        try {
            if (!Files.isDirectory(expected, LinkOption.NOFOLLOW_LINKS)) {
                if (Files.exists(expected, LinkOption.NOFOLLOW_LINKS)) {
                    throw new ToolException(ErrorCode.PATH_ESCAPE, "RootDir '" + info.dirName() + "' is not a plain "
                            + "directory inside the workspace; it cannot be used.");
                }
                types.handler(info.type()).recover(info.handle());
            }
            Path real = expected.toRealPath();
            if (!real.equals(expected)) {
                throw new ToolException(ErrorCode.PATH_ESCAPE, "RootDir '" + info.dirName() + "' is not a plain "
                        + "directory inside the workspace; it cannot be used.");
            }
            return real;
        } catch (IOException e) {
            throw new ToolException(ErrorCode.INTERNAL, "RootDir '" + info.dirName() + "' cannot be prepared.", e);
        }
    }

    /**
     * The confinement gate of a checked RootDir folder, with the file tools' path limits; made once per
     * folder, and its first use sweeps staging leftovers.
     *
     * @throws ToolException {@code internal} when the folder cannot be opened
     */
    ConfinedRoot gate(Path dir) throws ToolException {
        ConfinedRoot g = gates.get(dir);
        if (g != null) {
            return g;
        }
        try {
            g = ConfinedRoot.of(dir, settings.maxPathLength(), settings.maxComponentLength());
        } catch (IOException e) {
            throw new ToolException(ErrorCode.INTERNAL, "The RootDir cannot be opened.", e);
        }
        if (gates.putIfAbsent(dir, g) == null) {
            g.sweep(); // the first use since start: leftovers of a crashed process go
        }
        return gates.get(dir);
    }

    /** Drops the gate of a folder that was disposed, suspended or recovered; the next use opens a new one. */
    void forget(Path dir) {
        gates.remove(dir);
    }
}
