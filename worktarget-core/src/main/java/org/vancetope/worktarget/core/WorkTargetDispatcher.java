package org.vancetope.worktarget.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.Discovery;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.BackendToolProvider;
import org.vancetope.worktarget.spi.ClientConnectivity;
import org.vancetope.worktarget.spi.DaemonInvoker;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.DaemonStatus;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.ProcessStore;
import org.vancetope.worktarget.spi.RootDirCatalog;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * Runs the generic tools: per call it resolves the calling process's {@link WorkTarget} and routes
 * the wrapper ({@code file_read}, {@code exec_run}, …) to the backend tool that serves it.
 *
 * <ul>
 *   <li>CLIENT — needs a client bound to the process's session ({@code offline} otherwise); strips
 *       {@code dirName}; runs {@code client_*} through {@link ClientConnectivity}.</li>
 *   <li>DAEMON — strips {@code dirName}; looks the daemon up by (tenant, project, targetName); checks
 *       that its manifest has the tool; runs it through {@link DaemonInvoker} with a timeout.</li>
 *   <li>WORK — injects {@code dirName = targetName} unless the caller passed one; runs the
 *       in-process {@code work_*} tool.</li>
 * </ul>
 *
 * <p>Before any backend runs, a parameter guard rejects parameters the active backend does not
 * declare — whether unknown altogether or declared by the wrapper but ignored by this backend — and
 * lists what is accepted. Interceptors run next (in the order added), the backend call last; a
 * {@link DispatchListener} observes every call. The meta-tools {@code work_target_get} and
 * {@code work_target_set} are served by the dispatcher itself; host tools
 * ({@link Builder#hostTool}) run as they are, whatever the target.
 *
 * <pre>{@code
 * WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder()
 *         .processStore(store)
 *         .backend(workspaceBackend)          // the work_* tools
 *         .clientConnectivity(clients)        // optional: CLIENT
 *         .daemonInvoker(daemons)             // optional: DAEMON
 *         .build();
 * Map<String, Object> r = dispatcher.invoke("proc-1", "file_read", Map.of("path", "README.md"));
 * }</pre>
 *
 * <p>The dispatcher never touches paths or processes itself; backends never see work targets. It is
 * thread-safe.
 */
public final class WorkTargetDispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(WorkTargetDispatcher.class);

    /** The default timeout of a DAEMON call (spec: 60 s). */
    public static final Duration DEFAULT_DAEMON_TIMEOUT = Duration.ofSeconds(60);
    /** The default timeout of a CLIENT call. */
    public static final Duration DEFAULT_CLIENT_TIMEOUT = Duration.ofSeconds(60);

    private final ProcessStore processStore;
    private final WorkTargetService targets;
    private final ClientConnectivity clients;
    private final DaemonInvoker daemons;
    private final RootDirCatalog rootDirs;
    private final Map<String, BackendTool> localTools;
    private final List<BackendToolProvider> providers;
    private final Map<String, BackendTool> hostTools;
    private final List<ToolInterceptor> interceptors;
    private final DispatchListener listener;
    private final Duration daemonTimeout;
    private final Duration clientTimeout;

    private WorkTargetDispatcher(Builder b) {
        this.processStore = Objects.requireNonNull(b.processStore, "processStore is required");
        this.clients = b.clients;
        this.daemons = b.daemons;
        this.rootDirs = b.rootDirs;
        this.targets = WorkTargetService.builder().processStore(processStore).clientConnectivity(clients).build();
        Map<String, BackendTool> tools = new HashMap<>();
        Map<String, String> owner = new HashMap<>();
        for (BackendToolProvider p : b.providers) {
            for (BackendTool t : p.tools()) {
                String name = t.spec().name();
                String previous = owner.putIfAbsent(name, p.name());
                if (previous != null) {
                    throw new IllegalStateException("Two backends offer the tool '" + name + "': '" + previous + "' and '"
                            + p.name() + "'. Register only one of them (pass providers explicitly to the builder "
                            + "instead of discoverBackends(), or remove one jar from the class path).");
                }
                tools.put(name, t);
            }
        }
        this.localTools = Map.copyOf(tools);
        this.providers = List.copyOf(b.providers);
        Map<String, BackendTool> host = new HashMap<>();
        for (BackendTool t : b.hostTools) {
            String name = t.spec().name();
            if (ToolCatalog.wrapper(name).isPresent() || ToolCatalog.WORK_TARGET_GET.equals(name)
                    || ToolCatalog.WORK_TARGET_SET.equals(name) || host.putIfAbsent(name, t) != null) {
                throw new IllegalStateException("The host tool '" + name + "' clashes with a wrapper, a meta-tool or "
                        + "another host tool of the same name. Give it another name.");
            }
        }
        this.hostTools = Map.copyOf(host);
        this.interceptors = List.copyOf(b.interceptors);
        this.listener = b.listener;
        this.daemonTimeout = b.daemonTimeout;
        this.clientTimeout = b.clientTimeout;
    }

    /**
     * A new builder.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Tells every backend that a process ended, so that each frees what it holds for it: the WORK
     * backend disposes the process's temporary RootDir (and with it the jobs in it) and the jobs of its
     * own exec scope, a CLIENT backend in this JVM ends the process's jobs, and the client and daemon
     * sides pass it on to the connected clients and daemons that understand it. Call it once the
     * process made its last call, before the host forgets it. Jobs of a session outlive one of its
     * processes (they belong to the session). Never throws: a backend that fails is logged and the
     * others still hear of it.
     *
     * <pre>{@code
     * dispatcher.processEnded(process);     // e.g. when an agent's run finishes
     * }</pre>
     *
     * @param process the process (as the host's {@link ProcessStore} knew it)
     */
    public void processEnded(ProcessInfo process) {
        ToolContext ctx = ToolContext.of(Objects.requireNonNull(process, "process"));
        for (BackendToolProvider p : providers) {
            tell(p.name(), () -> p.processEnded(ctx));
        }
        if (clients != null) {
            tell("the client side", () -> clients.processEnded(ctx));
        }
        if (daemons != null) {
            tell("the daemon side", () -> daemons.processEnded(ctx));
        }
    }

    /**
     * {@link #processEnded(ProcessInfo)} for a process the {@link ProcessStore} still knows.
     *
     * @param processId the process
     * @return false when the store does not know the process (nothing was told)
     */
    public boolean processEnded(String processId) {
        Optional<ProcessInfo> p = processStore.find(processId);
        p.ifPresent(this::processEnded);
        return p.isPresent();
    }

    private static void tell(String who, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.warn("{} failed to free the state of an ended process", who, e);
        }
    }

    /**
     * The target service this dispatcher resolves targets with.
     *
     * @return the service
     */
    public WorkTargetService targets() {
        return targets;
    }

    /**
     * Runs a wrapper or meta-tool for a process.
     *
     * @param processId the calling process
     * @param tool a wrapper ({@code file_read} …) or meta-tool ({@code work_target_get}, {@code work_target_set})
     * @param params the parameters, JSON-shaped; null means none
     * @return the result, JSON-shaped
     * @throws ToolException {@code not_found} for an unknown process, {@code unknown_tool},
     *         {@code invalid_params}, {@code offline}, {@code timeout}, or the backend's own failure
     */
    public Map<String, Object> invoke(String processId, String tool, Map<String, Object> params) throws ToolException {
        long start = System.nanoTime();
        Map<String, Object> p = params == null ? Map.of() : params;
        ProcessInfo process = processStore.find(processId).orElse(null);
        if (process == null) {
            throw new ToolException(ErrorCode.NOT_FOUND, "No process '" + processId + "' is known to the host.");
        }
        ToolContext ctx = ToolContext.of(process);
        WorkTarget target = targets.current(process);
        ToolInvocation invocation;
        Link terminal;
        try {
            BackendTool hostTool = hostTools.get(tool);
            if (hostTool != null) {
                guard(hostTool.spec(), hostTool.spec(), p, "the host");
                invocation = new ToolInvocation(tool, target, tool, p, ctx);
                terminal = inv -> hostTool.invoke(inv.params(), inv.context());
            } else if (ToolCatalog.WORK_TARGET_GET.equals(tool) || ToolCatalog.WORK_TARGET_SET.equals(tool)) {
                ToolSpec meta = ToolCatalog.metaTools().stream().filter(s -> s.name().equals(tool)).findFirst().orElseThrow();
                guard(meta, meta, p, "the dispatcher");
                invocation = new ToolInvocation(tool, target, tool, p, ctx);
                terminal = ToolCatalog.WORK_TARGET_GET.equals(tool) ? inv -> get(process) : inv -> set(process, inv.params());
            } else {
                ToolSpec wrapper = ToolCatalog.wrapper(tool).orElseThrow(() -> new ToolException(ErrorCode.UNKNOWN_TOOL,
                        "Unknown tool '" + tool + "'. Available: " + availableTools() + "."));
                Routed routed = switch (target.kind()) {
                    case CLIENT -> routeClient(process, wrapper, p);
                    case DAEMON -> routeDaemon(process, target, wrapper, p);
                    case WORK -> routeWork(target, wrapper, p);
                };
                invocation = new ToolInvocation(tool, target, routed.backendName, routed.params, ctx);
                terminal = routed.link;
            }
        } catch (ToolException e) {
            safeListener(() -> listener.callFailed(new ToolInvocation(tool, target, tool, Map.of(), ctx),
                    Duration.ofNanos(System.nanoTime() - start), e));
            throw e;
        }
        ToolInvocation started = invocation;
        safeListener(() -> listener.callStarted(started));
        try {
            Map<String, Object> result = new Chain(0, invocation, terminal).proceed(invocation);
            Map<String, Object> r = result == null ? Map.of() : result;
            safeListener(() -> listener.callFinished(started, Duration.ofNanos(System.nanoTime() - start), r));
            return r;
        } catch (ToolException e) {
            safeListener(() -> listener.callFailed(started, Duration.ofNanos(System.nanoTime() - start), e));
            throw e;
        } catch (RuntimeException e) {
            // A misbehaving interceptor: report the failure so listeners stay balanced, then rethrow the bug.
            ToolException reported = new ToolException(ErrorCode.INTERNAL, "An interceptor failed: " + e, e);
            safeListener(() -> listener.callFailed(started, Duration.ofNanos(System.nanoTime() - start), reported));
            throw e;
        }
    }

    private String availableTools() {
        List<String> names = new ArrayList<>();
        ToolCatalog.wrappers().forEach(s -> names.add(s.name()));
        ToolCatalog.metaTools().forEach(s -> names.add(s.name()));
        names.addAll(new java.util.TreeSet<>(hostTools.keySet()));
        return String.join(", ", names);
    }

    private Routed routeClient(ProcessInfo process, ToolSpec wrapper, Map<String, Object> params) throws ToolException {
        if (clients == null || process.sessionId() == null || !clients.isBound(process.tenant(), process.sessionId())) {
            throw new ToolException(ErrorCode.OFFLINE, "The work target is CLIENT, but no client is connected to this "
                    + "session, so " + wrapper.name() + " cannot run. Reconnect the client, or call work_target_set "
                    + "(for example kind WORK) to run on the server workspace instead.");
        }
        String backend = ToolCatalog.backendName(wrapper.name(), WorkTargetKind.CLIENT);
        Map<String, Object> routed = new LinkedHashMap<>(params);
        routed.remove(ToolCatalog.DIR_NAME);
        ToolSpec spec = clients.manifest(process.tenant(), process.sessionId())
                .flatMap(m -> find(m, backend))
                .or(() -> ToolCatalog.backend(backend))
                .orElseThrow();
        guard(wrapper, spec, routed, "the CLIENT backend (" + backend + ")");
        String tenant = process.tenant();
        String session = process.sessionId();
        return new Routed(backend, routed, inv -> clients.invoke(tenant, session, backend, inv.params(), inv.context(),
                clientTimeout));
    }

    private Routed routeDaemon(ProcessInfo process, WorkTarget target, ToolSpec wrapper, Map<String, Object> params)
            throws ToolException {
        DaemonKey key = new DaemonKey(process.tenant(), process.project(), target.targetName());
        String backend = ToolCatalog.backendName(wrapper.name(), WorkTargetKind.DAEMON);
        if (daemons == null) {
            throw new ToolException(ErrorCode.OFFLINE, "The work target is DAEMON '" + key.name() + "', but this host has "
                    + "no daemon connectivity configured. Call work_target_set with kind WORK or CLIENT.");
        }
        DaemonStatus status = daemons.status(key);
        switch (status.state()) {
            case OFFLINE -> throw new ToolException(ErrorCode.OFFLINE, "Daemon '" + key.name() + "' of project '"
                    + key.project() + "' is offline. Online daemons: " + onlineList(process) + ". Start the daemon or "
                    + "call work_target_set to switch to another target.");
            case STALE -> throw new ToolException(ErrorCode.OFFLINE, "Daemon '" + key.name() + "' of project '"
                    + key.project() + "' is connected but stopped answering heartbeats; its calls would time out. "
                    + "Wait for it to recover or reconnect, or call work_target_set to switch to another target.");
            case ONLINE -> { }
        }
        ToolSpec spec = find(status.manifest(), backend).orElseThrow(() -> new ToolException(ErrorCode.UNKNOWN_TOOL,
                "Daemon '" + key.name() + "' does not offer " + backend + " (its manifest has: "
                        + String.join(", ", status.manifest().stream().map(ToolSpec::name).toList())
                        + "). Update the daemon, or call work_target_set to use another target."));
        Map<String, Object> routed = new LinkedHashMap<>(params);
        routed.remove(ToolCatalog.DIR_NAME);
        guard(wrapper, spec, routed, "the DAEMON backend (" + backend + " on daemon '" + key.name() + "')");
        return new Routed(backend, routed, inv -> daemons.invoke(key, backend, inv.params(), inv.context(), daemonTimeout));
    }

    private Routed routeWork(WorkTarget target, ToolSpec wrapper, Map<String, Object> params) throws ToolException {
        String backend = ToolCatalog.backendName(wrapper.name(), WorkTargetKind.WORK);
        BackendTool tool = localTools.get(backend);
        if (tool == null) {
            throw new ToolException(ErrorCode.UNKNOWN_TOOL, "The work target is WORK, but no workspace backend offering "
                    + backend + " is configured on this host. Call work_target_set with kind CLIENT or DAEMON.");
        }
        Map<String, Object> routed = new LinkedHashMap<>(params);
        if (target.targetName() != null && routed.get(ToolCatalog.DIR_NAME) == null
                && tool.spec().parameterNames().contains(ToolCatalog.DIR_NAME)) {
            routed.put(ToolCatalog.DIR_NAME, target.targetName());
        }
        guard(wrapper, tool.spec(), routed, "the WORK backend (" + backend + ")");
        return new Routed(backend, routed, inv -> tool.invoke(inv.params(), inv.context()));
    }

    private static Optional<ToolSpec> find(List<ToolSpec> manifest, String name) {
        for (ToolSpec s : manifest) {
            if (s.name().equals(name)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    private static void guard(ToolSpec wrapper, ToolSpec backend, Map<String, Object> params, String where)
            throws ToolException {
        Set<String> accepted = backend.parameterNames();
        // An open backend schema (JSON Schema: additionalProperties is not false) accepts what it does not
        // declare; it is then checked against the wrapper's own parameters, which still catches a typo.
        if (backend.acceptsUndeclaredParameters()) {
            Set<String> union = new java.util.LinkedHashSet<>(accepted);
            union.addAll(wrapper.parameterNames());
            accepted = union;
        }
        for (String key : params.keySet()) {
            if (accepted.contains(key)) {
                continue;
            }
            String acceptedList = accepted.isEmpty() ? "none" : String.join(", ", accepted);
            if (wrapper.parameterNames().contains(key)) {
                throw new ToolException(ErrorCode.INVALID_PARAMS, "Parameter '" + key + "' of " + wrapper.name()
                        + " is not supported by " + where + " and would be ignored. Remove it. Accepted here: "
                        + acceptedList + ".");
            }
            throw new ToolException(ErrorCode.INVALID_PARAMS, "Unknown parameter '" + key + "' for " + wrapper.name()
                    + ". Accepted: " + acceptedList + ".");
        }
        for (String required : backend.requiredParameters()) {
            if (params.get(required) == null) {
                throw new ToolException(ErrorCode.INVALID_PARAMS, "Missing required parameter '" + required + "' for "
                        + wrapper.name() + ".");
            }
        }
    }

    private Map<String, Object> get(ProcessInfo process) {
        Map<String, Object> r = new LinkedHashMap<>();
        Optional<WorkTarget> stored = targets.stored(process);
        WorkTarget current = stored.orElseGet(() -> targets.defaultFor(process));
        r.put("current", current.toMap());
        r.put("explicit", stored.isPresent());
        r.put("clientBound", clients != null && process.sessionId() != null
                && clients.isBound(process.tenant(), process.sessionId()));
        r.put("rootDirs", rootDirs == null ? List.of() : rootDirs.rootDirNames(process.tenant(), process.project()));
        r.put("daemons", daemons == null ? List.of() : daemons.onlineDaemons(process.tenant(), process.project()));
        return r;
    }

    private Map<String, Object> set(ProcessInfo process, Map<String, Object> params) throws ToolException {
        String kindText = Params.requireString(params, "kind");
        String name = Params.optString(params, "targetName", null);
        WorkTarget target;
        try {
            target = new WorkTarget(WorkTarget.parseKind(kindText), name);
        } catch (IllegalArgumentException e) {
            throw Params.invalid(e.getMessage());
        }
        if (target.kind() == WorkTargetKind.WORK && target.targetName() != null) {
            try {
                Segments.require("targetName (a RootDir name)", target.targetName());
            } catch (ToolException e) {
                throw Params.invalid(e.getMessage());
            }
        }
        if (target.kind() == WorkTargetKind.DAEMON && !DaemonKey.isValidName(target.targetName())) {
            throw Params.invalid("Daemon names are " + DaemonKey.NAME_RULE + "; got '" + target.targetName() + "'.");
        }
        WorkTarget previous = targets.set(process.id(), target);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("previous", previous.toMap());
        r.put("current", target.toMap());
        return r;
    }

    private String onlineList(ProcessInfo process) {
        List<String> online = daemons.onlineDaemons(process.tenant(), process.project());
        return online.isEmpty() ? "none" : String.join(", ", online);
    }

    private static void safeListener(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.warn("A DispatchListener threw; ignoring it", e);
        }
    }

    @FunctionalInterface
    private interface Link {
        Map<String, Object> call(ToolInvocation invocation) throws ToolException;
    }

    private record Routed(String backendName, Map<String, Object> params, Link link) {
    }

    private final class Chain implements ToolInterceptor.Chain {
        private final int index;
        private final ToolInvocation invocation;
        private final Link terminal;

        Chain(int index, ToolInvocation invocation, Link terminal) {
            this.index = index;
            this.invocation = invocation;
            this.terminal = terminal;
        }

        @Override
        public ToolInvocation invocation() {
            return invocation;
        }

        @Override
        public Map<String, Object> proceed(ToolInvocation next) throws ToolException {
            Objects.requireNonNull(next, "invocation");
            if (!next.tool().equals(invocation.tool()) || !next.backendTool().equals(invocation.backendTool())
                    || !next.target().equals(invocation.target()) || !next.context().equals(invocation.context())) {
                throw new IllegalStateException("An interceptor may change only the parameters of an invocation");
            }
            if (index < interceptors.size()) {
                return interceptors.get(index).intercept(new Chain(index + 1, next, terminal));
            }
            try {
                return terminal.call(next);
            } catch (ToolException e) {
                throw e;
            } catch (Throwable e) {
                // Errors too (StackOverflowError, OutOfMemoryError): the call gets an answer, the host carries on
                LOG.error("Backend tool {} failed unexpectedly (process {})", next.backendTool(),
                        next.context().processId(), e);
                throw new ToolException(ErrorCode.INTERNAL, next.tool() + " failed unexpectedly in " + next.backendTool()
                        + " (" + e.getClass().getSimpleName() + "). This is a bug on the host; retrying may not help.", e);
            }
        }
    }

    /** Builds a {@link WorkTargetDispatcher}. */
    public static final class Builder {
        private ProcessStore processStore;
        private ClientConnectivity clients;
        private DaemonInvoker daemons;
        private RootDirCatalog rootDirs;
        private final List<BackendToolProvider> providers = new ArrayList<>();
        private final List<ToolInterceptor> interceptors = new ArrayList<>();
        private final List<BackendTool> hostTools = new ArrayList<>();
        private DispatchListener listener = DispatchListener.NONE;
        private Duration daemonTimeout = DEFAULT_DAEMON_TIMEOUT;
        private Duration clientTimeout = DEFAULT_CLIENT_TIMEOUT;

        private Builder() {
        }

        /**
         * The host's process store (required).
         *
         * @param store the store
         * @return this
         */
        public Builder processStore(ProcessStore store) {
            this.processStore = store;
            return this;
        }

        /**
         * Client connectivity for the CLIENT target (optional; without it CLIENT calls fail {@code offline}).
         *
         * @param connectivity the connectivity
         * @return this
         */
        public Builder clientConnectivity(ClientConnectivity connectivity) {
            this.clients = connectivity;
            return this;
        }

        /**
         * The daemon seam for the DAEMON target (optional; without it DAEMON calls fail {@code offline}).
         *
         * @param invoker the invoker
         * @return this
         */
        public Builder daemonInvoker(DaemonInvoker invoker) {
            this.daemons = invoker;
            return this;
        }

        /**
         * Lists RootDir names for {@code work_target_get} (optional).
         *
         * @param catalog the catalog
         * @return this
         */
        public Builder rootDirCatalog(RootDirCatalog catalog) {
            this.rootDirs = catalog;
            return this;
        }

        /**
         * Adds an in-process backend (the {@code work_*} tools of the workspace backend, or your own).
         *
         * @param provider the provider
         * @return this
         */
        public Builder backend(BackendToolProvider provider) {
            this.providers.add(Objects.requireNonNull(provider, "provider"));
            return this;
        }

        /**
         * Adds every {@link BackendToolProvider} found by {@link java.util.ServiceLoader} on the context
         * class loader. A provider that fails to load is logged and skipped; one built for another SPI
         * version, or two offering the same tool, fail {@link #build()}.
         *
         * @return this
         */
        public Builder discoverBackends() {
            this.providers.addAll(Discovery.backendProviders(null));
            return this;
        }

        /**
         * Adds a host tool: a tool the dispatcher runs as it is, whatever the target, with the same
         * parameter guard, interceptors and listener as the wrappers. For tools that are not per-target
         * operations, such as {@code client_file_upload}, {@code client_file_download} and
         * {@code workspace_create_ephemeral_dir}.
         *
         * @param tool the tool; its name must not be a wrapper's or a meta-tool's
         * @return this
         */
        public Builder hostTool(BackendTool tool) {
            this.hostTools.add(Objects.requireNonNull(tool, "tool"));
            return this;
        }

        /**
         * Appends an interceptor; interceptors run in the order added, before the backend call.
         *
         * @param interceptor the interceptor
         * @return this
         */
        public Builder interceptor(ToolInterceptor interceptor) {
            this.interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /**
         * Sets the listener (default: none).
         *
         * @param l the listener
         * @return this
         */
        public Builder listener(DispatchListener l) {
            this.listener = Objects.requireNonNull(l, "listener");
            return this;
        }

        /**
         * The timeout of DAEMON calls (default 60 s, the spec's {@code daemon-timeout-seconds}).
         *
         * @param timeout a positive duration
         * @return this
         */
        public Builder daemonTimeout(Duration timeout) {
            this.daemonTimeout = positive(timeout, "daemonTimeout");
            return this;
        }

        /**
         * The timeout of CLIENT calls (default 60 s).
         *
         * @param timeout a positive duration
         * @return this
         */
        public Builder clientTimeout(Duration timeout) {
            this.clientTimeout = positive(timeout, "clientTimeout");
            return this;
        }

        private static Duration positive(Duration d, String what) {
            Objects.requireNonNull(d, what);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, got " + d);
            }
            return d;
        }

        /**
         * Builds the dispatcher.
         *
         * @return the dispatcher
         * @throws NullPointerException without a process store
         * @throws IllegalStateException when two backends offer the same tool
         */
        public WorkTargetDispatcher build() {
            return new WorkTargetDispatcher(this);
        }
    }

    /**
     * The names of the in-process backend tools this dispatcher can run.
     *
     * @return the names
     */
    public Set<String> localBackendTools() {
        return Collections.unmodifiableSet(localTools.keySet());
    }
}
