package org.vancetope.worktarget.backend.workspace;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.workspace.internal.BuiltInRootDirType;
import org.vancetope.worktarget.backend.workspace.internal.Descriptors;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The lifetime of RootDirs: creating one (descriptor, folder, type handler {@code init}, listeners'
 * {@code created}), the per-process {@code temp} RootDir made on first use, disposing one (listeners'
 * {@code disposing}, handler {@code close}, descriptor deleted), disposing a closed process's RootDirs
 * with {@code deleteOnCreatorClose}, and suspending or recovering a project. All of it under one lock.
 *
 * <p>It does not resolve RootDirs for tools ({@link RootDirGates} does) and does not know about jobs:
 * the backend stops a RootDir's jobs through a {@link RootDirListener}.
 */
final class RootDirLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(RootDirLifecycle.class);

    private final RootDirIndex index;
    private final RootDirTypes types;
    private final RootDirGates gates;
    private final Clock clock;
    private final List<RootDirListener> listeners = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();

    private final int maxPerProject;
    /** This backend's run, named in the descriptors of RootDirs that go with their creator; null when off. */
    private final WorkspaceRuns run;

    /** The calls working in each RootDir: a RootDir is deleted only once they have returned. */
    private final RootDirUse use;

    RootDirLifecycle(RootDirIndex index, RootDirTypes types, RootDirGates gates, RootDirUse use, Clock clock,
                     List<RootDirListener> listeners, int maxPerProject, WorkspaceRuns run) {
        this.use = use;
        this.maxPerProject = maxPerProject;
        this.run = run;
        this.index = index;
        this.types = types;
        this.gates = gates;
        this.clock = clock;
        this.listeners.addAll(listeners);
    }

    void addListener(RootDirListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    void removeListener(RootDirListener listener) {
        listeners.remove(listener);
    }

    /** See {@link WorkspaceBackend#tempRootDir}. */
    RootDirInfo tempRootDir(ToolContext ctx) throws ToolException {
        Segments.require("tenant", ctx.tenant());
        Segments.requireProject(ctx.project());
        String name = tempName(ctx.processId());
        RootDirInfo existing = index.project(ctx.tenant(), ctx.project()).get(name);
        if (existing != null) {
            return existing;
        }
        return create(ctx, name, BuiltInRootDirType.TEMP, "temp of process " + ctx.processId(), true, Map.of(), true);
    }

    private static String tempName(String processId) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(processId.getBytes(StandardCharsets.UTF_8));
            return "temp-" + HexFormat.of().formatHex(h, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }

    /** See {@link WorkspaceBackend#createRootDir}. */
    RootDirInfo createRootDir(ToolContext creator, String dirName, String type, String label,
                              Boolean deleteOnCreatorClose, Map<String, String> metadata) throws ToolException {
        Segments.require("tenant", creator.tenant());
        Segments.requireProject(creator.project());
        if (!types.isKnown(type)) {
            throw Params.invalid("Unknown RootDir type '" + type + "'. Known: " + String.join(", ", types.names()) + ".");
        }
        boolean delete = deleteOnCreatorClose != null ? deleteOnCreatorClose : types.deleteOnCreatorCloseDefault(type);
        Map<String, String> meta = metadata == null ? Map.of() : metadata;
        if (dirName != null) {
            Segments.require("dirName", dirName);
            return create(creator, dirName, type, label, delete, meta, false);
        }
        // a generated name has 32 random bits: taken by another RootDir once in a while, then drawn again
        for (int attempt = 1; ; attempt++) {
            String name = type + "-" + UUID.randomUUID().toString().substring(0, 8);
            Segments.require("dirName", name);
            try {
                return create(creator, name, type, label, delete, meta, false);
            } catch (ToolException e) {
                if (e.code() != ErrorCode.EXISTS || attempt == 5) {
                    throw e;
                }
            }
        }
    }

    private RootDirInfo create(ToolContext creator, String name, String type, String label, boolean delete,
                               Map<String, String> metadata, boolean reuse) throws ToolException {
        ConfinedRoot workspace = index.workspace();
        synchronized (lock) {
            Map<String, RootDirInfo> dirs = index.project(creator.tenant(), creator.project());
            RootDirInfo existing = dirs.get(name);
            if (existing != null) {
                if (reuse) {
                    return existing;
                }
                throw new ToolException(ErrorCode.EXISTS, "RootDir '" + name + "' already exists in project '"
                        + creator.project() + "'. Choose another name.");
            }
            if (!reuse && dirs.size() >= maxPerProject) {
                throw new ToolException(ErrorCode.SIZE_LIMIT, "Project '" + creator.project() + "' holds "
                        + dirs.size() + " RootDirs, the most it may (maxRootDirsPerProject " + maxPerProject + "); no "
                        + "RootDir was made. Use one you made before: a RootDir made with deleteOnCreatorClose (the "
                        + "default) goes when the process that made it ends, the others stay until the operator "
                        + "deletes them (WorkspaceBackend.deleteRootDir) or raises the limit.");
            }
            Path dir = index.projectDir(creator.tenant(), creator.project()).resolve(name);
            if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new ToolException(ErrorCode.EXISTS, "A directory named '" + name + "' already exists in project '"
                        + creator.project() + "' without a descriptor. Choose another name.");
            }
            RootDirInfo info = new RootDirInfo(creator.tenant(), creator.project(), name, type, label,
                    creator.processId(), clock.instant(), delete, metadata, dir);
            String projectPath = creator.tenant() + "/" + creator.project();
            try {
                // the tenant's and the project's directories: no other user of the machine enters them
                workspace.openOrCreatePrivate(workspace.resolve(projectPath)).close();
                Descriptors.write(workspace, info, delete && run != null ? run.run() : null);
                types.handler(type).init(info.handle());
            } catch (IOException | RuntimeException e) {
                try {
                    Descriptors.delete(workspace, creator.tenant(), creator.project(), name);
                    workspace.deleteTree(workspace.resolveEntry(projectPath + "/" + name));
                } catch (IOException | ToolException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw new ToolException(ErrorCode.INTERNAL, "RootDir '" + name + "' could not be created.", e);
            }
            dirs.put(name, info);
            for (RootDirListener l : listeners) {
                try {
                    l.created(info);
                } catch (RuntimeException e) {
                    LOG.warn("A RootDirListener threw on created; ignoring it", e);
                }
            }
            return info;
        }
    }

    /** See {@link WorkspaceBackend#deleteRootDir}. */
    boolean deleteRootDir(String tenant, String project, String dirName) throws ToolException {
        Segments.require("tenant", tenant);
        Segments.requireProject(project);
        Segments.require("dirName", dirName);
        synchronized (lock) {
            RootDirInfo info = index.project(tenant, project).get(dirName);
            if (info == null) {
                return false;
            }
            dispose(info);
            return true;
        }
    }

    /** See {@link WorkspaceBackend#closeProcess}. */
    List<RootDirInfo> closeProcess(String processId) {
        Objects.requireNonNull(processId, "processId");
        index.loadAll();
        List<RootDirInfo> disposed = new ArrayList<>();
        synchronized (lock) {
            for (Map<String, RootDirInfo> dirs : index.allProjects()) {
                for (RootDirInfo info : List.copyOf(dirs.values())) {
                    if (info.deleteOnCreatorClose() && info.creatorProcessId().equals(processId)) {
                        dispose(info);
                        disposed.add(info);
                    }
                }
            }
        }
        return disposed;
    }

    /**
     * The RootDirs that go with their creator and were made by runs of a backend that ended without ending
     * their processes (killed, or closed first): with processes that end with their JVM, nothing ends them
     * any more. The RootDirs of runs still open, here or in another JVM, of other hosts, and those whose
     * descriptor names no run are not among them.
     *
     * @return the RootDirs, in no order
     */
    /** The directory of every RootDir of every project, now. */
    List<Path> allPaths() {
        List<Path> out = new ArrayList<>();
        synchronized (lock) {
            for (Map<String, RootDirInfo> dirs : index.allProjects()) {
                for (RootDirInfo info : dirs.values()) {
                    out.add(info.path());
                }
            }
        }
        return out;
    }

    List<RootDirInfo> leftoversOfEndedRuns() {
        List<RootDirInfo> out = new ArrayList<>();
        Map<String, Boolean> ended = new HashMap<>();
        synchronized (lock) {
            for (Map<String, RootDirInfo> dirs : index.allProjects()) {
                for (RootDirInfo info : dirs.values()) {
                    if (!info.deleteOnCreatorClose()) {
                        continue;
                    }
                    String other = index.run(info);
                    if (other != null && !other.equals(run.run())
                            && ended.computeIfAbsent(other, WorkspaceRuns::ended)) {
                        out.add(info);
                    }
                }
            }
        }
        return out;
    }

    /**
     * Disposes leftovers of ended runs ({@link #leftoversOfEndedRuns}) that are still there, except those of
     * the processes given: they came back, and their RootDirs go when they end.
     *
     * @param leftovers the RootDirs
     * @param cameBack the ids of processes that used this backend since
     * @return the disposed RootDirs
     */
    List<RootDirInfo> disposeLeftovers(List<RootDirInfo> leftovers, Set<String> cameBack) {
        List<RootDirInfo> disposed = new ArrayList<>();
        synchronized (lock) {
            for (RootDirInfo info : leftovers) {
                if (!cameBack.contains(info.creatorProcessId())
                        && index.project(info.tenant(), info.project()).get(info.dirName()) == info) {
                    dispose(info);
                    disposed.add(info);
                }
            }
        }
        if (!disposed.isEmpty()) {
            LOG.info("Removed the RootDirs that processes of ended runs left ({}; the runs ended without ending "
                    + "their processes, and the processes did not come back): {}", disposed.size(), disposed.stream()
                    .map(i -> i.tenant() + "/" + i.project() + "/" + i.dirName() + " of process " + i.creatorProcessId())
                    .toList());
        }
        return disposed;
    }

    /**
     * Disposes a RootDir: new calls are refused it, listeners hear {@code disposing} (its jobs are killed),
     * and once no call works in it any more (now, or when the last returns), the type handler closes it and
     * the descriptor goes. A RootDir being disposed already is left to that.
     */
    private void dispose(RootDirInfo info) {
        if (!use.startDeleting(info)) {
            return;
        }
        for (RootDirListener l : listeners) {
            try {
                l.disposing(info);
            } catch (RuntimeException e) {
                LOG.warn("A RootDirListener threw on disposing; ignoring it", e);
            }
        }
        use.whenFree(info, () -> {
            synchronized (lock) {
                delete(info);
            }
        });
    }

    private void delete(RootDirInfo info) {
        boolean closed = true;
        try {
            types.handler(info.type()).close(info.handle());
        } catch (IOException | RuntimeException e) {
            closed = false;
            LOG.warn("Closing RootDir {}/{}/{} failed; its directory remains, and so does its descriptor, so the next "
                    + "backend to open this workspace lists it and tries again", info.tenant(), info.project(),
                    info.dirName(), e);
        }
        if (closed) {
            // (a directory left without its descriptor would be out of every tool's reach, counting on disk)
            try {
                Descriptors.delete(index.workspace(), info.tenant(), info.project(), info.dirName());
            } catch (IOException e) {
                LOG.warn("Deleting the descriptor of RootDir {}/{}/{} failed", info.tenant(), info.project(),
                        info.dirName(), e);
            }
        }
        gates.forget(info.path());
        index.remove(info);
        for (RootDirListener l : listeners) {
            try {
                l.disposed(info);
            } catch (RuntimeException e) {
                LOG.warn("A RootDirListener threw on disposed; ignoring it", e);
            }
        }
    }

    /**
     * Runs every RootDir handler's {@code suspend} (or {@code recover}) for a project.
     *
     * @throws ToolException {@code path_escape} for unsafe names, {@code internal} when a handler fails
     */
    void lifecycle(String tenant, String project, boolean suspend) throws ToolException {
        Segments.require("tenant", tenant);
        Segments.requireProject(project);
        synchronized (lock) {
            for (RootDirInfo info : index.list(tenant, project)) {
                try {
                    if (suspend) {
                        types.handler(info.type()).suspend(info.handle());
                    } else {
                        types.handler(info.type()).recover(info.handle());
                    }
                } catch (IOException e) {
                    throw new ToolException(ErrorCode.INTERNAL, "RootDir '" + info.dirName() + "' could not be "
                            + (suspend ? "suspended" : "recovered") + ".", e);
                }
                gates.forget(info.path());
            }
        }
    }
}
