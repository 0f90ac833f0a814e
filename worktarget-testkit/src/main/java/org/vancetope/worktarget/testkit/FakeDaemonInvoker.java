package org.vancetope.worktarget.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.DaemonInvoker;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.DaemonStatus;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A strict {@link DaemonInvoker}: daemons are registered with a state and tools, calls run on a
 * worker thread and honour the timeout (a call that outlives it fails with {@code timeout} and is
 * interrupted, like a cancelled remote call), every call is recorded, and {@link #close()} fails when
 * a call is still in flight.
 *
 * <pre>{@code
 * try (FakeDaemonInvoker daemons = new FakeDaemonInvoker()) {
 *     daemons.register(new DaemonKey("acme", "proj", "box"), DaemonStatus.State.ONLINE, tools);
 *     ...
 * }
 * }</pre>
 */
public final class FakeDaemonInvoker implements DaemonInvoker, AutoCloseable {
    private final Map<DaemonKey, Registered> daemons = new ConcurrentHashMap<>();
    private final List<RecordedCall> calls = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger inFlight = new AtomicInteger();
    private final List<ToolContext> ended = Collections.synchronizedList(new ArrayList<>());
    private final ExecutorService workers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fake-daemon-call");
        t.setDaemon(true);
        return t;
    });

    /** A fake with no daemon registered. */
    public FakeDaemonInvoker() {
    }

    private record Registered(DaemonStatus.State state, Map<String, BackendTool> tools) {
    }

    /**
     * One recorded call.
     *
     * @param key the daemon
     * @param tool the tool name
     * @param params the parameters as received
     * @param timeout the timeout the caller passed
     */
    public record RecordedCall(DaemonKey key, String tool, Map<String, Object> params, Duration timeout) {
    }

    /**
     * Registers (or replaces) a daemon.
     *
     * @param key the daemon
     * @param state its state
     * @param tools its tools; their specs form its manifest
     * @return this
     */
    public FakeDaemonInvoker register(DaemonKey key, DaemonStatus.State state, List<BackendTool> tools) {
        Map<String, BackendTool> byName = new ConcurrentHashMap<>();
        tools.forEach(t -> byName.put(t.spec().name(), t));
        daemons.put(key, new Registered(state, byName));
        return this;
    }

    /**
     * Removes a daemon (it disconnected).
     *
     * @param key the daemon
     */
    public void unregister(DaemonKey key) {
        daemons.remove(key);
    }

    @Override
    public DaemonStatus status(DaemonKey key) {
        Registered r = daemons.get(key);
        if (r == null || r.state == DaemonStatus.State.OFFLINE) {
            return DaemonStatus.OFFLINE;
        }
        return new DaemonStatus(r.state, r.tools.values().stream().map(BackendTool::spec).toList());
    }

    @Override
    public List<String> onlineDaemons(String tenant, String project) {
        return daemons.entrySet().stream()
                .filter(e -> e.getKey().tenant().equals(tenant) && e.getKey().project().equals(project))
                .filter(e -> e.getValue().state == DaemonStatus.State.ONLINE)
                .map(e -> e.getKey().name()).sorted().toList();
    }

    @Override
    public Map<String, Object> invoke(DaemonKey key, String tool, Map<String, Object> params, ToolContext context,
                                      Duration timeout) throws ToolException {
        calls.add(new RecordedCall(key, tool, Map.copyOf(params), timeout));
        Registered r = daemons.get(key);
        if (r == null || r.state != DaemonStatus.State.ONLINE) {
            throw new ToolException(ErrorCode.OFFLINE, "Daemon '" + key.name() + "' is offline.");
        }
        BackendTool t = r.tools.get(tool);
        if (t == null) {
            throw new ToolException(ErrorCode.UNKNOWN_TOOL, "Daemon '" + key.name() + "' does not offer " + tool);
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
            return f.get(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new ToolException(ErrorCode.TIMEOUT, "Daemon '" + key.name() + "' did not answer " + tool + " within "
                    + timeout.toMillis() + " ms; the call was cancelled.");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.cancel(true);
            throw new ToolException(ErrorCode.CANCELLED, "Interrupted while waiting for daemon '" + key.name() + "'.");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ToolException te) {
                throw te;
            }
            throw new ToolException(ErrorCode.INTERNAL, "Daemon tool " + tool + " failed: " + e.getCause(), e.getCause());
        }
    }

    @Override
    public void processEnded(ToolContext process) {
        ended.add(process);
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
     * The calls made so far.
     *
     * @return a snapshot
     */
    public List<RecordedCall> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
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
            workers.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (inFlight.get() != 0) {
            throw new AssertionError(inFlight.get() + " daemon call(s) still in flight at teardown");
        }
    }
}
