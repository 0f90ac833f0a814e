package org.vancetope.worktarget.core.internal.home;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.HomeMaintenance;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.core.internal.SizeBudget;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.SettingsCascade;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Per-scope HOME directories for agent subprocesses: which scope a call gets (the
 * {@code home-scope} setting, read user → project → tenant, never from a process-scoped setting),
 * where its HOME lies ({@code <homesRoot>/<tenant>/<scopeKey>}), whether it is over its size budget,
 * and what project and user deletes and renames do to the tree.
 *
 * <pre>{@code
 * Homes homes = Homes.builder().workspaceRoot(workspace).settings(cascade).build();
 * Home home = homes.prepare("acme", "shop", "alice");   // creates it, checks the budget
 * Map<String, String> env = ExecEnvPolicy.work(System.getenv()).environment(home.dir(), extras);
 * }</pre>
 *
 * <p>It does not clean a home up: the home belongs to the agent. Homes are disposable state, not a
 * place for the only copy of anything.
 */
public final class Homes implements HomeMaintenance {
    private static final HomeMaintenance.Result DONE = new HomeMaintenance.Result(true, null, null);
    private static final HomeMaintenance.Result NOTHING = new HomeMaintenance.Result(false, null, null);
    /** Default of {@code maxBytes}: 2 GiB per home; 0 turns the budget off. */
    public static final long DEFAULT_MAX_BYTES = 2L * 1024 * 1024 * 1024;
    /** Default of {@code measureInterval}: a home is measured at most once per 5 minutes. */
    public static final Duration DEFAULT_MEASURE_INTERVAL = Duration.ofMinutes(5);
    /** How often a home over its budget is measured again at most: its owner is cleaning it up. */
    static final Duration OVER_BUDGET_INTERVAL = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(Homes.class);

    private final Path root;
    private final SettingsCascade settings;
    private final long maxBytes;
    private final Duration measureInterval;
    /** One key per HOME directory. */
    private final SizeBudget<Path> budget;
    private final Set<String> warned = ConcurrentHashMap.newKeySet();
    private volatile ConfinedRoot gate;

    private Homes(Builder b, Path root) {
        this.root = root;
        this.settings = b.settings;
        this.maxBytes = b.maxBytes;
        this.measureInterval = b.measureInterval;
        this.budget = new SizeBudget<>(maxBytes, measureInterval, OVER_BUDGET_INTERVAL, b.clock, this::measure);
    }

    /**
     * A builder.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The root of the homes tree.
     *
     * @return the root
     */
    public Path root() {
        return root;
    }

    /**
     * The scope of a call: the {@code home-scope} setting, read user → project → tenant; missing → PROJECT
     * (the default, the narrowest choice: nothing to warn about); unparseable → PROJECT with one WARN per
     * project and value; USER without a user → PROJECT.
     *
     * @param tenant the tenant
     * @param project the project
     * @param user the user login, or null
     * @return the scope
     */
    public HomeScope scope(String tenant, String project, String user) {
        Optional<String> raw = settings.resolve(tenant, project, user, HomeScope.SETTING);
        Optional<HomeScope> parsed = raw.flatMap(HomeScope::parse);
        if (parsed.isEmpty()) {
            if (raw.isPresent() && warned.add(tenant + "/" + project + "/" + raw.get())) {
                LOG.warn("{} has the unparseable value '{}' for setting {}; using the narrowest scope 'project'. "
                        + "Set it to project, tenant or user.", tenant + "/" + project, raw.get(), HomeScope.SETTING);
            }
            return HomeScope.PROJECT;
        }
        if (parsed.get() == HomeScope.USER && (user == null || user.isEmpty())) {
            return HomeScope.PROJECT;
        }
        return parsed.get();
    }

    /**
     * Resolves the home of a call without touching the file system.
     *
     * @param tenant the tenant
     * @param project the project
     * @param user the user login, or null
     * @return the home
     * @throws ToolException {@code path_escape} when the tenant or scope key is not a safe path segment,
     *                       {@code invalid_params} for a project name starting with {@code _} (reserved)
     */
    public Home resolve(String tenant, String project, String user) throws ToolException {
        HomeScope scope = scope(tenant, project, user);
        Segments.require("tenant", tenant);
        if (scope == HomeScope.PROJECT) {
            requireProjectKey(project);
        }
        String key = Segments.require("home scope key", scope.key(project, user));
        return new Home(scope, tenant, key, root.resolve(tenant).resolve(key));
    }

    /**
     * Resolves the home, creates it if needed and checks its budget: the step before a job starts.
     *
     * @param tenant the tenant
     * @param project the project
     * @param user the user login, or null
     * @return the home, existing
     * @throws ToolException {@code budget_exceeded} when the home is over budget (the job must not
     *                       start), {@code internal} when it cannot be created, or as {@link #resolve}
     */
    public Home prepare(String tenant, String project, String user) throws ToolException {
        return prepare(tenant, project, user, false);
    }

    /**
     * {@link #prepare(String, String, String)} for a job that may start while the home is over its budget: one
     * that only looks at files and removes them, so that the caller can bring the home under it again.
     *
     * @param tenant the tenant
     * @param project the project
     * @param user the user login, or null
     * @param cleanUp whether the job only looks at files and removes them (it starts over budget too)
     * @return the home, existing
     * @throws ToolException as {@link #prepare(String, String, String)}; never {@code budget_exceeded} with
     *                       {@code cleanUp}
     */
    public Home prepare(String tenant, String project, String user, boolean cleanUp) throws ToolException {
        Home home = resolve(tenant, project, user);
        try {
            ConfinedRoot g = gate();
            // no other user of the machine may enter a HOME (its credentials, or a set-user-id program of a job)
            try (SafeDirectory d = g.openOrCreatePrivate(g.resolve(home.tenant() + "/" + home.key()))) {
                LOG.trace("HOME {} ready", d.path().getFileName());
            }
        } catch (IOException e) {
            throw new ToolException(ErrorCode.INTERNAL, "The HOME of this " + home.scope().wire()
                    + " scope could not be created (" + e.getClass().getSimpleName() + "); ask the operator to check the "
                    + "homes root.", e);
        }
        if (!cleanUp) {
            checkBudget(home);
        }
        return home;
    }

    /**
     * Checks a home against the budget, measuring its size at most once per measure interval, and once per
     * {@link #OVER_BUDGET_INTERVAL} while it is over (its owner may be cleaning it up).
     *
     * @param home the home
     * @throws ToolException {@code budget_exceeded} stating size, budget and the three options
     */
    public void checkBudget(Home home) throws ToolException {
        long held = budget.usage(home.dir(), 0);
        if (held > maxBytes) {
            throw new ToolException(ErrorCode.BUDGET_EXCEEDED, "The HOME of this " + home.scope().wire() + " scope ('"
                    + home.key() + "') holds " + SizeBudget.human(held) + ", over its budget of " + SizeBudget.human(maxBytes)
                    + ", so the job was not started. While it is over, only jobs that look at files and remove them "
                    + "start (rm, rmdir, du, ls, find without -exec, df, sort, head, tail, cat, wc, stat, echo, cd, each named "
                    + "without a path; no redirection into a file, no env parameter). Options: (1) clean up HOME: see what is big with 'du -sh ~/.[!.]* ~/* "
                    + "2>/dev/null | sort -h', then remove caches, e.g. 'rm -rf ~/.cache/pip ~/.npm/_cacache "
                    + "~/.cache/go-build'; (2) ask the operator to raise the homes budget (max-bytes), or (3) to set it "
                    + "to 0 to turn the check off. The size is measured again within " + OVER_BUDGET_INTERVAL.toSeconds()
                    + " s while it is over the budget, at most every " + measureInterval.toMinutes() + " minutes "
                    + "otherwise.");
        }
    }

    /**
     * Project delete: deletes the project-scoped home {@code <tenant>/<project>} if it exists. When the
     * project's scope is tenant or user, the shared home stays and the result says so.
     *
     * @param tenant the tenant
     * @param project the project
     * @return what happened
     * @throws IOException when the home cannot be deleted
     */
    @Override
    public HomeMaintenance.Result deleteProject(String tenant, String project) throws IOException {
        requireSafe("tenant", tenant);
        requireSafe("project", project);
        requireProjectName(project);
        boolean deleted = deleteTree(tenant, project);
        HomeScope scope = scope(tenant, project, null);
        if (scope != HomeScope.PROJECT) {
            String note = "home-scope of project '" + project + "' is " + scope.wire() + ": its HOME is shared ('"
                    + scope.key(project, null) + "' or per user) and stays.";
            return new HomeMaintenance.Result(deleted, note, null);
        }
        return deleted ? DONE : NOTHING;
    }

    /**
     * User delete: deletes {@code <tenant>/_user_<login>}.
     *
     * @param tenant the tenant
     * @param login the user login
     * @return what happened
     * @throws IOException when the home cannot be deleted
     */
    @Override
    public HomeMaintenance.Result deleteUser(String tenant, String login) throws IOException {
        requireSafe("tenant", tenant);
        String key = requireSafe("user home key", HomeScope.USER.key(null, login));
        return deleteTree(tenant, key) ? DONE : NOTHING;
    }

    /**
     * Project rename: moves {@code <tenant>/<from>} to {@code <tenant>/<to>}; blocked (nothing moved, not
     * merged) when the target exists.
     *
     * @param tenant the tenant
     * @param from the old project name
     * @param to the new project name
     * @return what happened
     * @throws IOException when the move fails
     */
    @Override
    public HomeMaintenance.Result renameProject(String tenant, String from, String to) throws IOException {
        requireSafe("tenant", tenant);
        requireProjectName(requireSafe("project", from));
        requireProjectName(requireSafe("project", to));
        return move(tenant, from, to);
    }

    /**
     * User rename: moves {@code <tenant>/_user_<from>} to {@code <tenant>/_user_<to>}; blocked when the
     * target exists.
     *
     * @param tenant the tenant
     * @param from the old login
     * @param to the new login
     * @return what happened
     * @throws IOException when the move fails
     */
    @Override
    public HomeMaintenance.Result renameUser(String tenant, String from, String to) throws IOException {
        requireSafe("tenant", tenant);
        return move(tenant, requireSafe("user home key", HomeScope.USER.key(null, from)),
                requireSafe("user home key", HomeScope.USER.key(null, to)));
    }

    // ---------------------------------------------------------------------------------------------

    /**
     * The confined root of the homes tree, made on first use: every HOME is created, measured, renamed and
     * deleted through it, by directory handle, so a link a job plants in its HOME is deleted itself and
     * never followed out of the tree.
     */
    private ConfinedRoot gate() throws IOException {
        ConfinedRoot g = gate;
        if (g == null) {
            synchronized (this) {
                g = gate;
                if (g == null) {
                    Files.createDirectories(root); // the operator's homes root itself is trusted
                    g = ConfinedRoot.of(root);
                    gate = g;
                }
            }
        }
        return g;
    }

    private HomeMaintenance.Result move(String tenant, String from, String to) throws IOException {
        ConfinedRoot g = gate();
        Path tenantDir;
        try {
            tenantDir = g.resolve(tenant);
        } catch (ToolException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        try (SafeDirectory dir = g.open(tenantDir)) {
            try {
                dir.attributes(from);
            } catch (NoSuchFileException e) {
                return NOTHING;
            }
            try {
                dir.renameNoReplace(from, to);
            } catch (FileAlreadyExistsException e) {
                return new HomeMaintenance.Result(false, null, "A HOME named '" + to + "' already exists; homes are not "
                        + "merged. Delete or move it first, then rename again.");
            }
        } catch (NoSuchFileException e) {
            return NOTHING;
        }
        budget.forget(root.resolve(tenant).resolve(from));
        return DONE;
    }

    private boolean deleteTree(String tenant, String key) throws IOException {
        ConfinedRoot g = gate();
        boolean deleted;
        try {
            deleted = g.deleteTree(g.resolveEntry(tenant + "/" + key));
        } catch (ToolException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        budget.forget(root.resolve(tenant).resolve(key));
        return deleted;
    }

    /** The bytes of a HOME, {@code <root>/<tenant>/<key>}. */
    private long measure(Path home) {
        try {
            ConfinedRoot g = gate();
            try (SafeDirectory tenant = g.open(g.resolve(home.getParent().getFileName().toString()))) {
                return tenant.treeSize(home.getFileName().toString());
            }
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException | ToolException e) {
            LOG.warn("measuring a home failed, counting nothing: {}", e.toString());
            return 0;
        }
    }

    private static void requireProjectKey(String project) throws ToolException {
        Segments.requireProject(project);
        if (project.startsWith("_")) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, "Project names starting with '_' are reserved for shared "
                    + "homes ('_tenant', '_user_<login>'); rename the project or set home-scope to tenant or user.");
        }
    }

    private static void requireProjectName(String project) {
        if (project.startsWith("_")) {
            throw new IllegalArgumentException("project names starting with '_' are reserved for shared homes");
        }
    }

    private static String requireSafe(String what, String name) {
        String problem = Segments.problem(name);
        if (problem != null) {
            throw new IllegalArgumentException(Segments.message(what, problem));
        }
        return name;
    }

    /**
     * Builds {@link Homes}.
     */
    public static final class Builder {
        private Path homesRoot;
        private Path workspaceRoot;
        private SettingsCascade settings = SettingsCascade.EMPTY;
        private long maxBytes = DEFAULT_MAX_BYTES;
        private Duration measureInterval = DEFAULT_MEASURE_INTERVAL;
        private Clock clock = Clock.systemUTC();

        private Builder() {
        }

        /**
         * {@code homesRoot}: the root of the homes tree (default {@code <workspaceRoot>/../homes}).
         *
         * @param root the root
         * @return this
         */
        public Builder homesRoot(Path root) {
            this.homesRoot = root;
            return this;
        }

        /**
         * The workspace root, from which the default homes root is derived as its sibling {@code homes}.
         *
         * @param workspace the workspace root
         * @return this
         */
        public Builder workspaceRoot(Path workspace) {
            this.workspaceRoot = workspace;
            return this;
        }

        /**
         * The settings cascade that holds {@code home-scope} (default: empty, so every home is per project).
         *
         * @param settings the cascade
         * @return this
         */
        public Builder settings(SettingsCascade settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * {@code maxBytes}: the size budget per home (default 2 GiB; 0 = off).
         *
         * @param bytes 0 or more
         * @return this
         */
        public Builder maxBytes(long bytes) {
            this.maxBytes = bytes;
            return this;
        }

        /**
         * {@code measureInterval}: how often a home's size is measured at most (default 5 minutes).
         *
         * @param interval a positive duration
         * @return this
         */
        public Builder measureInterval(Duration interval) {
            this.measureInterval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /**
         * The clock for the measure interval (default UTC system clock).
         *
         * @param clock the clock
         * @return this
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Validates and builds.
         *
         * @return the homes
         * @throws IllegalArgumentException when neither root is set, a limit is out of range, or the homes root
         *                                  exists and is not a directory
         */
        public Homes build() {
            if (maxBytes < 0) {
                throw new IllegalArgumentException("homes maxBytes must be 0 (off) or more, got " + maxBytes);
            }
            if (measureInterval.isNegative() || measureInterval.isZero()) {
                throw new IllegalArgumentException("homes measureInterval must be positive, got " + measureInterval);
            }
            Path root = homesRoot;
            if (root == null) {
                if (workspaceRoot == null) {
                    throw new IllegalArgumentException("set homesRoot or workspaceRoot (homes default to <workspace>/../homes)");
                }
                Path ws = workspaceRoot.toAbsolutePath().normalize();
                if (ws.getParent() == null) {
                    throw new IllegalArgumentException("the workspace root has no parent for the default homes root; set homesRoot");
                }
                root = ws.resolveSibling("homes");
            }
            root = root.toAbsolutePath().normalize();
            if (Files.exists(root) && !Files.isDirectory(root)) {
                // else every job would fail later, each with the same puzzle
                throw new IllegalArgumentException("the homes root " + root + " exists and is not a directory; give a "
                        + "directory, or a path that does not exist yet (it is created when the first HOME is)");
            }
            return new Homes(this, root);
        }
    }
}
