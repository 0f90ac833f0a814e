package org.vancetope.worktarget.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ClientConnectivity;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * A strict {@link ClientConnectivity}: sessions are bound to a set of tools explicitly, every call is
 * recorded, and {@link #assertNoCallsInFlight()} fails a test that leaves a call running.
 *
 * <pre>{@code
 * FakeClientConnectivity clients = new FakeClientConnectivity();
 * clients.bind("acme", "s1", List.of(BackendTool.of(spec, (p, c) -> Map.of("ok", true))));
 * }</pre>
 */
public final class FakeClientConnectivity implements ClientConnectivity {
    private final Map<String, Map<String, BackendTool>> sessions = new ConcurrentHashMap<>();
    private final List<RecordedCall> calls = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger inFlight = new AtomicInteger();
    private final List<ToolContext> ended = Collections.synchronizedList(new ArrayList<>());

    /** A fake with no session bound. */
    public FakeClientConnectivity() {
    }

    /**
     * One recorded call.
     *
     * @param tenant the tenant
     * @param sessionId the session
     * @param tool the backend tool name
     * @param params the parameters as received
     * @param timeout the timeout the caller passed
     */
    public record RecordedCall(String tenant, String sessionId, String tool, Map<String, Object> params,
                               Duration timeout) {
    }

    /**
     * Binds a client with the given tools to a session.
     *
     * @param tenant the tenant
     * @param sessionId the session
     * @param tools the client's tools
     * @return this
     */
    public FakeClientConnectivity bind(String tenant, String sessionId, List<BackendTool> tools) {
        Map<String, BackendTool> byName = new ConcurrentHashMap<>();
        tools.forEach(t -> byName.put(t.spec().name(), t));
        sessions.put(key(tenant, sessionId), byName);
        return this;
    }

    /**
     * Unbinds a session's client (a disconnect).
     *
     * @param tenant the tenant
     * @param sessionId the session
     */
    public void unbind(String tenant, String sessionId) {
        sessions.remove(key(tenant, sessionId));
    }

    @Override
    public boolean isBound(String tenant, String sessionId) {
        return sessionId != null && sessions.containsKey(key(tenant, sessionId));
    }

    @Override
    public Map<String, Object> invoke(String tenant, String sessionId, String tool, Map<String, Object> params,
                                      ToolContext context, Duration timeout) throws ToolException {
        calls.add(new RecordedCall(tenant, sessionId, tool, Map.copyOf(params), timeout));
        Map<String, BackendTool> tools = sessions.get(key(tenant, sessionId));
        if (tools == null) {
            throw new ToolException(ErrorCode.OFFLINE, "No client is bound to session " + sessionId);
        }
        BackendTool t = tools.get(tool);
        if (t == null) {
            throw new ToolException(ErrorCode.UNKNOWN_TOOL, "The client does not offer " + tool);
        }
        inFlight.incrementAndGet();
        try {
            return t.invoke(params, context);
        } finally {
            inFlight.decrementAndGet();
        }
    }

    @Override
    public Optional<List<ToolSpec>> manifest(String tenant, String sessionId) {
        Map<String, BackendTool> tools = sessions.get(key(tenant, sessionId));
        return tools == null ? Optional.empty() : Optional.of(tools.values().stream().map(BackendTool::spec).toList());
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
     * Fails when a call is still running.
     *
     * @throws AssertionError when a call is in flight
     */
    public void assertNoCallsInFlight() {
        if (inFlight.get() != 0) {
            throw new AssertionError(inFlight.get() + " client call(s) still in flight at teardown");
        }
    }

    private static String key(String tenant, String sessionId) {
        return tenant + "\u0000" + sessionId;
    }
}
