package org.vancetope.worktarget.backend.daemon;

import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * A call the server cancelled ({@code client_tool_cancel}) or that was running when
 * the connection closed, as told to {@link WorkTargetClient.Builder#onCancel}. The worker thread running
 * it has been interrupted; the hook is the place to stop what the call started outside that thread,
 * for example to kill the job an {@code client_exec_run} launched.
 *
 * @param correlationId the invoke's correlation id
 * @param tool the tool name
 * @param params the parameters of the call
 * @param context the calling process's context
 */
public record CancelledCall(String correlationId, String tool, Map<String, Object> params, ToolContext context) {
    /**
     * Validates.
     *
     * @param correlationId the invoke's correlation id
     * @param tool the tool name
     * @param params the parameters of the call
     * @param context the calling process's context
     */
    public CancelledCall {
        Objects.requireNonNull(correlationId, "correlationId");
        Objects.requireNonNull(tool, "tool");
        params = params == null ? Map.of() : params;
    }
}
