package org.vancetope.worktarget.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.Peers;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * A strict {@link Peers}: session clients and daemons are connected with a set of tools explicitly;
 * calls run on a worker thread and honour the timeout (a call that outlives it fails {@code timeout}
 * and is interrupted, like a cancelled remote call) and the caller's interrupt ({@code cancelled});
 * every call and every lookup is recorded, and {@link #close()} fails when a call is still in flight.
 *
 * <pre>{@code
 * try (FakePeers peers = new FakePeers()) {
 *     peers.client("acme", "s1", tools).daemon(new DaemonKey("acme", "proj", "box"), tools);
 *     WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store).peers(peers).build();
 *     ...
 * }
 * }</pre>
 */
public final class FakePeers implements Peers, AutoCloseable {
    private final Map<PeerKey, Fake> peers = new ConcurrentHashMap<>();
    private final List<RecordedCall> calls = Collections.synchronizedList(new ArrayList<>());
    private final List<ToolContext> ended = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger lookups = new AtomicInteger();
    private final ExecutorService workers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fake-peer-call");
        t.setDaemon(true);
        return t;
    });

    /** A fake with no peer connected. */
    public FakePeers() {
    }

    /**
     * One recorded call.
     *
     * @param peer the peer it ran on
     * @param tool the backend tool name
     * @param params the parameters as received (unmodifiable; a parameter sent as null is there with null)
     * @param timeout the timeout the caller passed
     */
    public record RecordedCall(PeerKey peer, String tool, Map<String, Object> params, Duration timeout) {
    }

    /**
     * Connects (or replaces) the client of a session.
     *
     * @param tenant the tenant
     * @param sessionId the session
     * @param tools the client's tools; their specs form its manifest
     * @return this
     */
    public FakePeers client(String tenant, String sessionId, List<BackendTool> tools) {
        return connect(new SessionKey(tenant, sessionId), tools);
    }

    /**
     * Connects (or replaces) a daemon.
     *
     * @param key the daemon
     * @param tools its tools; their specs form its manifest
     * @return this
     */
    public FakePeers daemon(DaemonKey key, List<BackendTool> tools) {
        return connect(key, tools);
    }

    /**
     * Connects (or replaces) a peer.
     *
     * @param key the peer
     * @param tools its tools
     * @return this
     */
    public FakePeers connect(PeerKey key, List<BackendTool> tools) {
        Map<String, BackendTool> byName = new java.util.LinkedHashMap<>();
        tools.forEach(t -> byName.put(t.spec().name(), t));
        peers.put(key, new Fake(key, Map.copyOf(byName), tools.stream().map(BackendTool::spec).toList()));
        return this;
    }

    /**
     * Marks a connected peer stale (connected, but no longer answering liveness checks).
     *
     * @param key the peer
     * @return this
     * @throws IllegalStateException when the peer is not connected
     */
    public FakePeers stale(PeerKey key) {
        Fake f = peers.get(key);
        if (f == null) {
            throw new IllegalStateException(key + " is not connected");
        }
        f.stale = true;
        return this;
    }

    /**
     * Disconnects a peer.
     *
     * @param key the peer
     */
    public void disconnect(PeerKey key) {
        peers.remove(key);
    }

    @Override
    public Optional<Endpoint> find(PeerKey key) {
        lookups.incrementAndGet();
        return Optional.ofNullable(peers.get(key));
    }

    @Override
    public List<String> onlineDaemons(String tenant, String project) {
        return peers.entrySet().stream()
                .filter(e -> e.getKey() instanceof DaemonKey d && d.tenant().equals(tenant) && d.project().equals(project))
                .filter(e -> !e.getValue().stale)
                .map(e -> ((DaemonKey) e.getKey()).name()).sorted().toList();
    }

    @Override
    public void processEnded(ToolContext process) {
        ended.add(process);
    }

    /**
     * How often {@link #find} was called: a dispatched call to a remote target looks its peer up once.
     *
     * @return the number of lookups so far
     */
    public int lookups() {
        return lookups.get();
    }

    /**
     * The processes the dispatcher said had ended, in order.
     *
     * @return a snapshot
     */
    public List<ToolContext> endedProcesses() {
        synchronized (ended) {
            return List.copyOf(ended);
        }
    }

    /**
     * The calls made so far, on every peer.
     *
     * @return a snapshot
     */
    public List<RecordedCall> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    /**
     * The calls made so far on one peer.
     *
     * @param key the peer
     * @return a snapshot
     */
    public List<RecordedCall> calls(PeerKey key) {
        return calls().stream().filter(c -> c.peer().equals(key)).toList();
    }

    /**
     * Stops the workers and fails when a call is still in flight.
     *
     * @throws AssertionError when a call leaked
     */
    @Override
    public void close() {
        workers.shutdownNow();
        try {
            workers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (inFlight.get() != 0) {
            throw new AssertionError(inFlight.get() + " peer call(s) still in flight at teardown");
        }
    }

    /** One connected fake peer. */
    private final class Fake implements Endpoint {
        private final PeerKey key;
        private final Map<String, BackendTool> tools;
        private final List<ToolSpec> manifest;
        private volatile boolean stale;

        Fake(PeerKey key, Map<String, BackendTool> tools, List<ToolSpec> manifest) {
            this.key = key;
            this.tools = tools;
            this.manifest = manifest;
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
        public boolean isStale() {
            return stale;
        }

        @Override
        public Map<String, Object> invoke(String tool, Map<String, Object> params, ToolContext context,
                                          Duration timeout) throws ToolException {
            // a copy that keeps null values: an optional parameter may be sent as null (the strict exports do)
            calls.add(new RecordedCall(key, tool, Collections.unmodifiableMap(new LinkedHashMap<>(params)),
                    timeout));
            if (peers.get(key) != this) {
                throw new ToolException(ErrorCode.OFFLINE, key.describe() + " disconnected.");
            }
            BackendTool t = tools.get(tool);
            if (t == null) {
                throw new ToolException(ErrorCode.UNKNOWN_TOOL, key.describe() + " does not offer " + tool);
            }
            // Counted when the task starts, not when it is submitted: a call cancelled before its task ran
            // (a timeout of 1 ns) never runs, so it must never count as in flight.
            Future<Map<String, Object>> f = workers.submit(() -> {
                inFlight.incrementAndGet();
                try {
                    return t.invoke(params, context);
                } finally {
                    inFlight.decrementAndGet();
                }
            });
            try {
                return f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                f.cancel(true);
                throw new ToolException(ErrorCode.TIMEOUT, key.describe() + " did not answer " + tool + " within "
                        + timeout.toMillis() + " ms; the call was cancelled.");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                f.cancel(true);
                throw new ToolException(ErrorCode.CANCELLED, "Interrupted while waiting for " + key.describe() + ".");
            } catch (ExecutionException e) {
                if (e.getCause() instanceof ToolException te) {
                    throw te;
                }
                throw new ToolException(ErrorCode.INTERNAL, tool + " failed on " + key.describe() + ": " + e.getCause(),
                        e.getCause());
            }
        }

        @Override
        public String toString() {
            return "FakePeers[" + key + "]";
        }
    }
}
