package org.vancetope.worktarget.backend.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.InProcessEndpoint;
import org.vancetope.worktarget.core.internal.exec.ExecEngine;
import org.vancetope.worktarget.core.internal.exec.ExecResolver;
import org.vancetope.worktarget.core.internal.exec.ExecResolvers;
import org.vancetope.worktarget.core.internal.exec.ExecSetup;
import org.vancetope.worktarget.core.internal.exec.ExecTools;
import org.vancetope.worktarget.core.internal.file.FileEngine;
import org.vancetope.worktarget.core.internal.file.FileTools;
import org.vancetope.worktarget.core.internal.home.ExecEnvPolicy;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.BackendToolProvider;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.Peers;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The CLIENT backend for an agent that runs in the same JVM as its user's files: the
 * {@code client_file_*} and {@code client_exec_*} tools over one work directory, confined to it by the
 * same gate and engines as the WORK backend. Jobs run as the user, with the user's HOME,
 * in the work directory. As {@link Peers} it is the connected client of every session, so the dispatcher routes CLIENT
 * calls here ("the client is this machine").
 *
 * <pre>{@code
 * LocalBackend local = LocalBackend.builder().workDirectory(Path.of("/home/me/project")).build();
 * WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder()
 *         .processStore(store)
 *         .peers(local)
 *         .build();
 * }</pre>
 *
 * <p>It has no notion of sessions: every session sees the same work directory. {@link #close()} kills
 * the jobs it started (whole process trees).
 */
public final class LocalBackend implements BackendToolProvider, Peers, AutoCloseable {
    private final FileEngine files;
    private final ConfinedRoot gate;
    private final ExecEngine exec;
    private final List<BackendTool> tools;
    private final Endpoint endpoint;
    /** Set by {@link #close()}: no file call runs on a closed backend. */
    private volatile boolean closed;

    private LocalBackend(ConfinedRoot gate, Builder b) {
        this.gate = gate;
        gate.sweep(); // staged files a crashed process left behind go at start
        FileEngine engine = new FileEngine(b.settings);
        this.files = engine;
        this.exec = ExecSetup.engine(b.execSettings, b.hostEnv, false);
        List<BackendTool> all = new java.util.ArrayList<>(
                FileTools.create(ToolCatalog.CLIENT_PREFIX, engine, (params, ctx) -> openGate()));
        all.addAll(ExecTools.create(exec, ToolCatalog.CLIENT_PREFIX,
                ExecResolvers.client(gate, ExecEnvPolicy.client(b.hostEnv))));
        this.tools = List.copyOf(all);
        this.endpoint = new InProcessEndpoint("the local client (" + gate.root() + ")", tools);
    }

    private ConfinedRoot openGate() throws ToolException {
        if (closed) {
            throw InProcessEndpoint.closedBackend("local backend", "LocalBackend.close()");
        }
        return gate;
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
     * The canonical work directory.
     *
     * @return the directory every path is relative to
     */
    public Path workDirectory() {
        return gate.root();
    }

    @Override
    public String name() {
        return "local";
    }

    /**
     * Kills every job this backend started and waits for it: SIGTERM to each process tree, up to the
     * grace period ({@code killGrace}) for the trees to end, then SIGKILL to what still runs, all
     * before it returns, so that a JVM exiting next leaves no process behind. Then releases the exec
     * engine. A call on a closed backend fails {@code internal}, saying so.
     */
    @Override
    public void close() {
        closed = true;
        try {
            exec.close();
        } finally {
            files.close();    // the searches' idle threads
        }
    }

    /**
     * The process ended: the jobs of its own exec scope end too (whole process trees) and their output
     * files go. A session's jobs belong to the session and stay.
     *
     * @param process the process
     */
    @Override
    public void processEnded(ToolContext process) {
        if (process.sessionId() == null) {
            exec.closeScope(ExecResolver.defaultScope(process));
        }
    }

    /**
     * The seventeen {@code client_*} tools (thirteen file, four exec), with the catalog's specs.
     *
     * @return the tools
     */
    @Override
    public List<BackendTool> tools() {
        return tools;
    }

    /**
     * This machine as the client of every session: the endpoint for any {@link SessionKey}; no daemons.
     *
     * @param key the peer
     * @return this backend's endpoint for a session, empty for a daemon
     */
    @Override
    public Optional<Endpoint> find(PeerKey key) {
        return key instanceof SessionKey ? Optional.of(endpoint) : Optional.empty();
    }

    /**
     * None: a local backend has no daemons.
     *
     * @param tenant ignored
     * @param project ignored
     * @return an empty list
     */
    @Override
    public List<String> onlineDaemons(String tenant, String project) {
        return List.of();
    }

    /** Builds a {@link LocalBackend}. */
    public static final class Builder {
        private Path workDirectory;
        private FileToolSettings settings = FileToolSettings.defaults();
        private ExecSettings execSettings = ExecSettings.defaults();
        private Map<String, String> hostEnv = System.getenv();

        private Builder() {
        }

        /**
         * The limits of the exec tools (default {@link ExecSettings#defaults()}). Isolation settings do not
         * apply: CLIENT jobs run as the user.
         *
         * @param settings the limits
         * @return this
         */
        public Builder execSettings(ExecSettings settings) {
            this.execSettings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * The environment jobs start from (default: this process's environment; CLIENT keeps the user's
         * HOME and identity variables).
         *
         * @param env the host environment
         * @return this
         */
        public Builder hostEnvironment(Map<String, String> env) {
            this.hostEnv = Map.copyOf(Objects.requireNonNull(env, "env"));
            return this;
        }

        /**
         * The work directory (required); created when missing, canonicalised once (a symlink or a trailing
         * separator is fine). Any file system works.
         *
         * @param dir the directory
         * @return this
         */
        public Builder workDirectory(Path dir) {
            this.workDirectory = Objects.requireNonNull(dir, "dir");
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
         * Validates and builds.
         *
         * @return the backend
         * @throws IllegalStateException when the work directory is missing or cannot be created
         */
        public LocalBackend build() {
            if (workDirectory == null) {
                throw new IllegalStateException("workDirectory is required");
            }
            try {
                Files.createDirectories(workDirectory);
                return new LocalBackend(ConfinedRoot.of(workDirectory, settings.maxPathLength(),
                        settings.maxComponentLength()), this);
            } catch (IOException e) {
                throw new IllegalStateException("the work directory cannot be created or opened", e);
            }
        }
    }
}
