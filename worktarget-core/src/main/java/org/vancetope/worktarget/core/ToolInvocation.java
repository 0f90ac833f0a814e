package org.vancetope.worktarget.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * One tool call as interceptors and listeners see it. Interceptors and the listener see the caller's
 * parameters; backend interceptors see them fitted to the target by routing.
 *
 * @param tool the tool the caller asked for, e.g. {@code file_read} or {@code work_target_set}
 * @param target the work target the call is routed by (for meta-tools and host tools: the current target)
 * @param backendTool the tool that runs, e.g. {@code work_file_read}, as {@link #backendToolOf} names it; for
 *        meta-tools and host tools the tool's own name
 * @param params the parameters (unmodifiable)
 * @param context the calling process
 */
public record ToolInvocation(String tool, WorkTarget target, String backendTool, Map<String, Object> params,
                             ToolContext context) {

    /**
     * Validates and copies.
     *
     * @param tool the tool the caller asked for, e.g. {@code file_read} or {@code work_target_set}
     * @param target the work target the call is routed by (for meta-tools and host tools: the current target)
     * @param backendTool the tool that runs, e.g. {@code work_file_read}, as {@link #backendToolOf} names it; for
     *        meta-tools and host tools the tool's own name
     * @param params the parameters (unmodifiable)
     * @param context the calling process
     */
    public ToolInvocation {
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(backendTool, "backendTool");
        Objects.requireNonNull(context, "context");
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }

    /**
     * The same invocation with other parameters (for interceptors that rewrite them).
     *
     * @param newParams the parameters
     * @return a new invocation
     */
    public ToolInvocation withParams(Map<String, Object> newParams) {
        return new ToolInvocation(tool, target, backendTool, newParams, context);
    }

    /**
     * The same invocation routed by another target (for an interceptor that falls back, for example
     * to WORK when the daemon is offline); the backend tool follows from it.
     *
     * @param newTarget the target
     * @return a new invocation
     */
    public ToolInvocation withTarget(WorkTarget newTarget) {
        return new ToolInvocation(tool, newTarget, backendToolOf(tool, newTarget), params, context);
    }

    /**
     * The backend tool that runs a tool on a target: {@code file_read} on DAEMON is {@code client_file_read},
     * on WORK {@code work_file_read}; any other tool (a meta-tool, a host tool) runs as itself.
     *
     * @param tool the tool the caller asked for
     * @param target the target
     * @return the backend tool's name
     */
    public static String backendToolOf(String tool, WorkTarget target) {
        return ToolCatalog.wrapper(tool).isPresent() ? ToolCatalog.backendName(tool, target.kind()) : tool;
    }
}
