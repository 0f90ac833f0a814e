package org.vancetope.worktarget.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.Discovery;
import org.vancetope.worktarget.core.internal.InProcessEndpoint;
import org.vancetope.worktarget.core.internal.JsonValues;
import org.vancetope.worktarget.core.internal.ParameterGuard;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.BackendToolProvider;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.Peers;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.ProcessStore;
import org.vancetope.worktarget.spi.RootDirCatalog;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * Runs the generic tools: per call it resolves the calling process's {@link WorkTarget} to one
 * {@link Endpoint} and runs the wrapper ({@code file_read}, {@code exec_run}, …) as the backend tool
 * that serves it there.
 *
 * <ul>
 *   <li>CLIENT — the endpoint of the client connected to the process's session ({@code offline}
 *       otherwise); {@code dirName} is stripped; runs {@code client_*}.</li>
 *   <li>DAEMON — the endpoint of the daemon named by (tenant, project, targetName); {@code dirName} is
 *       stripped; its manifest must have the tool; runs {@code client_*} with a timeout.</li>
 *   <li>WORK — the in-process backends; {@code dirName = targetName} is injected unless the caller
 *       passed one; runs {@code work_*}.</li>
 * </ul>
 *
 * <p>One call is one chain: the {@linkplain Builder#interceptor interceptors} (in the order added) →
 * routing, which resolves the endpoint once ({@code offline} and {@code unknown_tool} are thrown here,
 * inside the chain, so an interceptor sees them and may, for example, proceed with another target) and
 * guards the parameters against the backend tool's spec → the
 * {@linkplain Builder#backendInterceptor backend interceptors} → the endpoint call. The guard rejects
 * parameters the backend does not declare — unknown altogether, or declared by the wrapper but ignored
 * by this backend — and lists what is accepted; parameters a backend interceptor changed are guarded
 * again. A {@link DispatchListener} observes every call, failed ones included (an unknown process or
 * tool too). The meta-tools {@code work_target_get} and {@code work_target_set} are served by the
 * dispatcher itself; host tools ({@link Builder#hostTool}) run as they are, whatever the target, and
 * get the endpoint of the caller's remote peer in {@link ToolContext#peer()}.
 *
 * <pre>{@code
 * WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder()
 *         .processStore(store)
 *         .backend(workspaceBackend)          // the work_* tools
 *         .peers(server.peers())              // optional: CLIENT and DAEMON
 *         .build();
 * Map<String, Object> r = dispatcher.invoke("proc-1", "file_read", Map.of("path", "README.md"));
 * }</pre>
 *
 * <p>The dispatcher never touches paths or processes itself; backends never see work targets. It is
 * thread-safe.
 */
public final class WorkTargetDispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(WorkTargetDispatcher.class);
    private static final String EXEC_RUN = "exec_run";
    private static final String EXEC_ENV = "env";
    /** How long {@code exec_run} waits for the job's exit, in ms; the peer call's timeout grows by it. */
    private static final String WAIT_MS = "waitMs";

    /** The default timeout of a DAEMON call: 60 s, plus the {@code waitMs} of an {@code exec_run}. */
    public static final Duration DEFAULT_DAEMON_TIMEOUT = Duration.ofSeconds(60);
    /** The default timeout of a CLIENT call. */
    public static final Duration DEFAULT_CLIENT_TIMEOUT = Duration.ofSeconds(60);

    private final ProcessStore processStore;
    private final WorkTargetService targets;
    private final PeerList peers;
    private final RootDirCatalog rootDirs;
    private final Map<String, BackendTool> localTools;
    private final Endpoint work;
    private final List<BackendToolProvider> providers;
    private final Map<String, BackendTool> hostTools;
    private final List<ToolInterceptor> interceptors;
    private final List<ToolInterceptor> backendInterceptors;
    /** The calls of each process in progress, by process id, for {@link #processEnded(ProcessInfo)}. */
    private final ConcurrentHashMap<String, InFlight> inFlight = new ConcurrentHashMap<>();

    /**
     * The calls of one process in progress, and whether the process ended meanwhile; changed only inside the
     * map's {@code compute} of its key.
     */
    private static final class InFlight {
        int calls;
        ProcessInfo ended;
    }
    private final DispatchListener listener;
    private final Duration daemonTimeout;
    private final Duration clientTimeout;

    private WorkTargetDispatcher(Builder b) {
        this.processStore = Objects.requireNonNull(b.processStore, "processStore is required");
        this.peers = new PeerList(b.peers);
        this.rootDirs = b.rootDirs != null ? b.rootDirs : b.providers.stream()
                .filter(RootDirCatalog.class::isInstance).map(RootDirCatalog.class::cast).findFirst().orElse(null);
        this.targets = WorkTargetService.builder().processStore(processStore).peers(b.peers.isEmpty() ? null : peers)
                .build();
        Map<String, BackendTool> tools = new HashMap<>();
        Map<String, String> owner = new HashMap<>();
        for (BackendToolProvider p : b.providers) {
            Discovery.checkVersion(p);
            List<BackendTool> offered = p.tools();
            if (offered == null) {
                throw new IllegalStateException("BackendToolProvider '" + p.name() + "' (" + p.getClass().getName()
                        + ") returned null from tools(); return its tools, or an empty list.");
            }
            Set<String> own = new HashSet<>();
            for (BackendTool t : offered) {
                if (t == null) {
                    throw new IllegalStateException("BackendToolProvider '" + p.name() + "' returned a null tool from "
                            + "tools(); leave it out.");
                }
                String name = t.spec().name();
                if (!own.add(name)) {
                    throw new IllegalStateException("BackendToolProvider '" + p.name() + "' offers the tool '" + name
                            + "' twice; its tools() must name each tool once.");
                }
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
        this.work = new InProcessEndpoint("the in-process backends", List.copyOf(localTools.values()));
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
        this.backendInterceptors = List.copyOf(b.backendInterceptors);
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
     * process made its last call. Jobs of a session outlive one of its processes (they belong to the
     * session). Never throws: a backend that fails is logged and the others still hear of it.
     *
     * <p>A process ended while some of its calls still run (a client that went away mid-call): the jobs
     * in its temp RootDir are killed at once, the RootDir goes when the calls working in it have returned,
     * and the WORK backend refuses it to new calls until then. A call that starts after that begins a
     * new temp RootDir, so a host whose calls may race the end takes the process out of its
     * {@link ProcessStore} first (no new call finds it) and then passes it here. A call that found the
     * process before may reach its backend only after this; when the last such call returns, the backends
     * hear of the end once more, so that a temp RootDir or a job it made goes too (unless the host has
     * registered a process of that id again by then).
     *
     * <pre>{@code
     * store.remove(process.id());           // e.g. when an agent's run finishes: no new call finds it
     * dispatcher.processEnded(process);     // its temp RootDir and jobs go
     * }</pre>
     *
     * @param process the process (as the host's {@link ProcessStore} knew it)
     */
    public void processEnded(ProcessInfo process) {
        ToolContext ctx = ToolContext.of(Objects.requireNonNull(process, "process"));
        // a call that found the process before the host took it out of its store may still reach a backend
        // after this, and make a new temp RootDir or start a job there: the last such call tells them again
        inFlight.computeIfPresent(process.id(), (id, f) -> {
            f.ended = process;
            return f;
        });
        tellProviders(ctx);
        peers.processEnded(ctx);
    }

    private void tellProviders(ToolContext ctx) {
        for (BackendToolProvider p : providers) {
            tell(p.name(), () -> p.processEnded(ctx));
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

    static void tell(String who, Runnable call) {
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
     *         {@code invalid_params}, {@code offline}, {@code timeout}, {@code cancelled} when the calling
     *         thread is interrupted, or the backend's own failure
     */
    public Map<String, Object> invoke(String processId, String tool, Map<String, Object> params) throws ToolException {
        // counted before the process is looked up: a call that finds it is always seen by processEnded
        String key = Objects.toString(processId, "");
        inFlight.compute(key, (id, f) -> {
            InFlight in = f == null ? new InFlight() : f;
            in.calls++;
            return in;
        });
        try {
            return call(processId, tool, params);
        } finally {
            ProcessInfo[] endedMeanwhile = new ProcessInfo[1];
            inFlight.computeIfPresent(key, (id, f) -> {
                if (--f.calls > 0) {
                    return f;
                }
                endedMeanwhile[0] = f.ended;
                return null;
            });
            // (unless the host registered the id again meanwhile: then what is there is the new process's)
            if (endedMeanwhile[0] != null && processStore.find(key).isEmpty()) {
                tellProviders(ToolContext.of(endedMeanwhile[0]));
            }
        }
    }

    private Map<String, Object> call(String processId, String tool, Map<String, Object> params) throws ToolException {
        if (tool == null) {
            throw new ToolException(ErrorCode.UNKNOWN_TOOL, "The call names no tool (null). Available: "
                    + availableTools() + ".");
        }
        long start = System.nanoTime();
        Map<String, Object> p = params == null ? Map.of() : params;
        ProcessInfo process = processStore.find(processId).orElse(null);
        if (process == null) {
            ToolException e = new ToolException(ErrorCode.NOT_FOUND, "No process '" + processId + "' is known to the "
                    + "host. Register the process in the host's ProcessStore before it calls tools.");
            ToolContext unknown = new ToolContext(processId, null, "", "", null);
            safeListener(() -> listener.callFailed(new ToolInvocation(tool, WorkTarget.WORK_TEMP, tool, Map.of(), unknown),
                    Duration.ofNanos(System.nanoTime() - start), e));
            throw e;
        }
        ToolContext ctx = ToolContext.of(process);
        WorkTargetService.Current current = targets.resolve(process);
        WorkTarget target = current.target();
        if (!hostTools.containsKey(tool) && !isMeta(tool) && ToolCatalog.wrapper(tool).isEmpty()) {
            ToolException e = new ToolException(ErrorCode.UNKNOWN_TOOL, "Unknown tool '" + tool + "'. Available: "
                    + availableTools() + ".");
            safeListener(() -> listener.callFailed(new ToolInvocation(tool, target, tool, Map.of(), ctx),
                    Duration.ofNanos(System.nanoTime() - start), e));
            throw e;
        }
        ToolInvocation invocation = new ToolInvocation(tool, target, ToolInvocation.backendToolOf(tool, target), p, ctx);
        safeListener(() -> listener.callStarted(invocation));
        try {
            Map<String, Object> result = new InterceptorChain(interceptors, 0, invocation, true,
                    inv -> route(process, inv, current.client()))
                    .proceed(invocation);
            // a host's backend may answer any Number: handed out in one shape (Integer when it fits), as JSON gives
            Map<String, Object> r = result == null ? Map.of() : JsonValues.normalized(result);
            safeListener(() -> listener.callFinished(invocation, Duration.ofNanos(System.nanoTime() - start), r));
            return r;
        } catch (ToolException e) {
            if (e.code() == ErrorCode.INTERNAL) {
                // the caller sees only "internal": the operator needs the cause (a full disk, a damaged file)
                LOG.warn("{} on {} for process {} failed: {}", tool, target, processId, e.getMessage(), e.getCause());
            }
            safeListener(() -> listener.callFailed(invocation, Duration.ofNanos(System.nanoTime() - start), e));
            throw e;
        } catch (RuntimeException e) {
            // A misbehaving interceptor: report the failure so listeners stay balanced, then rethrow the bug.
            ToolException reported = new ToolException(ErrorCode.INTERNAL, "An interceptor failed: " + e, e);
            safeListener(() -> listener.callFailed(invocation, Duration.ofNanos(System.nanoTime() - start), reported));
            throw e;
        }
    }

    private static boolean isMeta(String tool) {
        return ToolCatalog.WORK_TARGET_GET.equals(tool) || ToolCatalog.WORK_TARGET_SET.equals(tool);
    }

    private String availableTools() {
        List<String> names = new ArrayList<>();
        ToolCatalog.wrappers().forEach(s -> names.add(s.name()));
        ToolCatalog.metaTools().forEach(s -> names.add(s.name()));
        names.addAll(new java.util.TreeSet<>(hostTools.keySet()));
        return String.join(", ", names);
    }

    /**
     * The routing link, last of the user interceptors: resolves the invocation's target to its endpoint
     * (once), fits and guards the parameters, then runs the backend interceptors and the endpoint call.
     */
    private Map<String, Object> route(ProcessInfo process, ToolInvocation inv, Endpoint defaultClient)
            throws ToolException {
        String tool = inv.tool();
        BackendTool hostTool = hostTools.get(tool);
        if (hostTool != null) {
            guard(hostTool.spec(), hostTool.spec(), inv.params(), "the host");
            ToolContext withPeer = inv.context().withEndpoint(remotePeer(process, inv.target()).orElse(null));
            return backendChain(inv, hostTool.spec(), hostTool.spec(), "the host",
                    call -> hostTool.invoke(call.params(), withPeer));
        }
        if (isMeta(tool)) {
            ToolSpec meta = ToolCatalog.metaTools().stream().filter(s -> s.name().equals(tool)).findFirst().orElseThrow();
            guard(meta, meta, inv.params(), "the dispatcher");
            return backendChain(inv, meta, meta, "the dispatcher", ToolCatalog.WORK_TARGET_GET.equals(tool)
                    ? call -> get(process) : call -> set(process, call.params()));
        }
        ToolSpec wrapper = ToolCatalog.wrapper(tool).orElseThrow();
        WorkTarget target = inv.target();
        String backend = inv.backendTool();
        Endpoint endpoint;
        ToolSpec spec;
        Map<String, Object> routed = inv.params(); // copied only when routing changes it
        String where;
        Duration timeout;
        switch (target.kind()) {
            case CLIENT -> {
                // the default CLIENT target was chosen for the client found then: not looked up twice
                endpoint = defaultClient != null ? defaultClient
                        : process.sessionId() == null ? null : peers.find(sessionKey(process)).orElse(null);
                if (endpoint == null) {
                    throw new ToolException(ErrorCode.OFFLINE, "The work target is CLIENT, but no client is "
                            + "connected to this session, so " + tool + " cannot run. Reconnect the client, or call "
                            + "work_target_set (for example kind WORK) to run on the server workspace instead.");
                }
                spec = find(endpoint.manifest(), backend).or(() -> ToolCatalog.backend(backend)).orElseThrow();
                routed = without(routed, ToolCatalog.DIR_NAME);
                where = "the CLIENT backend (" + backend + ")";
                timeout = clientTimeout;
            }
            case DAEMON -> {
                DaemonKey key = new DaemonKey(process.tenant(), process.project(), target.targetName());
                endpoint = daemon(process, key);
                spec = find(endpoint.manifest(), backend).orElseThrow(() -> new ToolException(ErrorCode.UNKNOWN_TOOL,
                        "Daemon '" + key.name() + "' does not offer " + backend + " (its manifest has: "
                                + String.join(", ", endpoint.manifest().stream().map(ToolSpec::name).toList())
                                + "). Update the daemon, or call work_target_set to use another target."));
                routed = without(routed, ToolCatalog.DIR_NAME);
                where = "the DAEMON backend (" + backend + " on daemon '" + key.name() + "')";
                timeout = daemonTimeout;
            }
            case WORK -> {
                BackendTool local = localTools.get(backend);
                if (local == null) {
                    throw new ToolException(ErrorCode.UNKNOWN_TOOL, "The work target is WORK, but no workspace backend "
                            + "offering " + backend + " is configured on this host. Call work_target_set with kind "
                            + "CLIENT or DAEMON.");
                }
                endpoint = work;
                spec = local.spec();
                if (target.targetName() != null && routed.get(ToolCatalog.DIR_NAME) == null
                        && spec.parameterNames().contains(ToolCatalog.DIR_NAME)) {
                    routed = new LinkedHashMap<>(routed);
                    routed.put(ToolCatalog.DIR_NAME, target.targetName());
                }
                where = "the WORK backend (" + backend + ")";
                timeout = daemonTimeout;
            }
            default -> throw new IllegalStateException("unknown kind " + target.kind());
        }
        if (routed.get(EXEC_ENV) instanceof List<?> && ToolCatalog.wrapper(EXEC_RUN).orElseThrow() == wrapper) {
            // The list form of env (strict tool schemas cannot express a map) goes to every backend as the
            // map that backends of any version read.
            Map<String, Object> copy = new LinkedHashMap<>(routed);
            copy.put(EXEC_ENV, Params.optStringMap(routed, EXEC_ENV));
            routed = copy;
        }
        guard(wrapper, spec, routed, where);
        Endpoint resolved = endpoint;
        Duration wait = withCallersWait(timeout, routed);
        return backendChain(routed == inv.params() ? inv : inv.withParams(routed), wrapper, spec, where,
                call -> resolved.invoke(backend, call.params(), call.context(), wait));
    }

    /**
     * The timeout of a call to a peer, longer by the wait the caller asked of the tool ({@code waitMs} of
     * {@code exec_run}): a job that is to run 90 s while the caller waits for it must not fail a 60 s timeout
     * (which cancels the call on the peer, and with it the job). Waits beyond a day count as a day.
     */
    private static Duration withCallersWait(Duration timeout, Map<String, Object> params) {
        if (params.get(WAIT_MS) instanceof Number n && n.longValue() > 0) {
            return timeout.plusMillis(Math.min(n.longValue(), Duration.ofDays(1).toMillis()));
        }
        return timeout;
    }

    private static Map<String, Object> without(Map<String, Object> params, String key) {
        if (!params.containsKey(key)) {
            return params;
        }
        Map<String, Object> copy = new LinkedHashMap<>(params);
        copy.remove(key);
        return copy;
    }

    /** The backend interceptors, then the call; parameters a backend interceptor changed are guarded again. */
    private Map<String, Object> backendChain(ToolInvocation routed, ToolSpec wrapper, ToolSpec spec, String where,
                                             InterceptorChain.Link call) throws ToolException {
        Map<String, Object> guarded = routed.params();
        InterceptorChain.Link terminal = next -> {
            if (next.params() != guarded && !next.params().equals(guarded)) {
                guard(wrapper, spec, next.params(), where);
            }
            return call.call(next);
        };
        return new InterceptorChain(backendInterceptors, 0, routed, false, terminal).proceed(routed);
    }

    private Endpoint daemon(ProcessInfo process, DaemonKey key) throws ToolException {
        Endpoint endpoint = peers.find(key).orElseThrow(() -> new ToolException(ErrorCode.OFFLINE, "Daemon '"
                + key.name() + "' of project '" + key.project() + "' is offline. Online daemons: " + onlineList(process)
                + ". Start the daemon or call work_target_set to switch to another target."));
        if (endpoint.isStale()) {
            throw new ToolException(ErrorCode.OFFLINE, "Daemon '" + key.name() + "' of project '" + key.project()
                    + "' is connected but stopped answering heartbeats; its calls would time out. Wait for it to "
                    + "recover or reconnect, or call work_target_set to switch to another target.");
        }
        return endpoint;
    }

    /** The remote peer a host tool works with: the named daemon for DAEMON, the session's client otherwise. */
    private Optional<Endpoint> remotePeer(ProcessInfo process, WorkTarget target) {
        if (target.kind() == WorkTargetKind.DAEMON) {
            return peers.find(new DaemonKey(process.tenant(), process.project(), target.targetName()));
        }
        return process.sessionId() == null ? Optional.empty() : peers.find(sessionKey(process));
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
        ParameterGuard.check(wrapper, backend, params, where);
    }

    private Map<String, Object> get(ProcessInfo process) {
        Map<String, Object> r = new LinkedHashMap<>();
        Optional<WorkTarget> stored = targets.stored(process);
        WorkTarget current = stored.orElseGet(() -> targets.defaultFor(process));
        r.put("current", current.toMap());
        r.put("explicit", stored.isPresent());
        Optional<Endpoint> client = process.sessionId() == null ? Optional.empty() : peers.find(sessionKey(process));
        Optional<String> unknown = client.flatMap(Endpoint::presenceUnknown);
        r.put("clientBound", client.isPresent() && unknown.isEmpty());
        unknown.ifPresent(why -> r.put("clientBoundUnknown", why));     // false above means "cannot tell"
        r.put("rootDirs", rootDirs == null ? List.of() : rootDirs.rootDirNames(process.tenant(), process.project()));
        r.put("daemons", peers.onlineDaemons(process.tenant(), process.project()));
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
        if (target.kind() == WorkTargetKind.WORK && localTools.keySet().stream()
                .noneMatch(n -> n.startsWith(ToolCatalog.WORK_PREFIX))) {
            // nothing could serve it later either: a backend is configured when the host builds the dispatcher
            throw Params.invalid("This host has no workspace backend, so WORK cannot serve any call; the target "
                    + "stays as it was. Call work_target_set with kind CLIENT or DAEMON (work_target_get lists what "
                    + "is available).");
        }
        WorkTarget previous;
        try {
            previous = targets.set(process.id(), target);
        } catch (java.util.NoSuchElementException e) {
            // the ProcessStore contract: the host removed the process while this call ran
            throw new ToolException(ErrorCode.NOT_FOUND, "Process '" + process.id() + "' was removed from the host's "
                    + "ProcessStore while work_target_set ran, so its target was not stored. Register the process "
                    + "again to go on.");
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("previous", previous.toMap());
        r.put("current", target.toMap());
        String hint = unreachable(process, target);
        if (hint != null) {
            r.put("hint", hint);
        }
        return r;
    }

    /**
     * What a switch to {@code target} cannot reach now, so that a caller who mistyped a name learns it at
     * once rather than from its next call; null when the target looks reachable.
     */
    private String unreachable(ProcessInfo process, WorkTarget target) {
        String project = "project '" + process.project() + "'";
        switch (target.kind()) {
            case DAEMON -> {
                if (remotePeer(process, target).isEmpty()) {
                    return "No daemon '" + target.targetName() + "' is connected in " + project + " now (connected: "
                            + onlineList(process) + "); calls will fail offline until it connects. Check the name, "
                            + "or switch to another target.";
                }
            }
            case WORK -> {
                List<String> names = target.targetName() == null || rootDirs == null ? null
                        : rootDirs.rootDirNames(process.tenant(), process.project());
                if (names != null && !names.contains(target.targetName())) {
                    return "No RootDir '" + target.targetName() + "' exists in " + project + " now (existing: "
                            + Params.names(names) + "); calls will fail not_found until it is created. Check the name, or omit targetName "
                            + "to work in a temporary RootDir.";
                }
            }
            case CLIENT -> {
                if (remotePeer(process, target).isEmpty()) {
                    return process.sessionId() == null
                            ? "This process has no session, so no client can serve it; calls will fail offline. Switch "
                                    + "to WORK or DAEMON."
                            : "No client is connected to this process's session now; calls will fail offline until "
                                    + "one connects.";
                }
            }
            default -> {
            }
        }
        return null;
    }

    private String onlineList(ProcessInfo process) {
        List<String> online = peers.onlineDaemons(process.tenant(), process.project());
        return online.isEmpty() ? "none" : String.join(", ", online);
    }

    private static void safeListener(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.warn("A DispatchListener threw; ignoring it", e);
        }
    }

    private static SessionKey sessionKey(ProcessInfo process) {
        return new SessionKey(process.tenant(), process.sessionId());
    }

    /** Builds a {@link WorkTargetDispatcher}. */
    public static final class Builder {
        private ProcessStore processStore;
        private final List<Peers> peers = new ArrayList<>();
        private RootDirCatalog rootDirs;
        private final List<BackendToolProvider> providers = new ArrayList<>();
        private final List<ToolInterceptor> interceptors = new ArrayList<>();
        private final List<ToolInterceptor> backendInterceptors = new ArrayList<>();
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
         * Adds the peers of the CLIENT and DAEMON targets: a {@code WorkTargetServer}'s connected clients and
         * daemons, or a {@code LocalBackend} for an agent whose CLIENT is this machine (optional; without
         * peers CLIENT and DAEMON calls fail {@code offline}). Several are asked in the order added.
         *
         * @param remote the peers
         * @return this
         */
        public Builder peers(Peers remote) {
            this.peers.add(Objects.requireNonNull(remote, "peers"));
            return this;
        }

        /**
         * Lists RootDir names for {@code work_target_get} (optional: by default the first
         * {@linkplain #backend backend} that is a {@link RootDirCatalog}, such as the workspace backend).
         *
         * @param catalog the catalog
         * @return this
         */
        public Builder rootDirCatalog(RootDirCatalog catalog) {
            this.rootDirs = catalog;
            return this;
        }

        /**
         * Adds an in-process backend (the {@code work_*} tools of the workspace backend, or your own). A
         * backend that is also a {@link RootDirCatalog} lists the RootDirs for {@code work_target_get}
         * unless {@link #rootDirCatalog} names another.
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
         * Appends an interceptor; interceptors run in the order added, before routing: they see the
         * caller's parameters and may change them or the target (for example to fall back to WORK when
         * routing fails {@code offline}).
         *
         * @param interceptor the interceptor
         * @return this
         */
        public Builder interceptor(ToolInterceptor interceptor) {
            this.interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /**
         * Appends a backend interceptor: it runs after routing, in the order added, and sees the
         * invocation as the backend gets it (parameters fitted to the target, e.g. {@code dirName}
         * injected for WORK). It may change only the parameters, which are then guarded again.
         *
         * @param interceptor the interceptor
         * @return this
         */
        public Builder backendInterceptor(ToolInterceptor interceptor) {
            this.backendInterceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
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
         * The timeout of DAEMON calls (default 60 s).
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
