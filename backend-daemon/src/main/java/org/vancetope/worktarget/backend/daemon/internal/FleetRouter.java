package org.vancetope.worktarget.backend.daemon.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.FleetLink;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The fleet side of the {@link PeerRegistry}: announces the node's peers through a {@link FleetLink},
 * finds peers connected to other nodes, and forwards calls to them. A forwarded call keeps the rules of
 * a call on a connection: its own correlation id ({@code fw-}), its timeout on the calling node (the
 * holding node is told to cancel when it passes, and that node's connection sends
 * {@code client_tool_cancel}), late results dropped, a result accepted only from the node the call was
 * sent to, and the frame limit applied to the forwarded invocation and result. The calls of a node that
 * stops heartbeating fail {@code offline} within the link's presence bound.
 *
 * <p>A message between nodes is one line of JSON routing header ({@code op}, {@code from}, the peer,
 * the connection) followed by the wire frame itself ({@code client_tool_invoke},
 * {@code client_tool_result}, {@code client_tool_cancel}), encoded by {@link Wire}. Thread-safe.
 */
public final class FleetRouter implements FleetLink.Listener, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FleetRouter.class);
    private static final String INVOKE = "invoke";
    private static final String RESULT = "result";
    private static final String CANCEL = "cancel";
    private static final String SUPERSEDE = "supersede";
    /** The holder of a foot refused a supersede by another subject's connection: that connection is closed. */
    private static final String REFUSE = "refuse";
    private static final String ENDED = "ended";

    private final FleetLink link;
    private final PeerRegistry registry;
    private final Ids ids;
    private final int maxFrameBytes;
    private final String self;
    private final Map<String, Forwarded> pending = new ConcurrentHashMap<>();
    private final Map<String, Future<?>> running = new ConcurrentHashMap<>();
    private final ExecutorService presence;
    private final ScheduledExecutorService watch;
    private final Map<PeerKey, Located> located = new ConcurrentHashMap<>();
    private final long cacheNanos;
    private final long presenceTtlNanos;
    /** Process ends the other nodes may not have been told of, by process id, oldest first; presence thread only. */
    private final Map<String, OwedEnd> owedEnds = new LinkedHashMap<>();
    /**
     * How far the wall clocks of two server nodes may differ: a forwarded call that arrives later than its
     * timeout plus this after it was sent is dropped, not run.
     */
    static final Duration MAX_CLOCK_SKEW = Duration.ofSeconds(5);
    /** The most process ends kept while the store is unreachable. */
    static final int MAX_OWED_ENDS = 10_000;
    /** The most processes remembered as having called a peer on another node. */
    static final int MAX_FORWARDING_PROCESSES = 100_000;
    /**
     * The processes of this node that called a peer on another node, by process id: only their ends concern
     * the other nodes (a peer there holds jobs of a process only if the process called it, and every such call
     * went out through this router). Past {@link #MAX_FORWARDING_PROCESSES}, every end is told.
     */
    private final Set<String> forwarding = ConcurrentHashMap.newKeySet();
    private volatile boolean forwardingOverflow;

    private record Forwarded(String node, String tool, CompletableFuture<Map<String, Object>> future) {
    }

    /** A cached presence of a peer on another node, trusted until {@code expires} (System.nanoTime). */
    private record Located(String node, List<ToolSpec> manifest, long expires) {
    }

    /**
     * The holding node answered that the peer is not connected there (it closed, or reconnected to
     * another node): the call did not run and may be retried through a fresh lookup.
     */
    private static final class NotHere extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient ToolException failure;

        NotHere(ToolException failure) {
            super(failure.getMessage(), null, false, false);
            this.failure = failure;
        }
    }

    /**
     * A router over a link; {@link #start} attaches it to the registry.
     *
     * @param link the fleet link
     * @param registry the node's registry
     * @param ids the id source
     * @param maxFrameBytes the frame limit forwarded messages are held to
     */
    public FleetRouter(FleetLink link, PeerRegistry registry, Ids ids, int maxFrameBytes) {
        this.link = link;
        this.registry = registry;
        this.ids = ids;
        this.maxFrameBytes = maxFrameBytes;
        this.self = link.nodeId();
        this.cacheNanos = cacheTtl(link.presenceTtl()).toNanos();
        this.presenceTtlNanos = link.presenceTtl().toNanos();
        this.presence = Executors.newSingleThreadExecutor(r -> daemon(r, "worktarget-fleet-presence"));
        this.watch = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "worktarget-fleet-watch"));
    }

    /**
     * How long a looked-up presence is trusted without asking the store again: a sixth of the presence
     * time to live, at most one second. A stale entry costs at most one extra message: the node it names
     * answers "not here" (or is not listening) and the call is retried once through a fresh lookup.
     *
     * @param presenceTtl the link's presence time to live
     * @return the cache time to live
     */
    static Duration cacheTtl(Duration presenceTtl) {
        Duration sixth = presenceTtl.dividedBy(6);
        return sixth.compareTo(Duration.ofSeconds(1)) > 0 ? Duration.ofSeconds(1) : sixth;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * Starts the link, attaches to the registry and watches the nodes calls wait for.
     *
     * @throws IOException when the link cannot start
     */
    public void start() throws IOException {
        link.start(this);
        registry.attach(this);
        long every = Math.max(10, link.presenceTtl().toMillis() / 4);
        watch.scheduleWithFixedDelay(this::checkNodes, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * This node's id.
     *
     * @return the node id
     */
    public String nodeId() {
        return self;
    }

    // ---- presence ----

    /** A local connection was registered (or replaced its manifest): claim its peer for this node. */
    void connected(ServerConnection c) {
        located.remove(c.key());
        String manifest = Wire.encodeToString(new Message.ToolManifest(c.manifest()));
        submitPresence(() -> {
            try {
                Optional<FleetLink.Presence> previous = link.claim(c.key(), c.id(), manifest);
                if (previous.isPresent() && !previous.get().node().equals(self)) {
                    // the holder refuses to give up a foot to another subject's connection: it needs both
                    ObjectNode h = headerNode(SUPERSEDE, c.key(), previous.get().connectionId());
                    h.put("subject", c.principal().subject()).put("by", c.id());
                    send(previous.get().node(), h.toString(), "");
                }
            } catch (IOException e) {
                LOG.warn("Could not announce {} to the fleet ({}); the link retries when its store is back",
                        c.key(), e.getMessage());
            }
        });
    }

    /**
     * A foot here kept its session against another subject's connection on another node: the claim is
     * taken back, and that node closes its connection.
     */
    private void reclaim(ServerConnection c, String node, String intruder) {
        String manifest = Wire.encodeToString(new Message.ToolManifest(c.manifest()));
        submitPresence(() -> {
            try {
                link.claim(c.key(), c.id(), manifest);
                send(node, header(REFUSE, c.key(), intruder), "");
            } catch (IOException e) {
                LOG.warn("Could not take {} back from another subject's connection on node '{}' ({}); the link "
                        + "retries when its store is back", c.key(), node, e.getMessage());
            }
        });
    }

    /** A local connection closed: forget its claim. */
    void disconnected(ServerConnection c) {
        located.remove(c.key());
        submitPresence(() -> {
            try {
                link.release(c.key(), c.id());
            } catch (IOException e) {
                LOG.info("Could not release {} in the fleet ({}); it expires by itself", c.key(), e.getMessage());
            }
        });
    }

    private void submitPresence(Runnable task) {
        try {
            presence.execute(task);
        } catch (RejectedExecutionException e) {
            LOG.debug("Fleet router closed; presence change not sent");
        }
    }

    @Override
    public void onLost(PeerKey key, String connectionId) {
        located.remove(key);
        registry.supersedeRemotely(key, connectionId, null);     // the store says who holds it, not whose it is
    }

    /**
     * A peer connected to another node.
     *
     * @param key the peer
     * @return a forwarding endpoint; when the fleet's store is unreachable, an endpoint whose calls fail
     *         {@code offline} saying so
     */
    Optional<Endpoint> find(PeerKey key) {
        Located hit = located.get(key);
        if (hit != null && hit.expires() - System.nanoTime() > 0) {
            return Optional.of(new RemoteEndpoint(key, hit.node(), hit.manifest(), true));
        }
        try {
            return lookup(key).map(l -> new RemoteEndpoint(key, l.node(), l.manifest(), false));
        } catch (IOException e) {
            return Optional.of(new RemoteEndpoint(key, null, ToolCatalog.backendTools(), false));
        }
    }

    /** Asks the store where a peer is, and caches the answer when another node holds it. */
    private Optional<Located> lookup(PeerKey key) throws IOException {
        Optional<FleetLink.Presence> p = link.locate(key);
        if (p.isEmpty() || p.get().node().equals(self)) {
            located.remove(key);
            return Optional.empty();
        }
        Located l = new Located(p.get().node(), manifest(p.get().manifest()), System.nanoTime() + cacheNanos);
        located.put(key, l);
        return Optional.of(l);
    }

    /**
     * How many presences of peers on other nodes are cached now (for tests).
     *
     * @return the count
     */
    int cachedPresences() {
        return located.size();
    }

    /** Forgets the cached presences naming a node. */
    private void forgetNode(String node) {
        located.values().removeIf(l -> l.node().equals(node));
    }

    /**
     * A process ended: when it called a peer on another node, the other nodes that hold peers of the
     * process (the daemons of its project, the foot of its session) are told, and tell those peers as
     * their own; a process that called none concerns no other node and costs the store nothing. Sent from the presence thread,
     * so the dispatcher never waits for the store. When the store is unreachable (or a message to a node
     * cannot be published) the end is owed: it is tried again every check period, and once the store
     * answers, for one presence time to live more, so that the nodes that write their presence again
     * after an outage are told too (see {@link #retryOwedEnds}).
     *
     * @param process the process
     */
    void processEnded(ToolContext process) {
        boolean calledOut = forwarding.remove(process.processId()) || forwardingOverflow;
        if (!calledOut) {
            return;     // no peer on another node ran a call of it: nothing there to end
        }
        submitPresence(() -> {
            OwedEnd end = new OwedEnd(process);
            if (!tellEnded(end)) {
                LOG.info("Could not tell the fleet that process {} ended (its store is unreachable); the other nodes "
                        + "are told when it is back", process.processId());
                owe(end);
            }
        });
    }

    /** A process end that not every node may have been told of yet; used on the presence thread only. */
    private static final class OwedEnd {
        private final ToolContext process;
        /** The nodes a message was published to. */
        private final Set<String> told = new HashSet<>();
        /** When a retry first reached the store again (System.nanoTime), or -1 while it does not. */
        private long reachableSince = -1;

        OwedEnd(ToolContext process) {
            this.process = process;
        }
    }

    /**
     * Tells the nodes holding peers of the process that were not told yet. Presence thread.
     *
     * @return false when the store is unreachable (nothing was sent)
     */
    private boolean tellEnded(OwedEnd end) {
        ToolContext process = end.process;
        Set<String> nodes = new TreeSet<>();
        try {
            for (String name : link.daemons(process.tenant(), process.project())) {
                link.locate(new DaemonKey(process.tenant(), process.project(), name))
                        .ifPresent(p -> nodes.add(p.node()));
            }
            if (process.sessionId() != null) {
                link.locate(new SessionKey(process.tenant(), process.sessionId())).ifPresent(p -> nodes.add(p.node()));
            }
        } catch (IOException e) {
            return false;
        }
        nodes.remove(self);
        nodes.removeAll(end.told);
        if (nodes.isEmpty()) {
            return true;
        }
        String message = header(ENDED, null, null) + "\n" + Wire.encodeToString(new Message.ProcessEnd(process));
        for (String node : nodes) {
            end.told.add(node);
            link.sendAsync(node, message).whenComplete((listening, e) -> {
                if (e != null) {
                    LOG.info("Could not tell server node '{}' that process {} ended ({}); it is told when the store "
                            + "answers again", node, process.processId(), e.getMessage());
                    submitPresence(() -> {
                        end.told.remove(node);
                        owe(end);
                    });
                } else if (!Boolean.TRUE.equals(listening)) {
                    LOG.info("Server node '{}' is not listening; it was not told that process {} ended", node,
                            process.processId());
                }
            });
        }
        return true;
    }

    /** Keeps an end to be told again (presence thread); the oldest is dropped beyond {@link #MAX_OWED_ENDS}. */
    private void owe(OwedEnd end) {
        end.reachableSince = -1;
        owedEnds.putIfAbsent(end.process.processId(), end);
        if (owedEnds.size() > MAX_OWED_ENDS) {
            Iterator<OwedEnd> oldest = owedEnds.values().iterator();
            LOG.warn("More than {} process ends wait for the fleet's store; the other nodes are not told that process "
                    + "{} ended, and free its jobs by their own idle expiry", MAX_OWED_ENDS,
                    oldest.next().process.processId());
            oldest.remove();
        }
    }

    /**
     * Tries the owed process ends again (presence thread, every check period). An end is done once the
     * store has answered for a whole presence time to live since it came back: by then every live node
     * has written its presence again (a heartbeat is a third of that time), and every node found holding
     * a peer of the process was told.
     */
    private void retryOwedEnds() {
        long now = System.nanoTime();
        for (Iterator<OwedEnd> it = owedEnds.values().iterator(); it.hasNext(); ) {
            OwedEnd end = it.next();
            if (!tellEnded(end)) {
                end.reachableSince = -1;
                continue;
            }
            if (end.reachableSince < 0) {
                end.reachableSince = now;
            } else if (now - end.reachableSince >= presenceTtlNanos) {
                it.remove();
            }
        }
    }

    /** The daemons of a project on any node; none when the store is unreachable. */
    List<String> daemons(String tenant, String project) {
        try {
            return link.daemons(tenant, project);
        } catch (IOException e) {
            LOG.debug("Fleet store unreachable; listing local daemons only ({})", e.getMessage());
            return List.of();
        }
    }

    /**
     * The peers connected to the other nodes, for admin listings.
     *
     * @return each one's presence, by peer
     * @throws IOException when the store is unreachable
     */
    public Map<PeerKey, FleetLink.Presence> remotePeers() throws IOException {
        Map<PeerKey, FleetLink.Presence> out = new java.util.LinkedHashMap<>();
        link.peers().forEach((k, p) -> {
            if (!p.node().equals(self)) {
                out.put(k, p);
            }
        });
        return out;
    }

    /**
     * The tool names of an encoded manifest, for listings.
     *
     * @param encoded the manifest as a presence holds it
     * @return the names; none when it cannot be read
     */
    public static List<String> toolNames(String encoded) {
        return manifest(encoded).stream().map(ToolSpec::name).toList();
    }

    private static List<ToolSpec> manifest(String encoded) {
        try {
            if (Wire.decode(encoded) instanceof Message.ToolManifest m) {
                return m.tools();
            }
        } catch (BadFrameException e) {
            LOG.warn("A fleet peer's manifest cannot be read: {}", e.getMessage());
        }
        return List.of();
    }

    // ---- forwarded calls, calling side ----

    private final class RemoteEndpoint implements Endpoint {
        private final PeerKey key;
        private final String node;
        private final List<ToolSpec> manifest;
        private final boolean cached;

        RemoteEndpoint(PeerKey key, String node, List<ToolSpec> manifest, boolean cached) {
            this.key = key;
            this.node = node;
            this.manifest = manifest;
            this.cached = cached;
        }

        @Override
        public String describe() {
            return key.describe();
        }

        @Override
        public List<ToolSpec> manifest() {
            return manifest;
        }

        @Override
        public Optional<String> presenceUnknown() {
            return node != null ? Optional.empty() : Optional.of("Server node '" + self + "' cannot tell whether "
                    + key.describe() + " is connected to another node of the fleet: the fleet's store (Redis), which "
                    + "says where peers are, is unreachable. Peers connected to this node keep working; ask again "
                    + "when the store is back.");
        }

        @Override
        public Map<String, Object> invoke(String tool, Map<String, Object> params, ToolContext context,
                                          Duration timeout) throws ToolException {
            if (node == null) {
                throw unreachable(tool, key);
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            try {
                return call(node, key, tool, params, context, timeout, cached);
            } catch (NotHere stale) {
                if (!cached) {
                    throw stale.failure;
                }
            }
            // The cached presence was stale and the call did not run: once more, through a fresh lookup.
            located.remove(key);
            Optional<Located> fresh;
            try {
                fresh = lookup(key);
            } catch (IOException e) {
                throw unreachable(tool, key);
            }
            if (fresh.isEmpty()) {
                Optional<ServerConnection> local = registry.connection(key);
                if (local.isPresent()) {
                    return local.get().invoke(tool, params, context, remaining(deadline));
                }
                throw new ToolException(ErrorCode.OFFLINE, tool + " did not run: " + key.describe() + " is not "
                        + "connected to any server node of the fleet. Reconnect it, or call work_target_set to switch "
                        + "to another target.");
            }
            try {
                return call(fresh.get().node(), key, tool, params, context, remaining(deadline), false);
            } catch (NotHere gone) {
                throw gone.failure;
            }
        }
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
    }

    private static String reason(Throwable e) {
        Throwable c = unwrap(e);
        return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
    }

    /** What failed a future: the cause a {@code CompletionException} carries, or the error itself (or null). */
    private static Throwable unwrap(Throwable e) {
        return e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    private ToolException unreachable(String tool, PeerKey key) {
        return new ToolException(ErrorCode.OFFLINE, tool + " did not run: " + key.describe() + " is not connected "
                + "to this server node, and the fleet's store (Redis), which says where it is, is unreachable from "
                + "node '" + self + "'. Peers connected to this node keep working. Retry when the store is back, "
                + "or call work_target_set to switch to another target.");
    }

    /**
     * Forwards one call. With {@code retryable}, a node that is not listening or answers "not here"
     * raises {@link NotHere} (the call did not run) rather than failing the call.
     */
    private Map<String, Object> call(String node, PeerKey key, String tool, Map<String, Object> params,
                                     ToolContext context, Duration timeout, boolean retryable) throws ToolException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String id = ids.next("fw-");
        String frame = encode(new Message.Invoke(id, tool, params, Math.max(1, timeout.toMillis()), context), key, tool);
        if (context != null && context.processId() != null && !forwarding.contains(context.processId())) {
            if (forwarding.size() >= MAX_FORWARDING_PROCESSES) {
                forwardingOverflow = true;
            } else {
                forwarding.add(context.processId());
            }
        }
        Forwarded call = new Forwarded(node, tool, new CompletableFuture<>());
        pending.put(id, call);
        // The caller waits once, for the result: the store's answer to the send only fails the call.
        ObjectNode invokeHeader = headerNode(INVOKE, key, null).put("sentAt", System.currentTimeMillis());
        link.sendAsync(node, invokeHeader + "\n" + frame).whenComplete((listening, e) -> {
            if (e == null && Boolean.TRUE.equals(listening) || !pending.remove(id, call)) {
                return;
            }
            if (e != null) {
                // the message may be on the store's socket already and be delivered when it answers again
                call.future().completeExceptionally(new ToolException(ErrorCode.OFFLINE, "The call of " + tool
                        + " on " + key.describe() + " may or may not have run: sending it to server node '" + node
                        + "' through the fleet's store (Redis) failed (" + reason(e) + "), and a message the store "
                        + "took before that is still delivered when it answers again, until the call's timeout. Check "
                        + "its effect before retrying; calls to peers connected to this node keep working."));
                return;
            }
            forgetNode(node);
            ToolException gone = nodeGone(tool, key, node, "did not run");
            call.future().completeExceptionally(retryable ? new NotHere(gone) : gone);
        });
        try {
            return call.future().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            if (pending.remove(id) != null) {
                cancel(node, id);
                throw new ToolException(ErrorCode.TIMEOUT, "The call of " + tool + " on " + key.describe() + " (on "
                        + "server node '" + node + "') did not finish within " + timeout.toMillis() + " ms; it was "
                        + "cancelled on the peer. For long-running commands start a background job and poll it, "
                        + "or retry with a smaller request.");
            }
            return outcome(call);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (pending.remove(id) != null) {
                cancel(node, id);
            }
            throw new ToolException(ErrorCode.CANCELLED, "The call of " + tool + " on " + key.describe()
                    + " was cancelled because the calling thread was interrupted; the peer was asked to stop it.");
        } catch (ExecutionException e) {
            throw failure(e, tool, key);
        }
    }

    private static Map<String, Object> outcome(Forwarded call) throws ToolException {
        try {
            return call.future().join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof ToolException te) {
                throw te;
            }
            if (e.getCause() instanceof NotHere nh) {
                throw nh;
            }
            throw e;
        }
    }

    private static ToolException failure(ExecutionException e, String tool, PeerKey key) {
        if (e.getCause() instanceof ToolException te) {
            return te;
        }
        if (e.getCause() instanceof NotHere nh) {
            throw nh;
        }
        return new ToolException(ErrorCode.INTERNAL, "The call of " + tool + " on " + key.describe()
                + " failed unexpectedly.", e.getCause());
    }

    private String encode(Message.Invoke invoke, PeerKey key, String tool) throws ToolException {
        try {
            return bounded(invoke);
        } catch (FrameTooLargeException e) {
            throw new ToolException(ErrorCode.SIZE_LIMIT, tool + " was not sent to " + key.describe() + ": its "
                    + "parameters make a message larger than " + Wire.describeBytes(maxFrameBytes) + ", the limit of "
                    + "one message (maxFrameBytes), which holds between server nodes too. Nothing ran. Send less per "
                    + "call; to put a large file there, write it on the WORK target and copy it with "
                    + "client_file_download.");
        }
    }

    private String bounded(Message m) throws FrameTooLargeException {
        ByteBuf b = Wire.encode(m, UnpooledByteBufAllocator.DEFAULT, maxFrameBytes);
        try {
            return b.toString(StandardCharsets.UTF_8);
        } finally {
            b.release();
        }
    }

    private void cancel(String node, String id) {
        send(node, header(CANCEL, null, null), Wire.encodeToString(new Message.Cancel(id)));
    }

    private ToolException nodeGone(String tool, PeerKey key, String node, String what) {
        return new ToolException(ErrorCode.OFFLINE, "The call of " + tool + " on " + key.describe() + " " + what
                + ": server node '" + node + "', which the peer is connected to, stopped. The peer reconnects to "
                + "another node; retry then, or call work_target_set to switch to another target.");
    }

    /**
     * Has the owed process ends tried again, and fails the calls waiting for a node that stopped
     * heartbeating, or all of them when the store is gone; drops the cached presences that expired (a
     * peer on another node that is never called again would otherwise stay cached, manifest and all).
     */
    private void checkNodes() {
        submitPresence(this::retryOwedEnds);
        long now = System.nanoTime();
        located.values().removeIf(l -> l.expires() - now <= 0);
        Set<String> nodes = new HashSet<>();
        pending.values().forEach(f -> nodes.add(f.node()));
        for (String node : nodes) {
            boolean alive;
            try {
                alive = link.isAlive(node);
            } catch (IOException | RuntimeException e) {
                failPending(node, "may or may not have run: the fleet's store (Redis), which carries results between "
                        + "server nodes, became unreachable from node '" + self + "'. Check its effect; retry when "
                        + "the store is back");
                continue;
            }
            if (!alive) {
                forgetNode(node);
                failPending(node, null);
            }
        }
    }

    private void failPending(String node, String why) {
        for (Map.Entry<String, Forwarded> e : new ArrayList<>(pending.entrySet())) {
            Forwarded f = e.getValue();
            if (f.node().equals(node) && pending.remove(e.getKey(), f)) {
                f.future().completeExceptionally(why == null
                        ? new ToolException(ErrorCode.OFFLINE, "The call of " + f.tool() + " may or may not have run: "
                                + "server node '" + node + "', which its peer is connected to, stopped. The peer "
                                + "reconnects to another node; check the call's effect, then retry.")
                        : new ToolException(ErrorCode.OFFLINE, "The call of " + f.tool() + " " + why + "."));
            }
        }
    }

    // ---- messages ----

    @Override
    public void onMessage(String message) {
        int nl = message.indexOf('\n');
        Header h;
        try {
            h = Header.parse(nl < 0 ? message : message.substring(0, nl));
        } catch (IOException e) {
            LOG.warn("Dropped an unreadable fleet message");
            return;
        }
        String op = h.op();
        String from = h.from();
        String body = nl < 0 ? "" : message.substring(nl + 1);
        try {
            switch (op) {
                case RESULT -> result(from, (Message.Result) Wire.decode(body), h.absent());
                case CANCEL -> {
                    Future<?> f = running.remove(from + " " + ((Message.Cancel) Wire.decode(body)).correlationId());
                    if (f != null) {
                        f.cancel(true);     // the connection then sends client_tool_cancel to the peer
                    }
                }
                case INVOKE -> invoked(from, h.key(), body, h.sentAt());
                case ENDED -> registry.processEndedHere(((Message.ProcessEnd) Wire.decode(body)).context());
                case SUPERSEDE -> {
                    located.remove(h.key());
                    ServerConnection kept = registry.supersedeRemotely(h.key(), h.conn(), h.subject());
                    if (kept != null) {
                        reclaim(kept, from, h.by());
                    }
                }
                case REFUSE -> registry.refuseRemotely(h.key(), h.conn());
                default -> LOG.warn("Dropped a fleet message of unknown op '{}' from node '{}'", op, from);
            }
        } catch (BadFrameException | ClassCastException | IllegalArgumentException | NullPointerException e) {
            LOG.warn("Dropped a malformed fleet message '{}' from node '{}': {}", op, from, e.getMessage());
        } catch (RejectedExecutionException e) {
            LOG.debug("Fleet router closed; dropped '{}' from node '{}'", op, from);
        }
    }

    private void result(String from, Message.Result r, boolean absent) {
        Forwarded f = pending.get(r.correlationId());
        if (f == null || !f.node().equals(from) || !pending.remove(r.correlationId(), f)) {
            LOG.info("Dropped a late, unknown or foreign forwarded result {} from node '{}'", r.correlationId(), from);
            return;
        }
        if (r.ok()) {
            f.future().complete(r.result());
        } else if (absent) {
            f.future().completeExceptionally(new NotHere(new ToolException(ErrorCode.OFFLINE, r.errorMessage())));
        } else {
            ErrorCode code = ErrorCode.fromWire(r.errorCode()).orElse(ErrorCode.INTERNAL);
            f.future().completeExceptionally(new ToolException(code, r.errorMessage()));
        }
    }

    // ---- forwarded calls, holding side ----

    /**
     * Runs a forwarded invocation on the peer's connection here without holding a thread for it: the
     * call is sent on the connection at once (on the thread that delivered the message), and its result
     * is sent back to the calling node from the connection's completion of the call. A cancel from the
     * calling node cancels the call's future, which makes the connection send {@code client_tool_cancel}.
     */
    private void invoked(String from, PeerKey key, String body, long sentAt) {
        Message.Invoke inv;
        try {
            inv = (Message.Invoke) Wire.decode(body);
        } catch (BadFrameException | ClassCastException e) {
            LOG.warn("Dropped a forwarded invocation from node '{}' that could not be read", from);
            return;
        }
        long age = sentAt > 0 ? System.currentTimeMillis() - sentAt : 0;
        if (age > inv.timeoutMs() + MAX_CLOCK_SKEW.toMillis()) {
            // held up in the store (frozen, say) past the call's timeout: the caller gave up on it long ago
            LOG.warn("Dropped a forwarded call of {} from node '{}' that arrived {} ms after it was sent, past its "
                    + "timeout of {} ms: it did not run", inv.name(), from, age, inv.timeoutMs());
            return;
        }
        Optional<ServerConnection> c = registry.connection(key);
        if (c.isEmpty()) {      // "not here": the call did not run, and the caller may retry through a fresh lookup
            reply(from, inv, new Message.Result(inv.correlationId(), false, null, ErrorCode.OFFLINE.wire(),
                    key.describe() + " is no longer connected to server node '" + self + "'; the call did not run. "
                            + "Reconnect it, or call work_target_set to switch to another target."), true);
            return;
        }
        String runKey = from + " " + inv.correlationId();
        CompletableFuture<Map<String, Object>> call = start(c.get(), inv);
        running.put(runKey, call);
        call.whenComplete((out, e) -> {
            if (!running.remove(runKey, call)) {
                return;     // cancelled by the calling node, which forgot the call
            }
            Throwable cause = unwrap(e);
            Message.Result result;
            if (cause == null) {
                result = new Message.Result(inv.correlationId(), true, out, null, null);
            } else if (cause instanceof ToolException te) {
                result = new Message.Result(inv.correlationId(), false, null, te.code().wire(), te.getMessage());
            } else {
                LOG.error("A forwarded call of {} failed unexpectedly", inv.name(), cause);
                result = new Message.Result(inv.correlationId(), false, null, ErrorCode.INTERNAL.wire(), "The call of "
                        + inv.name() + " failed unexpectedly on server node '" + self + "'; see its log.");
            }
            reply(from, inv, result, false);
        });
    }

    /**
     * Sends a forwarded call on the connection. A failure to even send it fails the future, so that the
     * calling node hears of it at once rather than at its timeout.
     */
    private static CompletableFuture<Map<String, Object>> start(ServerConnection c, Message.Invoke inv) {
        try {
            return c.invokeAsync(inv.name(), inv.params(), inv.context(), Duration.ofMillis(inv.timeoutMs()));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private void reply(String node, Message.Invoke inv, Message.Result result, boolean absent) {
        String frame;
        try {
            frame = bounded(result);
        } catch (FrameTooLargeException e) {
            frame = Wire.encodeToString(new Message.Result(inv.correlationId(), false, null, ErrorCode.SIZE_LIMIT.wire(),
                    "The result of " + inv.name() + " is larger than " + Wire.describeBytes(maxFrameBytes) + ", the "
                            + "limit of one message (maxFrameBytes), so it was not sent back; the tool itself ran. Ask "
                            + "for less per call: a narrower path or pathGlob, a lower limit, or a window of a file."));
        }
        ObjectNode header = headerNode(RESULT, null, null);
        if (absent) {       // "not here": the call did not run, and the caller may retry through a fresh lookup
            header.put("absent", true);
        }
        send(node, header.toString(), frame);
    }

    private void send(String node, String header, String frame) {
        link.sendAsync(node, header + "\n" + frame).whenComplete((listening, e) -> {
            if (e != null) {
                LOG.info("Could not reach server node '{}' ({})", node, e.getMessage());
            } else if (!Boolean.TRUE.equals(listening)) {
                LOG.info("Server node '{}' is not listening; a fleet message to it was dropped", node);
            }
        });
    }

    private String header(String op, PeerKey key, String connectionId) {
        return headerNode(op, key, connectionId).toString();
    }

    private ObjectNode headerNode(String op, PeerKey key, String connectionId) {
        ObjectNode h = Wire.mapper().createObjectNode();
        h.put("op", op).put("from", self);
        if (key instanceof DaemonKey d) {
            h.put("tenant", d.tenant()).put("project", d.project()).put("daemon", d.name());
        } else if (key instanceof SessionKey s) {
            h.put("tenant", s.tenant()).put("session", s.sessionId());
        }
        if (connectionId != null) {
            h.put("conn", connectionId);
        }
        return h;
    }

    /**
     * A fleet message's header, read field by field with the streaming parser (a tree per message cost
     * more than the fields it holds): the operation, the sending node, the peer's key fields, the
     * connection id and the "absent" flag; a missing text field reads as {@code ""}.
     */
    private record Header(String op, String from, String tenant, String project, String daemon, String session,
                          String conn, boolean absent, long sentAt, String subject, String by) {

        static Header parse(String json) throws IOException {
            String[] f = {"", "", "", "", null, null, "", "", ""};
            boolean absent = false;
            long sentAt = 0;
            try (JsonParser p = Wire.mapper().getFactory().createParser(json)) {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    throw new IOException("a fleet message header must be a JSON object");
                }
                JsonToken t;
                while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    JsonToken v = p.nextToken();
                    if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) {
                        p.skipChildren();
                        continue;
                    }
                    String text = v == JsonToken.VALUE_NULL ? null : p.getText();
                    switch (name) {
                        case "op" -> f[0] = text;
                        case "from" -> f[1] = text;
                        case "tenant" -> f[2] = text;
                        case "project" -> f[3] = text;
                        case "daemon" -> f[4] = text;
                        case "session" -> f[5] = text;
                        case "conn" -> f[6] = text;
                        case "subject" -> f[7] = text;
                        case "by" -> f[8] = text;
                        case "absent" -> absent = v == JsonToken.VALUE_TRUE;
                        case "sentAt" -> sentAt = v == JsonToken.VALUE_NUMBER_INT ? p.getLongValue() : 0;
                        default -> {
                            // a field of a later version: ignored
                        }
                    }
                }
                if (t != JsonToken.END_OBJECT) {
                    throw new IOException("a fleet message header must be one JSON object");
                }
            }
            return new Header(f[0], f[1], f[2], f[3], f[4], f[5], f[6], absent, sentAt, f[7], f[8]);
        }

        PeerKey key() {
            if (daemon != null) {
                return new DaemonKey(tenant, project, daemon);
            }
            if (session != null) {
                return new SessionKey(tenant, session);
            }
            throw new IllegalArgumentException("the message names no peer");
        }
    }

    /**
     * The names of the nodes other than this one that calls wait for, for tests and listings.
     *
     * @return the node ids
     */
    public Set<String> awaitedNodes() {
        Set<String> out = new TreeSet<>();
        pending.values().forEach(f -> out.add(f.node()));
        return out;
    }

    /** Stops the router: calls still waiting fail {@code offline}; closes the link. */
    @Override
    public void close() {
        watch.shutdownNow();
        presence.shutdown();
        try {
            presence.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (String node : awaitedNodes()) {
            failPending(node, "may or may not have run: this server node shut down while it waited for the result");
        }
        running.values().forEach(f -> f.cancel(true));
        link.close();
    }
}
