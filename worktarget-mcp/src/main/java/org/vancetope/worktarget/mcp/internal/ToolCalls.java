package org.vancetope.worktarget.mcp.internal;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.mcp.McpCaller;
import org.vancetope.worktarget.mcp.McpProcessMapping;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * Runs an MCP {@code tools/call} through the dispatcher: maps the caller to a process, registers the call
 * for cancellation, sends progress while a waiting tool runs, and turns the result into
 * {@code structuredContent} plus a JSON text rendering, or a {@link ToolException} into an {@code isError}
 * result whose text is the code and the message ({@code path_escape: …}). A result with {@code ok: false}
 * (a transfer that did not succeed) keeps its structured content and is an {@code isError} result too.
 */
public final class ToolCalls {
    private static final Logger LOG = LoggerFactory.getLogger(ToolCalls.class);

    /**
     * The schema validator the SDK server gets: it checks the tools' schemas as the SDK's default does, but
     * does not validate every result against its tool's output schema again. The dispatcher's results are
     * built to their schema ({@code ToolSpec.outputSchema()}), the tests validate every tool's results
     * against it, and MCP clients validate {@code structuredContent} themselves; the SDK's check per call
     * (a tree copy of the result, the validation and one more serialisation) cost a large part of a small
     * call's time.
     */
    public static final JsonSchemaValidator RESULTS_CONFORM = new JsonSchemaValidator() {
        @Override
        public ValidationResponse validate(Map<String, Object> schema, Object structuredContent) {
            return ValidationResponse.asValid(null);
        }

        @Override
        public ValidationResponse validateSchema(Map<String, Object> schema) {
            return McpJsonDefaults.getSchemaValidator().validateSchema(schema);
        }
    };

    private final WorkTargetDispatcher dispatcher;
    private final McpProcessMapping processes;
    private final Function<String, McpCaller> callers;
    private final CallRegistry calls;
    private final ScheduledExecutorService ticker;
    private final Duration progressInterval;
    private final Set<String> waitingTools;
    private final McpJsonMapper json;

    /**
     * The calls of one server.
     *
     * @param dispatcher runs the tools
     * @param processes maps callers to processes
     * @param callers the caller of an MCP session id
     * @param calls the running calls
     * @param ticker sends progress
     * @param progressInterval how often progress is sent
     * @param waitingTools the tools that send progress while they run
     * @param json renders the text content
     */
    public ToolCalls(WorkTargetDispatcher dispatcher, McpProcessMapping processes, Function<String, McpCaller> callers,
                     CallRegistry calls, ScheduledExecutorService ticker, Duration progressInterval,
                     Set<String> waitingTools, McpJsonMapper json) {
        this.dispatcher = dispatcher;
        this.processes = processes;
        this.callers = callers;
        this.calls = calls;
        this.ticker = ticker;
        this.progressInterval = progressInterval;
        this.waitingTools = Set.copyOf(waitingTools);
        this.json = json;
    }

    /**
     * The SDK tool specifications of these specs.
     *
     * @param specs the tools
     * @return one specification each
     */
    public List<McpServerFeatures.SyncToolSpecification> specifications(List<ToolSpec> specs) {
        return specs.stream().map(s -> McpServerFeatures.SyncToolSpecification.builder()
                .tool(McpToolMapping.tool(s))
                .callHandler((exchange, request) -> call(exchange, request))
                .build()).toList();
    }

    private McpSchema.CallToolResult call(McpSyncServerExchange exchange, McpSchema.CallToolRequest request) {
        Map<String, Object> meta = request.meta() == null ? Map.of() : request.meta();
        Object key = meta.get(CallRegistry.REQUEST_KEY);
        String callKey = key == null ? null : key.toString();
        Object progressToken = meta.get("progressToken");
        ScheduledFuture<?> progress = null;
        if (callKey != null && !calls.started(callKey)) {
            // the SDK answers with this JSON-RPC error; the running call keeps its entry, and can be cancelled
            throw McpError.builder(McpSchema.ErrorCodes.INVALID_REQUEST).message("A request with id "
                    + callKey.substring(callKey.indexOf('#') + 1) + " is still running: every request needs an id of its own"
                    + " (MCP requires ids unique within a session). Send this one again with a new id.").build();
        }
        try {
            McpCaller caller = callers.apply(exchange.sessionId());
            String process = processes.processFor(caller);
            if (progressToken != null && waitingTools.contains(request.name())) {
                progress = startProgress(exchange, progressToken, request.name());
            }
            Map<String, Object> args = request.arguments() == null ? Map.of() : request.arguments();
            Map<String, Object> result = dispatcher.invoke(process, request.name(), args);
            // a transfer that did not succeed answers {ok: false, error, code, ...}: a result, valid against the
            // output schema and kept whole (a directory transfer's entries say what landed), but a failed call
            return McpSchema.CallToolResult.builder()
                    .structuredContent(result)
                    .addTextContent(render(result))
                    .isError(Boolean.FALSE.equals(result.get("ok")))
                    .build();
        } catch (ToolException e) {
            if (callKey != null && calls.stopped(callKey)) {
                return stopped(request.name(), e);
            }
            if (e.code() != ErrorCode.CANCELLED && callKey != null && calls.cancelled(callKey)) {
                return cancelled(request.name(), e);
            }
            return error(e.code(), e.getMessage());
        } catch (RuntimeException e) {
            if (callKey != null && calls.stopped(callKey)) {
                return stopped(request.name(), e);
            }
            if (callKey != null && calls.cancelled(callKey)) {
                return cancelled(request.name(), e);
            }
            LOG.warn("The tool call {} failed", request.name(), e);
            return error(ErrorCode.INTERNAL, "The server failed to run " + request.name() + ": " + e);
        } finally {
            if (progress != null) {
                progress.cancel(false);
            }
            if (callKey != null) {
                calls.finished(callKey);
            }
        }
    }

    private ScheduledFuture<?> startProgress(McpSyncServerExchange exchange, Object token, String tool) {
        long start = System.nanoTime();
        AtomicLong ticks = new AtomicLong();
        long every = Math.max(1, progressInterval.toMillis());
        return ticker.scheduleAtFixedRate(() -> {
            long n = ticks.incrementAndGet();
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            try {
                exchange.progressNotification(McpSchema.ProgressNotification.builder(token, n)
                        .message(tool + " still running after " + ms + " ms").build());
            } catch (RuntimeException e) {
                LOG.debug("Could not send progress for {}: {}", tool, e.toString());
            }
        }, every, every, TimeUnit.MILLISECONDS);
    }

    /**
     * The result of a call that was cancelled (by {@code notifications/cancelled} or the end of the
     * input) and then failed: the failure is the interrupt's doing, so the call reports {@code cancelled}.
     */
    private static McpSchema.CallToolResult cancelled(String tool, Exception failure) {
        LOG.debug("The cancelled call {} ended in {}", tool, failure.toString());
        return error(ErrorCode.CANCELLED, tool + " was cancelled (the client cancelled the request or closed its "
                + "input); what it had done by then stays done.");
    }

    private static McpSchema.CallToolResult stopped(String tool, Exception failure) {
        LOG.debug("The call {} ended in {} as the server shut down", tool, failure.toString());
        return error(ErrorCode.CANCELLED, tool + " was ended because the MCP server is shutting down; what it had "
                + "done by then stays done, and a job it started was ended. Call it again once the server is back.");
    }

    /**
     * An error result: {@code isError} with one text item, the stable code, a colon and the message. It has
     * no {@code structuredContent}: clients validate structured content against the tool's output schema,
     * which describes the tool's results, not its errors.
     */
    private static McpSchema.CallToolResult error(ErrorCode code, String message) {
        return McpSchema.CallToolResult.builder()
                .addTextContent(code.wire() + ": " + message)
                .isError(true)
                .build();
    }

    private String render(Map<String, Object> result) {
        try {
            return json.writeValueAsString(result);
        } catch (IOException e) {
            return String.valueOf(result);
        }
    }
}
