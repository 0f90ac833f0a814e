package org.vancetope.worktarget.backend.daemon.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.ByteBufOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolLabel;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The JSON form of the protocol frames (PROTOCOL.md §1–§5, §7): constants, decoding with the
 * forward-compatibility rules (unknown fields ignored, unknown types handed on as {@link Message.Other})
 * and encoding straight into Netty buffers.
 */
public final class Wire {
    /** The protocol version this module speaks. */
    public static final int PROTOCOL_VERSION = 1;
    /** The upgrade header naming the client profile. */
    public static final String PROFILE_HEADER = "X-WorkTarget-Profile";
    /** Profile of a session-bound client. */
    public static final String PROFILE_FOOT = "foot";
    /** Profile of a named daemon. */
    public static final String PROFILE_DAEMON = "daemon";
    /** The negotiated extension that adds the calling process's context to invokes. */
    public static final String CAP_INVOKE_CONTEXT = "invoke.context";
    /** Daemon names (PROTOCOL.md §2). */
    public static final Pattern DAEMON_NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");

    /** Frame type {@code hello}. */
    public static final String HELLO = "hello";
    /** Frame type {@code welcome}. */
    public static final String WELCOME = "welcome";
    /** Frame type {@code error}. */
    public static final String ERROR = "error";
    /** Frame type {@code tool_manifest}. */
    public static final String TOOL_MANIFEST = "tool_manifest";
    /** Frame type {@code client_tool_invoke}. */
    public static final String INVOKE = "client_tool_invoke";
    /** Frame type {@code client_tool_result}. */
    public static final String RESULT = "client_tool_result";
    /** Frame type {@code client_tool_cancel}. */
    public static final String CANCEL = "client_tool_cancel";

    /** Close: protocol violation (too many bad frames). */
    public static final int CLOSE_POLICY = 1008;
    /** Close: frame too big. */
    public static final int CLOSE_TOO_BIG = 1009;
    /** Close: going away (liveness lost, shutdown). */
    public static final int CLOSE_GOING_AWAY = 1001;
    /** Close: a bad hello or a frame before welcome. */
    public static final int CLOSE_BAD_FRAME = 4400;
    /** Close: unauthorized. */
    public static final int CLOSE_UNAUTHORIZED = 4401;
    /** Close: forbidden tenant or project. */
    public static final int CLOSE_FORBIDDEN = 4403;
    /** Close: no hello in time. */
    public static final int CLOSE_HELLO_TIMEOUT = 4408;
    /** Close: a newer connection took over. */
    public static final int CLOSE_SUPERSEDED = 4409;
    /** Close: unsupported protocol version. */
    public static final int CLOSE_UNSUPPORTED_VERSION = 4426;

    private static final Set<String> OWN_TYPES = Set.of(HELLO, WELCOME, ERROR, TOOL_MANIFEST, INVOKE, RESULT, CANCEL);
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() { };
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_LONG_FOR_INTS);
    private static final JsonFactory FACTORY = MAPPER.getFactory();

    private Wire() {
    }

    /**
     * The shared object mapper (thread-safe, configured for the protocol).
     *
     * @return the mapper
     */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /**
     * Whether a frame type is one of the frames this module handles itself.
     *
     * @param type the type
     * @return true for hello, welcome, error, tool_manifest and the three invocation frames
     */
    public static boolean isOwnType(String type) {
        return OWN_TYPES.contains(type);
    }

    // ------------------------------------------------------------------ decoding

    /**
     * Decodes a text frame's payload; the buffer is not released.
     *
     * @param content the UTF-8 payload
     * @return the message
     * @throws BadFrameException when the frame is not valid JSON, not an object, lacks {@code type},
     *         or one of this module's frames has a malformed field
     */
    public static Message decode(ByteBuf content) throws BadFrameException {
        String type;
        try (InputStream in = new ByteBufInputStream(content.duplicate())) {
            type = sniffType(in);
        } catch (IOException e) {
            throw new BadFrameException("The frame is not valid JSON (" + shortReason(e) + "). Send one JSON object per text frame.");
        }
        if (!OWN_TYPES.contains(type)) {
            return new Message.Other(type, content.toString(StandardCharsets.UTF_8));
        }
        try (InputStream in = new ByteBufInputStream(content.duplicate())) {
            return fromTree(type, MAPPER.readTree(in));
        } catch (IOException e) {
            throw new BadFrameException("The frame is not valid JSON (" + shortReason(e) + "). Send one JSON object per text frame.");
        }
    }

    /**
     * Decodes a frame given as text.
     *
     * @param text the frame
     * @return the message
     * @throws BadFrameException as {@link #decode(ByteBuf)}
     */
    public static Message decode(String text) throws BadFrameException {
        String type;
        try (JsonParser p = FACTORY.createParser(text)) {
            type = sniffType(p);
        } catch (IOException e) {
            throw new BadFrameException("The frame is not valid JSON (" + shortReason(e) + "). Send one JSON object per text frame.");
        }
        if (!OWN_TYPES.contains(type)) {
            return new Message.Other(type, text);
        }
        try {
            return fromTree(type, MAPPER.readTree(text));
        } catch (JsonProcessingException e) {
            throw new BadFrameException("The frame is not valid JSON (" + shortReason(e) + "). Send one JSON object per text frame.");
        }
    }

    private static String sniffType(InputStream in) throws IOException, BadFrameException {
        try (JsonParser p = FACTORY.createParser(in)) {
            return sniffType(p);
        }
    }

    /** Reads top-level fields until {@code type}, skipping other values without building them. */
    private static String sniffType(JsonParser p) throws IOException, BadFrameException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new BadFrameException("A frame must be a JSON object with a string field 'type'.");
        }
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            if ("type".equals(field)) {
                if (value != JsonToken.VALUE_STRING) {
                    throw new BadFrameException("The field 'type' must be a string.");
                }
                return p.getText();
            }
            p.skipChildren();
        }
        if (t != JsonToken.END_OBJECT) {
            throw new BadFrameException("The frame is not valid JSON. Send one JSON object per text frame.");
        }
        throw new BadFrameException("The frame has no field 'type'. Every frame needs a string field 'type'.");
    }

    private static String shortReason(IOException e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int nl = m.indexOf('\n');
        m = nl < 0 ? m : m.substring(0, nl);
        return m.length() > 160 ? m.substring(0, 160) + "…" : m;
    }

    private static Message fromTree(String type, JsonNode n) throws BadFrameException {
        return switch (type) {
            case HELLO -> new Message.Hello(intField(n, "protocolVersion", -1), str(n, "profile"), str(n, "tenant"),
                    str(n, "project"), str(n, "daemonName"), str(n, "sessionId"), str(n, "clientName"),
                    strings(n, "capabilities"), tools(n.get("tools")));
            case WELCOME -> new Message.Welcome(intField(n, "protocolVersion", -1), str(n, "connectionId"),
                    strings(n, "capabilities"), map(n.get("limits")));
            case ERROR -> new Message.ErrorFrame(requireStr(n, "code"), str(n, "message"));
            case TOOL_MANIFEST -> new Message.ToolManifest(tools(n.get("tools")));
            case INVOKE -> new Message.Invoke(requireStr(n, "correlationId"), requireStr(n, "name"),
                    map(n.get("params")), longField(n, "timeoutMs", 0L), context(n.get("context")));
            case RESULT -> result(n);
            case CANCEL -> new Message.Cancel(requireStr(n, "correlationId"));
            default -> throw new IllegalStateException(type);
        };
    }

    private static Message.Result result(JsonNode n) throws BadFrameException {
        String id = requireStr(n, "correlationId");
        JsonNode ok = n.get("ok");
        if (ok == null || !ok.isBoolean()) {
            throw new BadFrameException("client_tool_result needs a boolean field 'ok'.");
        }
        if (ok.booleanValue()) {
            return new Message.Result(id, true, map(n.get("result")), null, null);
        }
        JsonNode err = n.get("error");
        String code = err != null && err.isObject() ? str(err, "code") : null;
        String message = err != null && err.isObject() ? str(err, "message") : null;
        return new Message.Result(id, false, null, code == null ? "internal" : code,
                message == null ? "The client reported a failure without a message." : message);
    }

    private static ToolContext context(JsonNode n) throws BadFrameException {
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isObject()) {
            throw new BadFrameException("The field 'context' must be an object.");
        }
        String processId = str(n, "processId");
        String tenant = str(n, "tenant");
        String project = str(n, "project");
        if (processId == null || tenant == null || project == null) {
            throw new BadFrameException("The field 'context' needs processId, tenant and project.");
        }
        return new ToolContext(processId, str(n, "sessionId"), tenant, project, str(n, "user"));
    }

    private static String str(JsonNode n, String field) throws BadFrameException {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new BadFrameException("The field '" + field + "' must be a string.");
        }
        return v.textValue();
    }

    private static String requireStr(JsonNode n, String field) throws BadFrameException {
        String s = str(n, field);
        if (s == null || s.isEmpty()) {
            throw new BadFrameException("The frame '" + n.path("type").asText() + "' needs a non-empty string field '"
                    + field + "'.");
        }
        return s;
    }

    private static int intField(JsonNode n, String field, int absent) throws BadFrameException {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return absent;
        }
        if (!v.canConvertToInt() || !v.isIntegralNumber()) {
            throw new BadFrameException("The field '" + field + "' must be an integer.");
        }
        return v.intValue();
    }

    private static long longField(JsonNode n, String field, long absent) throws BadFrameException {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return absent;
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong()) {
            throw new BadFrameException("The field '" + field + "' must be an integer.");
        }
        return v.longValue();
    }

    private static Set<String> strings(JsonNode n, String field) throws BadFrameException {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return Set.of();
        }
        if (!v.isArray()) {
            throw new BadFrameException("The field '" + field + "' must be an array of strings.");
        }
        Set<String> out = new LinkedHashSet<>();
        for (JsonNode e : v) {
            if (!e.isTextual()) {
                throw new BadFrameException("The field '" + field + "' must be an array of strings.");
            }
            out.add(e.textValue());
        }
        return out;
    }

    private static Map<String, Object> map(JsonNode n) throws BadFrameException {
        if (n == null || n.isNull()) {
            return Map.of();
        }
        if (!n.isObject()) {
            throw new BadFrameException("Expected a JSON object, got " + n.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + ".");
        }
        return MAPPER.convertValue(n, MAP);
    }

    private static List<ToolSpec> tools(JsonNode n) throws BadFrameException {
        if (n == null || n.isNull()) {
            return List.of();
        }
        if (!n.isArray()) {
            throw new BadFrameException("The field 'tools' must be an array of tool specs.");
        }
        List<ToolSpec> out = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        for (JsonNode t : n) {
            if (!t.isObject()) {
                throw new BadFrameException("Every entry of 'tools' must be an object.");
            }
            String name = requireStr(t, "name");
            JsonNode primary = t.get("primary");
            Set<ToolLabel> labels = EnumSet.noneOf(ToolLabel.class);
            for (String l : strings(t, "labels")) {
                for (ToolLabel known : ToolLabel.values()) {
                    if (known.wire().equals(l)) {
                        labels.add(known);
                    }
                }
            }
            JsonNode schema = t.get("paramsSchema");
            try {
                out.add(new ToolSpec(name, str(t, "description"), primary != null && primary.asBoolean(false), labels,
                        map(schema == null ? MAPPER.createObjectNode().put("type", "object") : schema)));
            } catch (IllegalArgumentException e) {
                throw new BadFrameException("Tool spec '" + name + "' is invalid: " + e.getMessage());
            }
            if (!names.add(name)) {
                throw new BadFrameException("The manifest names the tool '" + name + "' twice.");
            }
        }
        return out;
    }

    // ------------------------------------------------------------------ encoding

    /**
     * Encodes a message into a new buffer.
     *
     * @param message the message ({@link Message.Other} is written as its text)
     * @param alloc the allocator
     * @return the UTF-8 payload of a text frame
     */
    public static ByteBuf encode(Message message, ByteBufAllocator alloc) {
        ByteBuf buf = alloc.buffer(256);
        boolean done = false;
        try {
            if (message instanceof Message.Other o) {
                buf.writeCharSequence(o.text(), StandardCharsets.UTF_8);
            } else {
                try (OutputStream out = new ByteBufOutputStream(buf);
                     JsonGenerator g = FACTORY.createGenerator(out)) {
                    write(g, message);
                }
            }
            done = true;
            return buf;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not encode a " + message.type() + " frame", e);
        } finally {
            if (!done) {
                buf.release();
            }
        }
    }

    /**
     * Encodes a message as text.
     *
     * @param message the message
     * @return the JSON text
     */
    public static String encodeToString(Message message) {
        if (message instanceof Message.Other o) {
            return o.text();
        }
        Writer w = new StringWriter(256);
        try (JsonGenerator g = FACTORY.createGenerator(w)) {
            write(g, message);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not encode a " + message.type() + " frame", e);
        }
        return w.toString();
    }

    private static void write(JsonGenerator g, Message message) throws IOException {
        g.writeStartObject();
        g.writeStringField("type", message.type());
        if (message instanceof Message.Hello h) {
            g.writeNumberField("protocolVersion", h.protocolVersion());
            g.writeStringField("profile", h.profile());
            g.writeStringField("tenant", h.tenant());
            g.writeStringField("project", h.project());
            g.writeStringField("daemonName", h.daemonName());
            g.writeStringField("sessionId", h.sessionId());
            g.writeStringField("clientName", h.clientName());
            g.writeObjectField("capabilities", h.capabilities());
            writeTools(g, h.tools());
        } else if (message instanceof Message.Welcome w) {
            g.writeNumberField("protocolVersion", w.protocolVersion());
            g.writeStringField("connectionId", w.connectionId());
            g.writeObjectField("capabilities", w.capabilities());
            g.writeObjectField("limits", w.limits());
        } else if (message instanceof Message.ErrorFrame e) {
            g.writeStringField("code", e.code());
            g.writeStringField("message", e.message());
        } else if (message instanceof Message.ToolManifest m) {
            writeTools(g, m.tools());
        } else if (message instanceof Message.Invoke i) {
            g.writeStringField("correlationId", i.correlationId());
            g.writeStringField("name", i.name());
            g.writeObjectField("params", i.params());
            g.writeNumberField("timeoutMs", i.timeoutMs());
            if (i.context() != null) {
                ToolContext c = i.context();
                g.writeObjectFieldStart("context");
                g.writeStringField("processId", c.processId());
                g.writeStringField("sessionId", c.sessionId());
                g.writeStringField("tenant", c.tenant());
                g.writeStringField("project", c.project());
                g.writeStringField("user", c.user());
                g.writeEndObject();
            }
        } else if (message instanceof Message.Result r) {
            g.writeStringField("correlationId", r.correlationId());
            g.writeBooleanField("ok", r.ok());
            if (r.ok()) {
                g.writeObjectField("result", r.result() == null ? Map.of() : r.result());
            } else {
                g.writeObjectFieldStart("error");
                g.writeStringField("code", r.errorCode());
                g.writeStringField("message", r.errorMessage());
                g.writeEndObject();
            }
        } else if (message instanceof Message.Cancel c) {
            g.writeStringField("correlationId", c.correlationId());
        } else if (message instanceof Message.Other o) {
            throw new IllegalStateException("Other frames are written as text: " + o.type());
        }
        g.writeEndObject();
    }

    private static void writeTools(JsonGenerator g, List<ToolSpec> tools) throws IOException {
        g.writeArrayFieldStart("tools");
        for (ToolSpec s : tools) {
            g.writeObject(specToMap(s));
        }
        g.writeEndArray();
    }

    /**
     * The wire form of a tool spec (PROTOCOL.md §4).
     *
     * @param spec the spec
     * @return a JSON-shaped map
     */
    public static Map<String, Object> specToMap(ToolSpec spec) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", spec.name());
        m.put("description", spec.description());
        m.put("primary", spec.primary());
        m.put("labels", spec.labels().stream().map(ToolLabel::wire).sorted().toList());
        m.put("paramsSchema", spec.paramsSchema());
        return m;
    }
}
