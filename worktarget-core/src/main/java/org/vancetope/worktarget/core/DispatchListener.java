package org.vancetope.worktarget.core;

import java.time.Duration;
import java.util.Map;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Observes dispatched calls (metrics, audit trails, tracing). All methods default to no-ops.
 * Implementations must be fast; an exception thrown by a listener is logged and otherwise ignored.
 */
public interface DispatchListener {

    /** A listener that does nothing. */
    DispatchListener NONE = new DispatchListener() {
    };

    /**
     * A routed call is about to run.
     *
     * @param invocation the call
     */
    default void callStarted(ToolInvocation invocation) {
    }

    /**
     * A call finished successfully.
     *
     * @param invocation the call
     * @param duration how long it took
     * @param result its result
     */
    default void callFinished(ToolInvocation invocation, Duration duration, Map<String, Object> result) {
    }

    /**
     * A call failed. Calls that fail before routing (unknown process or tool) are reported with the
     * target that was current, or WORK when even that is unknown.
     *
     * @param invocation the call
     * @param duration how long it took
     * @param failure the failure
     */
    default void callFailed(ToolInvocation invocation, Duration duration, ToolException failure) {
    }
}
