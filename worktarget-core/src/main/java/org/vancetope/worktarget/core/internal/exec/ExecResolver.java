package org.vancetope.worktarget.core.internal.exec;

import java.util.Map;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * What a backend tells {@link ExecTools}: where a call's job runs ({@link #target}) and which job
 * scope a caller belongs to ({@link #scope}).
 *
 * <pre>{@code
 * ExecResolver r = (params, ctx) -> new ExecTarget(root, policy.environment(null, Map.of()), null);
 * }</pre>
 */
@FunctionalInterface
public interface ExecResolver {

    /**
     * Resolves the target of an {@code exec_run} call: runs the backend's confinement gate (e.g. on
     * {@code dirName}), prepares the scoped HOME (including its budget check) and builds the sealed
     * environment.
     *
     * @param params the call's parameters
     * @param context the caller
     * @return the target
     * @throws ToolException when the call must not run (e.g. {@code path_escape}, {@code budget_exceeded})
     */
    ExecTarget target(Map<String, Object> params, ToolContext context) throws ToolException;

    /**
     * The job scope of a caller; jobs of one scope are invisible to every other. Default
     * {@link #defaultScope}.
     *
     * @param context the caller
     * @return the scope key
     */
    default String scope(ToolContext context) {
        return defaultScope(context);
    }

    /**
     * {@code tenant/project/session} — or {@code tenant/project/process:<id>} without a session.
     *
     * @param context the caller
     * @return the scope key
     */
    static String defaultScope(ToolContext context) {
        String last = context.sessionId() != null ? "session:" + context.sessionId() : "process:" + context.processId();
        return context.tenant() + "/" + context.project() + "/" + last;
    }
}
