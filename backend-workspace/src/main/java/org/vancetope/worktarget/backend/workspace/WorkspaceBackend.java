package org.vancetope.worktarget.backend.workspace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.workspace.internal.Descriptors;
import org.vancetope.worktarget.backend.workspace.internal.BuiltInRootDirType;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.HomeMaintenance;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.core.internal.exec.ExecEngine;
import org.vancetope.worktarget.core.internal.exec.ExecResolver;
import org.vancetope.worktarget.core.internal.exec.ExecResolvers;
import org.vancetope.worktarget.core.internal.exec.ExecSetup;
import org.vancetope.worktarget.core.internal.exec.ExecTools;
import org.vancetope.worktarget.core.internal.home.ExecEnvPolicy;
import org.vancetope.worktarget.core.internal.home.Homes;
import org.vancetope.worktarget.core.internal.file.FileEngine;
import org.vancetope.worktarget.core.internal.file.FileTools;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.core.transfer.EphemeralDirCreator;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.BackendToolProvider;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.RootDirCatalog;
import org.vancetope.worktarget.spi.RootDirTypeHandler;
import org.vancetope.worktarget.spi.SettingsCascade;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The WORK backend: server-side RootDirs at {@code <workspaceRoot>/<tenant>/<project>/<dirName>/} and
 * the {@code work_file_*} tools confined to them.
 *
 * <p>A call without {@code dirName} works in the calling process's {@code temp} RootDir, created on
 * first use and disposed by {@link #closeProcess(String)}. Named RootDirs are created with
 * {@link #createRootDir} (any registered type) or {@link #createEphemeral} (transfers). Each RootDir has
 * a descriptor (type, label, creator, creation time, {@code deleteOnCreatorClose}, metadata) kept in
 * the project's {@code .rootdirs} directory, outside every RootDir. Tenant, project and {@code dirName}
 * pass the segment check before any lookup.
 *
 * <pre>{@code
 * WorkspaceBackend work = WorkspaceBackend.builder()
 *         .workspaceRoot(Path.of("/srv/worktarget/workspaces"))
 *         .rootDirType(new GitCheckoutType(), false)      // an integrator's own type
 *         .build();
 * WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder()
 *         .processStore(store).backend(work).rootDirCatalog(work).build();
 * String drop = work.createEphemeral(ctx, Map.of("purpose", "user-upload"));
 * Path where = work.resolveRoot(ctx.tenant(), ctx.project(), drop);
 * }</pre>
 *
 * <p>The {@code work_exec_*} tools run jobs in the RootDir with a sealed environment and the scoped
 * HOME of the caller's project, tenant or user ({@link #homes()}); disposing a RootDir kills its jobs,
 * {@link #close()} kills them all. It does not persist RootDir content across a suspend beyond what
 * the type handlers do.
 */
public final class WorkspaceBackend implements BackendToolProvider, RootDirCatalog, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkspaceBackend.class);
    /** The name of the built-in per-process scratch type. */
    public static final String TEMP = BuiltInRootDirType.TEMP;
    /** The name of the built-in transfer drop-box type (transfer spec §2). */
    public static final String EPHEMERAL = BuiltInRootDirType.EPHEMERAL;

    private final Path root;
    /** The workspace's own layout (project directories, descriptors, RootDir folders) goes through this root. */
    private final ConfinedRoot workspace;
    private final Map<String, RootDirTypeHandler> handlers;
    private final Map<String, Boolean> deleteDefaults;
    private final FileEngine engine;
    private final ExecEngine exec;
    private final Homes homes;
    private final List<BackendTool> tools;
    private final Clock clock;
    private final List<RootDirListener> listeners = new CopyOnWriteArrayList<>();
    private final Map<String, Map<String, RootDirInfo>> projects = new ConcurrentHashMap<>();
    private final Map<Path, ConfinedRoot> gates = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private volatile boolean allLoaded;

    private WorkspaceBackend(Builder b) throws IOException {
        this.root = Files.createDirectories(b.root.toAbsolutePath()).toRealPath();
        this.workspace = ConfinedRoot.of(root);
        this.handlers = Map.copyOf(b.handlers);
        this.deleteDefaults = Map.copyOf(b.deleteDefaults);
        this.engine = new FileEngine(b.settings);
        this.clock = b.clock;
        this.listeners.addAll(b.listeners);
        this.homes = Homes.builder().workspaceRoot(root).homesRoot(b.homesRoot).settings(b.settingsCascade)
                .maxBytes(b.homeMaxBytes).clock(b.clock).build();
        this.exec = ExecSetup.engine(b.execSettings, b.hostEnv, true);
        List<BackendTool> all = new ArrayList<>(FileTools.create(ToolCatalog.WORK_PREFIX, engine, (params, ctx) -> {
            String dirName = Params.optString(params, ToolCatalog.DIR_NAME, null);
            return gate(resolveRoot(ctx, dirName));
        }));
        all.addAll(ExecTools.create(exec, ToolCatalog.WORK_PREFIX, ExecResolvers.work(
                (params, ctx) -> gate(resolveRoot(ctx, Params.optString(params, ToolCatalog.DIR_NAME, null))),
                homes, ExecEnvPolicy.work(b.hostEnv))));
        this.tools = List.copyOf(all);
        // Jobs never outlive the RootDir they run in.
        this.listeners.add(new RootDirListener() {
            @Override
            public void disposing(RootDirInfo dir) {
                exec.closeRoot(dir.path());
            }
        });
        sweepAtStart();
    }

    /**
     * Deletes what processes that crashed left at the top of every RootDir (staged files of a transfer or
     * a write that never finished): they are hidden from the tools, but take space.
     */
    private void sweepAtStart() {
        loadAll();
        int swept = 0;
        for (Map<String, RootDirInfo> dirs : projects.values()) {
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
     * Maintenance of the per-scope homes of this workspace's jobs, for when the host deletes or renames a
     * project or a user.
     *
     * @return the homes
     */
    public HomeMaintenance homes() {
        return homes;
    }

    /**
     * Kills every job of this backend and waits for it (whole process trees: SIGTERM, up to the grace
     * period {@code killGraceMs} for them to end, then SIGKILL to what still runs, before it returns) and
     * releases the exec engine. RootDirs stay on disk.
     */
    @Override
    public void close() {
        exec.close();
    }

    /**
     * A builder.
     *
     * @return a builder with the built-in {@code temp} and {@code ephemeral} types
     */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return "workspace";
    }

    /**
     * The thirteen {@code work_*} tools (nine file, four exec), with the catalog's specs.
     *
     * @return the tools
     */
    @Override
    public List<BackendTool> tools() {
        return tools;
    }

    /**
     * The canonical workspace root.
     *
     * @return the root
     */
    public Path workspaceRoot() {
        return root;
    }

    /**
     * Registers a listener at runtime (for components built after the backend, such as an exec engine).
     *
     * @param listener the listener
     */
    public void addListener(RootDirListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Removes a listener.
     *
     * @param listener the listener
     */
    public void removeListener(RootDirListener listener) {
        listeners.remove(listener);
    }

    // ------------------------------------------------------------------------------------- catalog

    @Override
    public List<String> rootDirNames(String tenant, String project) {
        if (!Segments.isSafe(tenant) || !Segments.isSafe(project)) {
            return List.of();
        }
        return project(tenant, project).keySet().stream().sorted().toList();
    }

    /**
     * The project's RootDirs, sorted by name.
     *
     * @param tenant the tenant
     * @param project the project
     * @return the RootDirs
     */
    public List<RootDirInfo> rootDirs(String tenant, String project) {
        if (!Segments.isSafe(tenant) || !Segments.isSafe(project)) {
            return List.of();
        }
        return project(tenant, project).values().stream()
                .sorted(java.util.Comparator.comparing(RootDirInfo::dirName)).toList();
    }

    /**
     * One RootDir.
     *
     * @param tenant the tenant
     * @param project the project
     * @param dirName the name
     * @return the RootDir, or empty when it does not exist or a name is not a safe segment
     */
    public Optional<RootDirInfo> rootDir(String tenant, String project, String dirName) {
        if (!Segments.isSafe(tenant) || !Segments.isSafe(project) || !Segments.isSafe(dirName)) {
            return Optional.empty();
        }
        return Optional.ofNullable(project(tenant, project).get(dirName));
    }

    // ------------------------------------------------------------------------------------- resolve

    /**
     * The directory a call works in: the named RootDir, or the process's {@code temp} RootDir (created on
     * first use) when {@code dirName} is null.
     *
     * @param ctx the caller
     * @param dirName the RootDir name, or null
     * @return the canonical directory
     * @throws ToolException {@code path_escape} for an unsafe name, {@code not_found} for an unknown RootDir
     */
    public Path resolveRoot(ToolContext ctx, String dirName) throws ToolException {
        if (dirName == null) {
            return checkedDir(tempRootDir(ctx));
        }
        return resolveRoot(ctx.tenant(), ctx.project(), dirName);
    }

    /**
     * The directory of a named RootDir (for a transfer receiver or an exec working directory).
     *
     * @param tenant the tenant
     * @param project the project
     * @param dirName the RootDir name
     * @return the canonical directory
     * @throws ToolException {@code path_escape} for an unsafe name, {@code not_found} for an unknown RootDir
     */
    public Path resolveRoot(String tenant, String project, String dirName) throws ToolException {
        Segments.require("tenant", tenant);
        Segments.require("project", project);
        Segments.require("dirName", dirName);
        RootDirInfo info = project(tenant, project).get(dirName);
        if (info == null) {
            List<String> names = rootDirNames(tenant, project);
            throw new ToolException(ErrorCode.NOT_FOUND, "RootDir '" + dirName + "' does not exist in project '"
                    + project + "'. Existing: " + (names.isEmpty() ? "none" : String.join(", ", names))
                    + ". Omit dirName to work in the process's temporary RootDir.");
        }
        return checkedDir(info);
    }

    /**
     * The directory of a named RootDir, or empty when the name is unsafe or unknown (for the transfer
     * receiver's {@code RootDirTargetResolver}).
     *
     * @param tenant the tenant
     * @param project the project
     * @param dirName the RootDir name
     * @return the canonical directory
     */
    public Optional<Path> findRoot(String tenant, String project, String dirName) {
        try {
            return Optional.of(resolveRoot(tenant, project, dirName));
        } catch (ToolException e) {
            return Optional.empty();
        }
    }

    /**
     * Creates {@code ephemeral} RootDirs for {@code workspace_create_ephemeral_dir}.
     *
     * @return the creator
     */
    public EphemeralDirCreator ephemeralDirs() {
        return (ctx, purpose, deleteOnCreatorClose) -> createRootDir(ctx, null, EPHEMERAL, purpose, deleteOnCreatorClose,
                purpose == null ? Map.of() : Map.of("purpose", purpose)).dirName();
    }

    private Path checkedDir(RootDirInfo info) throws ToolException {
        Path expected = info.path();
        try {
            if (!Files.isDirectory(expected, LinkOption.NOFOLLOW_LINKS)) {
                if (Files.exists(expected, LinkOption.NOFOLLOW_LINKS)) {
                    throw new ToolException(ErrorCode.PATH_ESCAPE, "RootDir '" + info.dirName() + "' is not a plain "
                            + "directory inside the workspace; it cannot be used.");
                }
                handler(info.type()).recover(info.handle());
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

    private ConfinedRoot gate(Path dir) throws ToolException {
        ConfinedRoot g = gates.get(dir);
        if (g != null) {
            return g;
        }
        try {
            FileToolSettings s = engine.settings();
            g = ConfinedRoot.of(dir, s.maxPathLength(), s.maxComponentLength());
        } catch (IOException e) {
            throw new ToolException(ErrorCode.INTERNAL, "The RootDir cannot be opened.", e);
        }
        if (gates.putIfAbsent(dir, g) == null) {
            g.sweep(); // the first use since start: leftovers of a crashed process go
        }
        return gates.get(dir);
    }

    /**
     * The process's {@code temp} RootDir, created on first use (one per creator process,
     * {@code deleteOnCreatorClose = true}).
     *
     * @param ctx the process
     * @return the RootDir
     * @throws ToolException {@code path_escape} when tenant or project is not a safe segment
     */
    public RootDirInfo tempRootDir(ToolContext ctx) throws ToolException {
        Segments.require("tenant", ctx.tenant());
        Segments.require("project", ctx.project());
        String name = tempName(ctx.processId());
        RootDirInfo existing = project(ctx.tenant(), ctx.project()).get(name);
        if (existing != null) {
            return existing;
        }
        return create(ctx, name, TEMP, "temp of process " + ctx.processId(), true, Map.of(), true);
    }

    private static String tempName(String processId) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(processId.getBytes(StandardCharsets.UTF_8));
            return "temp-" + HexFormat.of().formatHex(h, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }

    // ------------------------------------------------------------------------------------- create

    /**
     * Creates a named RootDir of a registered type, owned by the calling process.
     *
     * @param creator the creating process (its tenant and project decide where)
     * @param dirName the name (one segment, not starting with '.'), or null for a generated one
     * @param type the type, e.g. {@link #EPHEMERAL}
     * @param label a label, or null
     * @param deleteOnCreatorClose whether closing the creator disposes it, or null for the type's default
     * @param metadata handler-specific metadata, or null
     * @return the new RootDir
     * @throws ToolException {@code path_escape} for an unsafe name, {@code invalid_params} for an unknown type,
     *         {@code exists} when the name is taken
     */
    public RootDirInfo createRootDir(ToolContext creator, String dirName, String type, String label,
                                     Boolean deleteOnCreatorClose, Map<String, String> metadata) throws ToolException {
        Segments.require("tenant", creator.tenant());
        Segments.require("project", creator.project());
        if (!handlers.containsKey(type)) {
            throw Params.invalid("Unknown RootDir type '" + type + "'. Known: " + String.join(", ",
                    handlers.keySet().stream().sorted().toList()) + ".");
        }
        String name = dirName == null ? type + "-" + UUID.randomUUID().toString().substring(0, 8) : dirName;
        Segments.require("dirName", name);
        boolean delete = deleteOnCreatorClose != null ? deleteOnCreatorClose : deleteDefaults.getOrDefault(type, false);
        return create(creator, name, type, label, delete, metadata == null ? Map.of() : metadata, false);
    }

    /**
     * Creates an {@code ephemeral} RootDir for a transfer ({@code deleteOnCreatorClose = true}).
     *
     * @param creator the creating process
     * @param metadata e.g. {@code purpose}, {@code originatingTransferId}; may be null
     * @return the new RootDir's name
     * @throws ToolException when tenant or project is not a safe segment
     */
    public String createEphemeral(ToolContext creator, Map<String, String> metadata) throws ToolException {
        return createRootDir(creator, null, EPHEMERAL, "transfer", true, metadata).dirName();
    }

    private RootDirInfo create(ToolContext creator, String name, String type, String label, boolean delete,
                               Map<String, String> metadata, boolean reuse) throws ToolException {
        synchronized (lock) {
            Map<String, RootDirInfo> dirs = project(creator.tenant(), creator.project());
            RootDirInfo existing = dirs.get(name);
            if (existing != null) {
                if (reuse) {
                    return existing;
                }
                throw new ToolException(ErrorCode.EXISTS, "RootDir '" + name + "' already exists in project '"
                        + creator.project() + "'. Choose another name.");
            }
            Path dir = projectDir(creator.tenant(), creator.project()).resolve(name);
            if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new ToolException(ErrorCode.EXISTS, "A directory named '" + name + "' already exists in project '"
                        + creator.project() + "' without a descriptor. Choose another name.");
            }
            RootDirInfo info = new RootDirInfo(creator.tenant(), creator.project(), name, type, label,
                    creator.processId(), clock.instant(), delete, metadata, dir);
            String projectPath = creator.tenant() + "/" + creator.project();
            try {
                workspace.openOrCreate(workspace.resolve(projectPath)).close();
                Descriptors.write(workspace, info);
                handler(type).init(info.handle());
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

    // ------------------------------------------------------------------------------------- dispose

    /**
     * Disposes a RootDir: listeners hear {@code disposing}, the type handler closes it, the descriptor goes.
     *
     * @param tenant the tenant
     * @param project the project
     * @param dirName the name
     * @return true when it existed
     * @throws ToolException {@code path_escape} for an unsafe name
     */
    public boolean deleteRootDir(String tenant, String project, String dirName) throws ToolException {
        Segments.require("tenant", tenant);
        Segments.require("project", project);
        Segments.require("dirName", dirName);
        synchronized (lock) {
            RootDirInfo info = project(tenant, project).get(dirName);
            if (info == null) {
                return false;
            }
            dispose(info);
            return true;
        }
    }

    /**
     * Closes a process: disposes every RootDir it created with {@code deleteOnCreatorClose = true}.
     *
     * @param processId the process
     * @return the disposed RootDirs
     */
    public List<RootDirInfo> closeProcess(String processId) {
        Objects.requireNonNull(processId, "processId");
        loadAll();
        List<RootDirInfo> disposed = new ArrayList<>();
        synchronized (lock) {
            for (Map<String, RootDirInfo> dirs : projects.values()) {
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
     * The process ended: its RootDirs with {@code deleteOnCreatorClose} go (as {@link #closeProcess}),
     * and so do the jobs of its own exec scope (a process without a session; a session's jobs belong to
     * the session).
     *
     * @param process the process
     */
    @Override
    public void processEnded(ToolContext process) {
        closeProcess(process.processId());
        if (process.sessionId() == null) {
            exec.closeScope(ExecResolver.defaultScope(process));
        }
    }

    private void dispose(RootDirInfo info) {
        for (RootDirListener l : listeners) {
            try {
                l.disposing(info);
            } catch (RuntimeException e) {
                LOG.warn("A RootDirListener threw on disposing; ignoring it", e);
            }
        }
        try {
            handler(info.type()).close(info.handle());
        } catch (IOException | RuntimeException e) {
            LOG.warn("Closing RootDir {}/{}/{} failed; its directory may remain", info.tenant(), info.project(),
                    info.dirName(), e);
        }
        try {
            Descriptors.delete(workspace, info.tenant(), info.project(), info.dirName());
        } catch (IOException e) {
            LOG.warn("Deleting the descriptor of RootDir {}/{}/{} failed", info.tenant(), info.project(),
                    info.dirName(), e);
        }
        gates.remove(info.path());
        project(info.tenant(), info.project()).remove(info.dirName());
    }

    /**
     * Suspends a project: every RootDir's handler runs {@code suspend}.
     *
     * @param tenant the tenant
     * @param project the project
     * @throws ToolException {@code path_escape} for unsafe names, {@code internal} when a handler fails
     */
    public void suspendProject(String tenant, String project) throws ToolException {
        lifecycle(tenant, project, true);
    }

    /**
     * Recovers a suspended project: every RootDir's handler runs {@code recover}.
     *
     * @param tenant the tenant
     * @param project the project
     * @throws ToolException {@code path_escape} for unsafe names, {@code internal} when a handler fails
     */
    public void recoverProject(String tenant, String project) throws ToolException {
        lifecycle(tenant, project, false);
    }

    private void lifecycle(String tenant, String project, boolean suspend) throws ToolException {
        Segments.require("tenant", tenant);
        Segments.require("project", project);
        synchronized (lock) {
            for (RootDirInfo info : rootDirs(tenant, project)) {
                try {
                    if (suspend) {
                        handler(info.type()).suspend(info.handle());
                    } else {
                        handler(info.type()).recover(info.handle());
                    }
                } catch (IOException e) {
                    throw new ToolException(ErrorCode.INTERNAL, "RootDir '" + info.dirName() + "' could not be "
                            + (suspend ? "suspended" : "recovered") + ".", e);
                }
                gates.remove(info.path());
            }
        }
    }

    // ------------------------------------------------------------------------------------- state

    private RootDirTypeHandler handler(String type) {
        RootDirTypeHandler h = handlers.get(type);
        if (h == null) {
            throw new IllegalStateException("no handler for RootDir type '" + type + "'; register it on the builder");
        }
        return h;
    }

    private Path projectDir(String tenant, String project) {
        return root.resolve(tenant).resolve(project);
    }

    private Map<String, RootDirInfo> project(String tenant, String project) {
        return projects.computeIfAbsent(tenant + '/' + project, k -> load(tenant, project));
    }

    private Map<String, RootDirInfo> load(String tenant, String project) {
        Map<String, RootDirInfo> out = new ConcurrentHashMap<>();
        try {
            for (String name : Descriptors.names(workspace, tenant, project)) {
                if (!Segments.isSafe(name)) {
                    continue;
                }
                RootDirInfo info = Descriptors.read(workspace, tenant, project, name);
                if (info != null) {
                    out.put(name, info);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the RootDirs of " + tenant + "/" + project, e);
        }
        return out;
    }

    private void loadAll() {
        if (allLoaded) {
            return;
        }
        try (SafeDirectory tenants = workspace.openRoot()) {
            for (String tenant : tenants.names()) {
                if (!Segments.isSafe(tenant) || !tenants.attributes(tenant).isDirectory()) {
                    continue;
                }
                try (SafeDirectory projectDirs = tenants.openChild(tenant)) {
                    for (String project : projectDirs.names()) {
                        if (Segments.isSafe(project) && projectDirs.attributes(project).isDirectory()) {
                            project(tenant, project);
                        }
                    }
                }
            }
            allLoaded = true;
        } catch (IOException e) {
            LOG.warn("Scanning the workspace for RootDirs failed", e);
        }
    }

    /** Builds a {@link WorkspaceBackend}. */
    public static final class Builder {
        private Path root;
        private final Map<String, RootDirTypeHandler> handlers = new LinkedHashMap<>();
        private final Map<String, Boolean> deleteDefaults = new LinkedHashMap<>();
        private FileToolSettings settings = FileToolSettings.defaults();
        private Clock clock = Clock.systemUTC();
        private final List<RootDirListener> listeners = new ArrayList<>();
        private ExecSettings execSettings = ExecSettings.defaults();
        private Map<String, String> hostEnv = System.getenv();
        private Path homesRoot;
        private long homeMaxBytes = Homes.DEFAULT_MAX_BYTES;
        private SettingsCascade settingsCascade = SettingsCascade.EMPTY;

        private Builder() {
            rootDirType(BuiltInRootDirType.temp(), true);
            rootDirType(BuiltInRootDirType.ephemeral(), true);
        }

        /**
         * The workspace root (required); created when missing, canonicalised once. Any file system works.
         *
         * @param root the directory
         * @return this
         */
        public Builder workspaceRoot(Path root) {
            this.root = Objects.requireNonNull(root, "root");
            return this;
        }

        /**
         * Registers a RootDir type (or replaces a built-in one).
         *
         * @param handler the handler
         * @param deleteOnCreatorCloseDefault whether its RootDirs go away with their creator by default
         * @return this
         */
        public Builder rootDirType(RootDirTypeHandler handler, boolean deleteOnCreatorCloseDefault) {
            Objects.requireNonNull(handler, "handler");
            handlers.put(handler.type(), handler);
            deleteDefaults.put(handler.type(), deleteOnCreatorCloseDefault);
            return this;
        }

        /**
         * The limits of the file tools (default {@link FileToolSettings#defaults()}).
         *
         * @param settings the limits
         * @return this
         */
        public Builder fileSettings(FileToolSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * The clock for {@code createdAt} (default UTC system clock).
         *
         * @param clock the clock
         * @return this
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The limits and isolation of the exec tools (default {@link ExecSettings#defaults()}: no isolation).
         *
         * @param settings the settings
         * @return this
         */
        public Builder execSettings(ExecSettings settings) {
            this.execSettings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * The host environment (default: this process's): the sealed job environment takes only its
         * allow-listed variables (PATH, LANG, LC_*, TZ, TERM, …), and {@code VANCE_EXEC_ISOLATION_MODE} in it
         * overrides the configured isolation mode.
         *
         * @param env the host environment
         * @return this
         */
        public Builder hostEnvironment(Map<String, String> env) {
            this.hostEnv = Map.copyOf(Objects.requireNonNull(env, "env"));
            return this;
        }

        /**
         * {@code homes.root}: where the per-scope HOMEs of jobs live (default: {@code <workspaceRoot>/../homes}).
         *
         * @param root the directory
         * @return this
         */
        public Builder homesRoot(Path root) {
            this.homesRoot = root;
            return this;
        }

        /**
         * {@code homes.max-bytes}: the size budget of one HOME (default 2 GiB; 0 = off). Over budget, a job
         * does not start.
         *
         * @param bytes the budget
         * @return this
         */
        public Builder homeMaxBytes(long bytes) {
            this.homeMaxBytes = bytes;
            return this;
        }

        /**
         * The settings cascade that holds {@code home-scope} (project, tenant or user; default: empty, so
         * every project has its own HOME).
         *
         * @param settings the cascade
         * @return this
         */
        public Builder settings(SettingsCascade settings) {
            this.settingsCascade = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * Adds a listener.
         *
         * @param listener the listener
         * @return this
         */
        public Builder listener(RootDirListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Validates and builds; creates the workspace root when missing.
         *
         * @return the backend
         * @throws IllegalStateException when the root is missing or cannot be created
         */
        public WorkspaceBackend build() {
            if (root == null) {
                throw new IllegalStateException("workspaceRoot is required");
            }
            for (String type : handlers.keySet()) {
                if (!Segments.isSafe(type)) {
                    throw new IllegalStateException("RootDir type '" + type + "' must be a safe name");
                }
            }
            try {
                return new WorkspaceBackend(this);
            } catch (IOException e) {
                throw new IllegalStateException("the workspace root cannot be created or opened", e);
            }
        }
    }
}
