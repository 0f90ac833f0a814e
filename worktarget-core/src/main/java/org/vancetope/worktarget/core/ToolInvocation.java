package org.vancetope.worktarget.core;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * One routed tool call as interceptors and listeners see it.
 *
 * @param tool the tool the caller asked for, e.g. {@code file_read} or {@code work_target_set}
 * @param target the work target the call was routed by (for meta-tools: the current target)
 * @param backendTool the tool that runs, e.g. {@code work_file_read}; for meta-tools the meta-tool's name
 * @param params the parameters after routing (unmodifiable)
 * @param context the calling process
 */
public record ToolInvocation(String tool, WorkTarget target, String backendTool, Map<String, Object> params,
                             ToolContext context) {

    /** Validates and copies. */
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
}
