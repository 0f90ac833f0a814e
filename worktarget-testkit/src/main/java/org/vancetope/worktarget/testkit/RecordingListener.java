package org.vancetope.worktarget.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.core.DispatchListener;
import org.vancetope.worktarget.core.ToolInvocation;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A {@link DispatchListener} that records every event, for assertions on routing, durations and
 * failures. {@link #assertBalanced()} fails when a started call never finished or failed.
 */
public final class RecordingListener implements DispatchListener {
    /** A listener that has recorded nothing yet. */
    public RecordingListener() {
    }

    /**
     * One recorded event.
     *
     * @param kind {@code started}, {@code finished} or {@code failed}
     * @param invocation the call
     * @param duration the duration (zero for {@code started})
     * @param failure the failure for {@code failed}, else null
     */
    public record Event(String kind, ToolInvocation invocation, Duration duration, ToolException failure) {
    }

    private final List<Event> events = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void callStarted(ToolInvocation invocation) {
        events.add(new Event("started", invocation, Duration.ZERO, null));
    }

    @Override
    public void callFinished(ToolInvocation invocation, Duration duration, Map<String, Object> result) {
        events.add(new Event("finished", invocation, duration, null));
    }

    @Override
    public void callFailed(ToolInvocation invocation, Duration duration, ToolException failure) {
        events.add(new Event("failed", invocation, duration, failure));
    }

    /**
     * The events so far.
     *
     * @return a snapshot
     */
    public List<Event> events() {
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    /**
     * Fails when some started call has neither finished nor failed.
     *
     * @throws AssertionError on an unbalanced start
     */
    public void assertBalanced() {
        List<Event> snapshot = events();
        java.util.Set<ToolInvocation> open = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Event e : snapshot) {
            if (e.kind.equals("started")) {
                open.add(e.invocation);
            } else {
                open.remove(e.invocation);
            }
        }
        if (!open.isEmpty()) {
            throw new AssertionError(open.size() + " call(s) started but never ended: " + open);
        }
    }
}
