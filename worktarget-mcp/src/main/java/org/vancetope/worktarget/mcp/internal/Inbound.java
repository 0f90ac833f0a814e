package org.vancetope.worktarget.mcp.internal;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the transports do with an inbound JSON-RPC message before the SDK sees it: a {@code tools/call}
 * request gets its request key in {@code _meta} (so the call can be found to cancel it), a
 * {@code notifications/cancelled} cancels the call it names.
 */
public final class Inbound {
    /** The method of a cancel notification. */
    public static final String CANCELLED = "notifications/cancelled";

    private Inbound() {
    }

    /**
     * Tags a request with its key when it is a tool call; the caller's own value of the key is replaced.
     *
     * @param method the method
     * @param id the JSON-RPC id
     * @param params the params (a JSON object, or null)
     * @param sessionId the session, or null over stdio
     * @return the params to pass on (a copy when tagged)
     */
    @SuppressWarnings("unchecked")
    public static Object tag(String method, Object id, Object params, String sessionId) {
        if (!McpSchema.METHOD_TOOLS_CALL.equals(method) || !(params instanceof Map<?, ?> p)) {
            return params;
        }
        Map<String, Object> copy = new LinkedHashMap<>((Map<String, Object>) p);
        Map<String, Object> meta = copy.get("_meta") instanceof Map<?, ?> m
                ? new LinkedHashMap<>((Map<String, Object>) m) : new LinkedHashMap<>();
        meta.put(CallRegistry.REQUEST_KEY, CallRegistry.key(sessionId, id));
        copy.put("_meta", meta);
        return copy;
    }

    /**
     * Cancels the call a {@code notifications/cancelled} names.
     *
     * @param method the notification's method
     * @param params its params
     * @param sessionId the session, or null over stdio
     * @param calls the running calls
     */
    public static void cancel(String method, Object params, String sessionId, CallRegistry calls) {
        if (CANCELLED.equals(method) && params instanceof Map<?, ?> p && p.get("requestId") != null) {
            calls.cancel(CallRegistry.key(sessionId, p.get("requestId")));
        }
    }
}
