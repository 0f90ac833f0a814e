package org.vancetope.worktarget.backend.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.vancetope.worktarget.backend.workspace.internal.BuiltInRootDirType;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.HomeMaintenance;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.InProcessEndpoint;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.core.internal.exec.ExecEngine;
import org.vancetope.worktarget.core.internal.exec.ExecResolver;
import org.vancetope.worktarget.core.internal.exec.ExecSetup;
import org.vancetope.worktarget.core.internal.file.FileEngine;
import org.vancetope.worktarget.core.internal.file.FileTools;
import org.vancetope.worktarget.core.internal.home.Homes;
import org.vancetope.worktarget.core.transfer.EphemeralDirCreator;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.BackendToolProvider;
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
 *         .processStore(store).backend(work).build();
 * String drop = work.createEphemeral(ctx, Map.of("purpose", "user-upload"));
 * Path where = work.resolveRoot(ctx.tenant(), ctx.project(), drop);
 * }</pre>
 *
 * <p>The {@code work_exec_*} tools run jobs in the RootDir with a sealed environment and the scoped
 * HOME of the caller's project, tenant or user ({@link #homes()}); disposing a RootDir kills its jobs,
 * {@link #close()} kills them all. It does not persist RootDir content across a suspend beyond what
 * the type handlers do.
 *
 * <p>This class is the public face: it wires the parts together and delegates. The type table is
 * {@link RootDirTypes}, the catalog of descriptors {@link RootDirIndex}, resolving a RootDir to a
 * checked folder and its confinement gate {@link RootDirGates}, creating and disposing RootDirs
 * {@link RootDirLifecycle}, and the tool list {@link WorkspaceTools}.
 */
public final class WorkspaceBackend implements BackendToolProvider, RootDirCatalog, AutoCloseable {
    /** The name of the built-in per-process scratch type. */
    public static final String TEMP = BuiltInRootDirType.TEMP;
    /** The name of the built-in transfer drop-box type. */
    public static final String EPHEMERAL = BuiltInRootDirType.EPHEMERAL;

    private final RootDirIndex index;
    private final RootDirGates gates;
    private final RootDirLifecycle lifecycle;
    private final ExecEngine exec;
    private final Homes homes;
    private final List<BackendTool> tools;
    /** This backend's run on the workspace, with {@code processesEndWithJvm}; null otherwise. */
    private final WorkspaceRuns run;
    /** The RootDirs ended runs left, while they wait for their processes; null when there are none. */
    private final LeftoverSweep leftovers;
    /** Set by {@link #close()}: no call runs on a closed backend. */
    private volatile boolean closed;
    /** The calls working in each RootDir, so that a RootDir is never deleted from under one. */
    private final RootDirUse use = new RootDirUse();
    /** The disk budget of each project's RootDirs; off unless {@link Builder#projectMaxBytes} is set. */
    private final ProjectBudget budget;
    private final FileEngine files;

    /** The default of {@link Builder#maxRootDirsPerProject}. */
    public static final int DEFAULT_MAX_ROOT_DIRS_PER_PROJECT = 1000;

    private WorkspaceBackend(Builder b, RootDirTypes types) throws IOException {
        Path root = Files.createDirectories(b.root.toAbsolutePath()).toRealPath();
        this.index = new RootDirIndex(root);
        FileEngine engine = new FileEngine(b.settings);
        this.files = engine;
        this.gates = new RootDirGates(index, types, engine.settings(), use);
        this.homes = Homes.builder().workspaceRoot(root).homesRoot(b.homesRoot).settings(b.settingsCascade)
                .maxBytes(b.homeMaxBytes).clock(b.clock).build();
        this.exec = ExecSetup.engine(b.execSettings, b.hostEnv, true);
        this.run = b.keepLeftoversFor != null ? WorkspaceRuns.start() : null;     // after what may fail
        this.lifecycle = new RootDirLifecycle(index, types, gates, use, b.clock, b.listeners, b.maxRootDirsPerProject,
                run);
        this.budget = new ProjectBudget(index, b.projectMaxBytes, b.clock);
        FileTools.GateResolver gateOf = (params, ctx) -> gates.gate(resolveRoot(ctx,
                Params.optString(params, ToolCatalog.DIR_NAME, null)));
        this.tools = use.track(budget.guard(WorkspaceTools.create(engine, exec, homes, b.hostEnv, gateOf, budget),
                gateOf));
        // Jobs never outlive the RootDir they run in: none starts in it while it is being disposed.
        lifecycle.addListener(new RootDirListener() {
            @Override
            public void disposing(RootDirInfo dir) {
                exec.closeRoot(dir.path());
            }

            @Override
            public void disposed(RootDirInfo dir) {
                exec.reopenRoot(dir.path());
            }
        });
        gates.sweepAtStart();
        this.leftovers = run == null ? null : LeftoverSweep.start(lifecycle, b.keepLeftoversFor);
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
     * period ({@code ExecSettings.killGrace}) for them to end, then SIGKILL to what still runs, before it returns) and
     * releases the exec engine. RootDirs stay on disk; with {@link Builder#processesEndWithJvm}, this run
     * ends, and the next backend to open the workspace removes, after its wait, the RootDirs of this run's
     * processes that go with their creator and are still there. A call on a closed backend fails
     * {@code internal}, saying so. Closing twice does nothing more.
     */
    @Override
    public void close() {
        closed = true;
        try {
            exec.close();
        } finally {
            files.close();    // the searches' idle threads
            if (leftovers != null) {
                leftovers.close();
            }
            if (run != null) {
                run.close();
            }
        }
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
     * The seventeen {@code work_*} tools (thirteen file, four exec), with the catalog's specs.
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
        return index.root();
    }

    /**
     * Registers a listener at runtime (for components built after the backend, such as an exec engine).
     *
     * @param listener the listener
     */
    public void addListener(RootDirListener listener) {
        lifecycle.addListener(listener);
    }

    /**
     * Removes a listener.
     *
     * @param listener the listener
     */
    public void removeListener(RootDirListener listener) {
        lifecycle.removeListener(listener);
    }

    // ------------------------------------------------------------------------------------- catalog

    @Override
    public List<String> rootDirNames(String tenant, String project) {
        if (!Segments.isSafe(tenant) || !Segments.isSafe(project)) {
            return List.of();
        }
        return index.names(tenant, project);
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
        return index.list(tenant, project);
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
        return index.find(tenant, project, dirName);
    }

    // ------------------------------------------------------------------------------------- resolve

    private void requireOpen() throws ToolException {
        if (closed) {
            throw InProcessEndpoint.closedBackend("WORK backend", "WorkspaceBackend.close()");
        }
    }

    /**
     * The directory a call works in: the named RootDir, or the process's {@code temp} RootDir (created on
     * first use) when {@code dirName} is null.
     *
     * @param ctx the caller
     * @param dirName the RootDir name, or null
     * @return the canonical directory
     * @throws ToolException {@code path_escape} for an unsafe name, {@code not_found} for an unknown RootDir,
     *         {@code internal} once the backend is closed
     */
    public Path resolveRoot(ToolContext ctx, String dirName) throws ToolException {
        requireOpen();
        seen(ctx);
        if (dirName == null) {
            return gates.checkedDir(tempRootDir(ctx));
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
     * @throws ToolException {@code path_escape} for an unsafe name, {@code not_found} for an unknown RootDir,
     *         {@code internal} once the backend is closed
     */
    public Path resolveRoot(String tenant, String project, String dirName) throws ToolException {
        requireOpen();
        return gates.resolve(tenant, project, dirName);
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
     * The resolver of the transfers between a foot and this workspace's RootDirs: {@code dirName} names a
     * RootDir of the transfer's project ({@link #findRoot}), and a file received into one is refused
     * {@code budget_exceeded} before anything is written when it would take the project over its disk budget
     * ({@link Builder#projectMaxBytes}).
     *
     * <pre>{@code
     * ServerTransfers transfers = ServerTransfers.create(work.transferRoots(), TransferSettings.defaults(),
     *         TransferListener.NONE);
     * }</pre>
     *
     * @return the resolver
     */
    public RootDirTargetResolver transferRoots() {
        return new RootDirTargetResolver((scope, dirName) -> findRoot(scope.tenant(), scope.project(), dirName),
                (scope, bytes) -> budget.take(scope.tenant(), scope.project(), bytes), lifecycle::allPaths);
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

    /**
     * The process's {@code temp} RootDir, created on first use (one per creator process,
     * {@code deleteOnCreatorClose = true}).
     *
     * @param ctx the process
     * @return the RootDir
     * @throws ToolException {@code path_escape} when tenant or project is not a safe segment
     */
    public RootDirInfo tempRootDir(ToolContext ctx) throws ToolException {
        seen(ctx);
        return lifecycle.tempRootDir(ctx);
    }

    /** The wait for the RootDirs ended runs left, or null; for tests, which end the wait at once. */
    LeftoverSweep leftovers() {
        return leftovers;
    }

    /** A process used this backend: RootDirs an ended run left for it are its own again. */
    private void seen(ToolContext ctx) {
        if (leftovers != null) {
            leftovers.seen(ctx.processId());
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
     *         {@code exists} when the name is taken, {@code size_limit} when the project holds
     *         {@link Builder#maxRootDirsPerProject} RootDirs already
     */
    public RootDirInfo createRootDir(ToolContext creator, String dirName, String type, String label,
                                     Boolean deleteOnCreatorClose, Map<String, String> metadata) throws ToolException {
        seen(creator);
        return lifecycle.createRootDir(creator, dirName, type, label, deleteOnCreatorClose, metadata);
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

    // ------------------------------------------------------------------------------------- dispose

    /**
     * Disposes a RootDir: listeners hear {@code disposing} (its jobs are killed), the type handler closes it,
     * the descriptor goes. When calls still work in it, those last steps wait until the last of them has
     * returned, and new calls are refused it until then ({@code not_found}, saying why).
     *
     * @param tenant the tenant
     * @param project the project
     * @param dirName the name
     * @return true when it existed
     * @throws ToolException {@code path_escape} for an unsafe name
     */
    public boolean deleteRootDir(String tenant, String project, String dirName) throws ToolException {
        return lifecycle.deleteRootDir(tenant, project, dirName);
    }

    /**
     * Closes a process: disposes every RootDir it created with {@code deleteOnCreatorClose = true}. The jobs
     * running in them are killed at once; a RootDir in which calls still work (the host ended the process
     * mid-call) goes once the last of them has returned, and new calls are refused it until then
     * ({@code not_found}, saying why).
     *
     * @param processId the process
     * @return the RootDirs that go, now or once the calls working in them have returned
     */
    public List<RootDirInfo> closeProcess(String processId) {
        return lifecycle.closeProcess(processId);
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

    /**
     * Suspends a project: every RootDir's handler runs {@code suspend}.
     *
     * @param tenant the tenant
     * @param project the project
     * @throws ToolException {@code path_escape} for unsafe names, {@code internal} when a handler fails
     */
    public void suspendProject(String tenant, String project) throws ToolException {
        lifecycle.lifecycle(tenant, project, true);
    }

    /**
     * Recovers a suspended project: every RootDir's handler runs {@code recover}.
     *
     * @param tenant the tenant
     * @param project the project
     * @throws ToolException {@code path_escape} for unsafe names, {@code internal} when a handler fails
     */
    public void recoverProject(String tenant, String project) throws ToolException {
        lifecycle.lifecycle(tenant, project, false);
    }

    /** Builds a {@link WorkspaceBackend}. */
    public static final class Builder {
        private Path root;
        private final RootDirTypes.Table types = new RootDirTypes.Table();
        private FileToolSettings settings = FileToolSettings.defaults();
        private Clock clock = Clock.systemUTC();
        private final List<RootDirListener> listeners = new ArrayList<>();
        private ExecSettings execSettings = ExecSettings.defaults();
        private Map<String, String> hostEnv = System.getenv();
        private Path homesRoot;
        private long homeMaxBytes = Homes.DEFAULT_MAX_BYTES;
        private long projectMaxBytes;
        private SettingsCascade settingsCascade = SettingsCascade.EMPTY;
        private int maxRootDirsPerProject = DEFAULT_MAX_ROOT_DIRS_PER_PROJECT;
        private Duration keepLeftoversFor;

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
            types.put(handler, deleteOnCreatorCloseDefault);
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
            if (bytes < 0) {
                throw new IllegalArgumentException("homeMaxBytes must be 0 (off) or more, got " + bytes);
            }
            this.homeMaxBytes = bytes;
            return this;
        }

        /**
         * The disk budget of one project's RootDirs together (default 0: none): the bytes of the regular files
         * in all of them, measured at most once a minute (every 2 s while over) plus what the file tools and the
         * transfers through {@link WorkspaceBackend#transferRoots()} added since. A {@code file_write} or a
         * received file that would take the project over it is refused before it writes; while the project is
         * over it, {@code file_write}, {@code file_edit}, {@code file_mkdir} and uploads are refused
         * ({@code budget_exceeded}, saying what to do) and of {@code exec_run} only jobs that look at files and
         * remove them start, while reading, searching, {@code file_delete} and {@code file_move} go on. A job
         * that started under the budget writes on until it ends, so this guards against a caller filling the
         * disk through the tools; a file system quota is the hard limit.
         *
         * @param bytes the budget, 0 (off) or at least 1 MiB
         * @return this
         */
        public Builder projectMaxBytes(long bytes) {
            if (bytes != 0 && bytes < 1024 * 1024) {
                throw new IllegalArgumentException("projectMaxBytes must be 0 (off) or at least 1 MiB, got " + bytes);
            }
            this.projectMaxBytes = bytes;
            return this;
        }

        /**
         * The most RootDirs one project may hold at once (default
         * {@value WorkspaceBackend#DEFAULT_MAX_ROOT_DIRS_PER_PROJECT}). Creating one more
         * ({@code workspace_create_ephemeral_dir}, {@link WorkspaceBackend#createRootDir}) fails
         * {@code size_limit}, so that a caller in a loop cannot fill the workspace's disk with directories; a
         * process's own temp RootDir is always made (their number is bounded by the processes).
         *
         * @param max at least 1
         * @return this
         */
        public Builder maxRootDirsPerProject(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxRootDirsPerProject must be at least 1, got " + max);
            }
            this.maxRootDirsPerProject = max;
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
         * Says that the processes using this backend end when this JVM ends, as they do with an in-memory
         * {@code ProcessStore} ({@code serve} and {@code mcp} say so). A process's temp RootDir, and any RootDir
         * made to go with its creator, is removed when the process ends; a JVM that is killed (SIGKILL, out of
         * memory) ends no process, and its RootDirs would stay for good. With this set, the backend names its
         * run (this JVM's host, pid and start time, and the backend) in those RootDirs' descriptors, and when
         * it opens the workspace it finds the ones whose run ended (a JVM of this host that no longer runs, or
         * a backend of this JVM that was closed without ending its processes) and removes them
         * {@code keepLeftoversFor} later, except those of a process that used this backend meanwhile (a host
         * that reuses process ids: they are its own again and go when it ends). The wait lets a process come
         * back, or a transfer be resumed into one of its RootDirs; zero removes them at once. Runs still open,
         * in this JVM or another, and runs of other hosts (a workspace on a network file system), keep theirs.
         *
         * <p>Leave it unset (the default) when processes outlive the JVM (a store in a database, processes
         * resumed after a restart): their RootDirs must then stay until the processes end.
         *
         * @param keepLeftoversFor how long RootDirs that ended runs left stay after the open: zero or more
         * @return this
         */
        public Builder processesEndWithJvm(Duration keepLeftoversFor) {
            Objects.requireNonNull(keepLeftoversFor, "keepLeftoversFor");
            if (keepLeftoversFor.isNegative()) {
                throw new IllegalArgumentException("keepLeftoversFor must be zero or more, got " + keepLeftoversFor);
            }
            this.keepLeftoversFor = keepLeftoversFor;
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
            RootDirTypes frozen = types.freeze();
            try {
                return new WorkspaceBackend(this, frozen);
            } catch (IOException e) {
                throw new IllegalStateException("the workspace root cannot be created or opened", e);
            }
        }
    }
}
