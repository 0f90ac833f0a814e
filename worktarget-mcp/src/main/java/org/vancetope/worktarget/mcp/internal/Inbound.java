package org.vancetope.worktarget.mcp.internal;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the transports do with an inbound JSON-RPC message before the SDK sees it: a request whose params
 * have a shape the SDK cannot read is answered with an invalid-params error ({@link #invalidParams}), a
 * {@code tools/call} request gets its request key in {@code _meta} (so the call can be found to cancel it),
 * a {@code notifications/cancelled} cancels the call it names.
 */
public final class Inbound {
    /** The method of a cancel notification. */
    public static final String CANCELLED = "notifications/cancelled";
    /** The JSON-RPC error code of a request refused because too many are running (server-defined range). */
    static final int BUSY = -32000;

    /** The levels {@code logging/setLevel} accepts, as MCP spells them. */
    private static final List<String> LEVELS = List.of("debug", "info", "notice", "warning", "error", "critical",
            "alert", "emergency");

    /** What a number or a boolean becomes when the parser reads it as a method name. */
    private static final java.util.regex.Pattern SCALAR = java.util.regex.Pattern.compile(
            "-?[0-9][0-9.eE+-]*|true|false");

    private Inbound() {
    }

    /**
     * Parses one JSON-RPC message. Any text that is no message (the JSON literal {@code null} too, on which the
     * SDK's parser fails with a {@code NullPointerException}) fails with an exception {@link #reason} explains.
     *
     * @param json the mapper
     * @param text the message's text
     * @return the message
     * @throws IOException when the text is not JSON
     * @throws IllegalArgumentException when it is JSON but no JSON-RPC message
     */
    public static McpSchema.JSONRPCMessage message(McpJsonMapper json, String text) throws IOException {
        try {
            McpSchema.JSONRPCMessage m = McpSchema.deserializeJsonRpcMessage(json, text);
            String method = m instanceof McpSchema.JSONRPCRequest r ? r.method()
                    : m instanceof McpSchema.JSONRPCNotification n ? n.method() : null;
            if (method != null && SCALAR.matcher(method).matches() && !(json.readValue(text, Map.class)
                    .get("method") instanceof String)) {
                // the parser turned a number or a boolean into a method name: no such message is valid
                throw new IllegalArgumentException("the \"method\" of a request or notification must be a string, "
                        + "such as \"tools/call\"; it is " + method);
            }
            return m;
        } catch (IOException | IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("Cannot deserialize JSONRPCMessage: " + e.getClass().getSimpleName(), e);
        }
    }

    /**
     * What to tell a client whose message could not be parsed: why (the parser's reason in a line, never the
     * text itself, which may be megabytes) and the shape to send instead.
     *
     * @param what what was read: {@code "The line"}, {@code "The body"}
     * @param text the text read
     * @param e why it could not be parsed
     * @return the message of the parse error
     */
    public static String unreadable(String what, String text, Exception e) {
        if (text.stripLeading().startsWith("[")) {
            return what + " is a JSON array: batches of JSON-RPC messages are not accepted (MCP 2025-06-18 removed"
                    + " them); send each message on its own.";
        }
        return what + " is not one JSON-RPC message: " + reason(e) + ". Send one JSON object per message: "
                + "{\"jsonrpc\": \"2.0\", \"id\": ID, \"method\": METHOD, \"params\": {…}} for a request (without \"id\" "
                + "for a notification), or {\"jsonrpc\": \"2.0\", \"id\": ID, \"result\": {…}} for a response.";
    }

    /**
     * The JSON-RPC error answering a text that is no message: a parse error ({@code -32700}) when the text is
     * not JSON; an invalid request ({@code -32600}) when it is JSON, with the text's {@code id} when it has one
     * a client can match (a string or an integer), so that the client's request fails at once instead of
     * waiting for its timeout; else with {@code "id": null}, as JSON-RPC requires.
     *
     * @param json the mapper
     * @param what what was read: {@code "The line"}
     * @param text the text read
     * @param e why it could not be parsed as a message
     * @return the error message, as a map (the SDK's response type cannot carry a null id)
     */
    public static Map<String, Object> unreadableError(McpJsonMapper json, String what, String text, Exception e) {
        int code = McpSchema.ErrorCodes.PARSE_ERROR;
        Object id = null;
        try {
            Object value = json.readValue(text, Object.class);
            code = McpSchema.ErrorCodes.INVALID_REQUEST;
            if (value instanceof Map<?, ?> m) {
                Object given = m.get("id");
                if (given instanceof String || given instanceof Integer || given instanceof Long
                        || given instanceof java.math.BigInteger) {
                    id = given;
                }
            }
        } catch (IOException | RuntimeException notJson) {
            // not JSON (or too deep to read): a parse error
        }
        return error(id, code, unreadable(what, text, e));
    }

    /**
     * A JSON-RPC error message as a map: the SDK's response type cannot carry the {@code "id": null} of an
     * error about a message whose id could not be read.
     *
     * @param id the id, or null
     * @param code the JSON-RPC error code
     * @param message the error's message
     * @return the message
     */
    public static Map<String, Object> error(Object id, int code, String message) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("jsonrpc", McpSchema.JSONRPC_VERSION);
        error.put("id", id);
        error.put("error", Map.of("code", code, "message", message));
        return error;
    }

    /** The longest reason {@link #unreadable} passes on from a parser. */
    static final int MAX_REASON = 240;

    /**
     * Why a text did not parse, in one line: the innermost cause's message (the JSON parser's, say a nesting
     * depth over its limit), without the parser's location and reference-chain suffixes; for an object that
     * is none of the message kinds, which members make one.
     */
    static String reason(Exception e) {
        if (e instanceof IllegalArgumentException && String.valueOf(e.getMessage())
                .startsWith("Cannot deserialize JSONRPCMessage")
                && (e.getCause() == null || !(e.getCause() instanceof IOException))) {
            // the SDK's words, followed by the whole text
            return "a JSON object with a \"method\" (a request or notification), or with a \"result\" or an "
                    + "\"error\" (a response), was expected";
        }
        Throwable inner = e;
        while (inner.getCause() != null && inner.getCause() != inner) {
            inner = inner.getCause();
        }
        String m = inner.getMessage() == null ? inner.getClass().getSimpleName() : inner.getMessage();
        for (String cut : List.of("\n", " (through reference chain")) {
            int at = m.indexOf(cut);
            if (at >= 0) {
                m = m.substring(0, at);
            }
        }
        m = m.strip();
        return m.length() > MAX_REASON ? m.substring(0, MAX_REASON) + "…" : m;
    }

    /**
     * The answer to a request the SDK is not to see, or null when it may: an invalid-params error when
     * {@link #invalidParams} finds fault with the params.
     *
     * @param request the request
     * @return the error response, or null
     */
    public static McpSchema.JSONRPCResponse refusal(McpSchema.JSONRPCRequest request) {
        String invalid = invalidParams(request.method(), request.params());
        return invalid == null ? null : McpSchema.JSONRPCResponse.error(request.id(),
                new McpSchema.JSONRPCResponse.JSONRPCError(McpSchema.ErrorCodes.INVALID_PARAMS, invalid));
    }

    /**
     * The answer to a request that came before the session was initialized: a JSON-RPC invalid-request error
     * that says which two messages come first.
     *
     * @param id the request's id
     * @param method the request's method
     * @return the error response
     */
    public static McpSchema.JSONRPCResponse notInitialized(Object id, String method) {
        return McpSchema.JSONRPCResponse.error(id, new McpSchema.JSONRPCResponse.JSONRPCError(
                McpSchema.ErrorCodes.INVALID_REQUEST, "The session is not initialized yet, so " + method + " was not "
                + "run: send the initialize request first, then the notifications/initialized notification once it "
                + "is answered, then other requests (ping is answered at any time)."));
    }

    /**
     * The answer to a request of a principal that has its share of the requests running already: a JSON-RPC
     * error (code -32000) that says to send it again once one of them has been answered.
     *
     * @param id the request's id
     * @param subject the principal's subject
     * @param share how many requests one principal may have running
     * @param limit how many requests all sessions together may have running
     * @return the error response
     */
    public static McpSchema.JSONRPCResponse busyPrincipal(Object id, String subject, int share, int limit) {
        return McpSchema.JSONRPCResponse.error(id, new McpSchema.JSONRPCResponse.JSONRPCError(BUSY,
                "'" + subject + "' has " + share + " requests running over all its sessions, the most one token may "
                + "have at once on this server (a quarter of its " + limit + "): send this one again when one of "
                + "them has been answered."));
    }

    /**
     * The answer to a request that came while {@code limit} requests were running already: a JSON-RPC error
     * (code -32000) that says to send it again once one of them has been answered.
     *
     * @param id the request's id
     * @param limit how many requests may run at a time
     * @return the error response
     */
    public static McpSchema.JSONRPCResponse busy(Object id, int limit) {
        return McpSchema.JSONRPCResponse.error(id, new McpSchema.JSONRPCResponse.JSONRPCError(BUSY,
                "This server answers " + limit + " requests at a time and that many are running: send this one"
                + " again when one of them has been answered."));
    }

    /**
     * Why a request's params cannot be handled, or null when their shape is fine. Checked: params that are
     * not a JSON object (any method), and for the methods that need them, missing params or a member of a
     * type the SDK cannot read: {@code initialize} ({@code capabilities} and {@code clientInfo} objects),
     * {@code tools/call} (a {@code name} string, {@code arguments} an object or absent) and
     * {@code logging/setLevel} (a known {@code level}). Left to itself the SDK answers those with an internal
     * error carrying a deserialiser's message (over HTTP, not at all), or takes an unknown level for
     * {@code info}.
     *
     * @param method the request's method
     * @param params its params as parsed (a map for a JSON object), or null
     * @return the message of a JSON-RPC invalid-params error, which says what to send instead; or null
     */
    public static String invalidParams(String method, Object params) {
        if (params != null && !(params instanceof Map<?, ?>)) {
            return "The params of " + method + " must be a JSON object, not " + kind(params) + ".";
        }
        Map<?, ?> p = (Map<?, ?>) params;
        switch (method) {
            case McpSchema.METHOD_INITIALIZE -> {
                String shape = "initialize needs params {\"protocolVersion\": VERSION, \"capabilities\": {…},"
                        + " \"clientInfo\": {\"name\": NAME, \"version\": VERSION}}";
                if (p == null) {
                    return shape + ".";
                }
                for (String member : List.of("capabilities", "clientInfo")) {
                    if (p.get(member) != null && !(p.get(member) instanceof Map<?, ?>)) {
                        return shape + ": " + member + " must be a JSON object, not " + kind(p.get(member)) + ".";
                    }
                }
            }
            case McpSchema.METHOD_TOOLS_CALL -> {
                if (p == null || !(p.get("name") instanceof String name)) {
                    return "tools/call needs params {\"name\": TOOL, \"arguments\": {…}} with the tool's name as a string"
                            + " (tools/list lists the tools).";
                }
                Object arguments = p.get("arguments");
                if (arguments != null && !(arguments instanceof Map<?, ?>)) {
                    return "The arguments of tools/call " + name + " must be a JSON object of the tool's parameters"
                            + " (its inputSchema in tools/list), not " + kind(arguments) + ".";
                }
            }
            case McpSchema.METHOD_LOGGING_SET_LEVEL -> {
                Object level = p == null ? null : p.get("level");
                if (!(level instanceof String l) || !LEVELS.contains(l)) {
                    return "logging/setLevel needs params {\"level\": LEVEL} with LEVEL one of " + String.join(", ", LEVELS)
                            + (level == null ? "." : ", not " + kind(level) + ".");
                }
            }
            default -> {
                // the SDK reads the params of the other methods it serves, or answers method-not-found
            }
        }
        return null;
    }

    /** What a JSON value is, for a message: {@code a string ("x")}, {@code an array}, and so on. */
    private static String kind(Object value) {
        if (value instanceof String s) {
            return "a string (\"" + (s.length() > 40 ? s.substring(0, 40) + "…" : s) + "\")";
        }
        if (value instanceof List<?>) {
            return "an array";
        }
        if (value instanceof Map<?, ?>) {
            return "an object";
        }
        if (value instanceof Boolean b) {
            return b.toString();
        }
        return value instanceof Number n ? "a number (" + n + ")" : "null";
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
