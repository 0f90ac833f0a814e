package org.vancetope.worktarget.backend.daemon.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.type.TypeReference;
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
import org.vancetope.worktarget.core.internal.FieldReader;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolLabel;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The JSON form of the protocol frames: constants, decoding with the
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
    /** The capability: the server tells a client that a process ended ({@value #PROCESS_END}). */
    public static final String CAP_PROCESS_END = "process.end";
    /**
     * The largest frame payload of the base protocol, 2 MiB: what every peer accepts, and so the most
     * either end sends unless the peer announced a larger limit.
     */
    public static final int PROTOCOL_MAX_FRAME_BYTES = 2 * 1024 * 1024;
    /** The key of {@code welcome.limits} and {@code hello.limits} with the largest frame payload the sender accepts. */
    public static final String LIMIT_MAX_FRAME_BYTES = "maxFrameBytes";
    /** The smallest {@code maxFrameBytes} a peer may set or announce. */
    public static final int MIN_FRAME_BYTES = 64 * 1024;

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
    /** Frame type: a process ended (server → client, capability {@value #CAP_PROCESS_END}). */
    public static final String PROCESS_END = "process_end";

    /** Close: protocol violation (too many bad frames). */
    public static final int CLOSE_POLICY = 1008;
    /** Close: frame too big. */
    public static final int CLOSE_TOO_BIG = 1009;
    /** Close: try again later (the server is at a capacity limit; the client reconnects with back-off). */
    public static final int CLOSE_TRY_AGAIN_LATER = 1013;
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

    private static final Set<String> OWN_TYPES = Set.of(HELLO, WELCOME, ERROR, TOOL_MANIFEST, INVOKE, RESULT, CANCEL,
            PROCESS_END);
    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() { };
    // Integers that fit an int decode as Integer, larger ones as Long: the same shapes the in-process
    // backends produce, so a result reads the same on CLIENT, WORK and DAEMON.
    private static final ObjectMapper MAPPER = new ObjectMapper();
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
     * Decodes a text frame's payload; the buffer is not released. Each frame is parsed once: a frame
     * of a type this module does not handle is returned as {@link Message.Other}, either unparsed
     * (its type read from the canonical head {@code {"type":"…",} that every WorkTarget encoder
     * writes, so a transfer chunk reaches its decoder without a JSON parser having run) or, when the
     * type is not the first field, with the {@link Message.Other#fields() fields} this one pass parsed.
     *
     * @param content the UTF-8 payload
     * @return the message
     * @throws BadFrameException when the frame is not valid JSON, not an object, lacks {@code type},
     *         or one of this module's frames has a malformed field
     */
    public static Message decode(ByteBuf content) throws BadFrameException {
        String head = headType(content);
        if (head != null && !OWN_TYPES.contains(head)) {
            return new Message.Other(head, content.nioBuffer(), null);
        }
        if (content.hasArray()) {
            // a heap buffer (a frame given as text, a fleet message): the parser reads the array in place
            try (JsonParser p = FACTORY.createParser(content.array(), content.arrayOffset() + content.readerIndex(),
                    content.readableBytes())) {
                return decode(p, () -> content.nioBuffer());
            } catch (IOException e) {
                throw notJson(e);
            }
        }
        try (InputStream in = new ByteBufInputStream(content.duplicate());
             JsonParser p = FACTORY.createParser(in)) {
            return decode(p, () -> content.nioBuffer());
        } catch (IOException e) {
            throw notJson(e);
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
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        return decode(io.netty.buffer.Unpooled.wrappedBuffer(utf8));
    }

    private static final byte[] TYPE_HEAD = "{\"type\":\"".getBytes(StandardCharsets.US_ASCII);

    /**
     * The type of a frame that starts with {@code {"type":"name",} (or {@code "}"}) with an ASCII
     * name without escapes; null for any other start (the frame is then parsed to learn it).
     */
    private static String headType(ByteBuf b) {
        int from = b.readerIndex();
        int to = b.writerIndex();
        if (to - from < TYPE_HEAD.length + 2) {
            return null;
        }
        for (int i = 0; i < TYPE_HEAD.length; i++) {
            if (b.getByte(from + i) != TYPE_HEAD[i]) {
                return null;
            }
        }
        int start = from + TYPE_HEAD.length;
        int p = start;
        while (p < to && p - start < 64) {
            byte c = b.getByte(p);
            if (c == '"') {
                break;
            }
            if (c == '\\' || c < 0x20) {      // escapes, control and non-ASCII bytes: the parser reads it
                return null;
            }
            p++;
        }
        if (p == start || p + 1 >= to || b.getByte(p) != '"' || (b.getByte(p + 1) != ',' && b.getByte(p + 1) != '}')) {
            return null;
        }
        return b.toString(start, p - start, StandardCharsets.US_ASCII);
    }

    private static BadFrameException notJson(IOException e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int nl = m.indexOf('\n');
        m = nl < 0 ? m : m.substring(0, nl);
        m = m.length() > 160 ? m.substring(0, 160) + "…" : m;
        return new BadFrameException("The frame is not valid JSON (" + m + "). Send one JSON object per text frame.");
    }

    /** Stands for an object this decoder skipped: a field of one of its own frames that it has no use for. */
    private static final Map<String, Object> SKIPPED_OBJECT = Map.of();
    /** Stands for an array this decoder skipped. */
    private static final List<Object> SKIPPED_ARRAY = List.of();
    private static final Set<String> STRUCTURED_FIELDS = Set.of("params", "result", "limits", "context", "error",
            "tools", "capabilities");

    private static Message decode(JsonParser p, java.util.function.Supplier<java.nio.ByteBuffer> utf8)
            throws IOException, BadFrameException {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new BadFrameException("A frame must be a JSON object with a string field 'type'.");
        }
        Map<String, Object> fields = new java.util.HashMap<>();
        String type = null;
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken v = p.nextToken();
            if ("type".equals(name)) {
                if (v != JsonToken.VALUE_STRING) {
                    throw new BadFrameException("The field 'type' must be a string.");
                }
                type = p.getText();
                continue;
            }
            // until the type is known, and for the frames of other types, every value is kept
            boolean keep = type == null || !OWN_TYPES.contains(type) || STRUCTURED_FIELDS.contains(name);
            fields.put(name, readValue(p, v, keep));
        }
        if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
            throw new BadFrameException("The frame is not valid JSON. Send one JSON object per text frame.");
        }
        if (type == null) {
            throw new BadFrameException("The frame has no field 'type'. Every frame needs a string field 'type'.");
        }
        if (!OWN_TYPES.contains(type)) {
            fields.put("type", type);
            return new Message.Other(type, utf8.get(), fields);
        }
        return build(type, new FieldReader<>(fields, new Words(type)));
    }

    private static Object readValue(JsonParser p, JsonToken v, boolean keep) throws IOException {
        switch (v) {
            case VALUE_STRING:
                return p.getText();
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return p.getNumberValue();
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            case START_OBJECT:
            case START_ARRAY:
                if (keep) {
                    return MAPPER.readValue(p, Object.class);
                }
                p.skipChildren();
                return v == JsonToken.START_OBJECT ? SKIPPED_OBJECT : SKIPPED_ARRAY;
            default:
                p.skipChildren();
                return null;
        }
    }

    /** The protocol frames' words for the field reader: {@code The field 'x' of 'hello' ...}, refusals are bad frames. */
    private record Words(String type) implements FieldReader.Vocabulary<BadFrameException> {
        @Override
        public String subject(String field) {
            return "The field '" + field + "' of '" + type + "'";
        }

        @Override
        public String missing(String field) {
            return "The frame '" + type + "' needs a non-empty string field '" + field + "'.";
        }

        @Override
        public BadFrameException refusal(String field, String message) {
            return new BadFrameException(message);
        }
    }

    /** A required, non-empty string, refused with the one message of a missing one. */
    private static String requireStr(FieldReader<BadFrameException> f, String field, String type)
            throws BadFrameException {
        String s = f.string(field);
        if (s == null || s.isEmpty()) {
            throw new BadFrameException(new Words(type).missing(field));
        }
        return s;
    }

    private static Map<String, Object> map(FieldReader<BadFrameException> f, String field) throws BadFrameException {
        Map<String, Object> m = f.object(field);
        return m == null ? Map.of() : m;
    }

    private static Message build(String type, FieldReader<BadFrameException> f) throws BadFrameException {
        switch (type) {
            case HELLO: {
                long version = f.integer("protocolVersion", -1, Long.MIN_VALUE, Long.MAX_VALUE);
                return new Message.Hello(version > Integer.MAX_VALUE || version < Integer.MIN_VALUE ? -1 : (int) version,
                        f.string("profile"), f.string("tenant"), f.string("project"), f.string("daemonName"),
                        f.string("sessionId"), f.string("clientName"), stringsOf(f, "capabilities"),
                        tools(tree(f, "tools")), map(f, "limits"));
            }
            case WELCOME:
                return new Message.Welcome((int) f.integer("protocolVersion", -1, Long.MIN_VALUE, Long.MAX_VALUE),
                        f.string("connectionId"), stringsOf(f, "capabilities"), map(f, "limits"));
            case ERROR:
                return new Message.ErrorFrame(requireStr(f, "code", type), f.string("message"));
            case TOOL_MANIFEST:
                return new Message.ToolManifest(tools(tree(f, "tools")));
            case INVOKE:
                return new Message.Invoke(requireStr(f, "correlationId", type), requireStr(f, "name", type),
                        map(f, "params"), f.integer("timeoutMs", 0L, Long.MIN_VALUE, Long.MAX_VALUE), context(f));
            case RESULT:
                return result(f);
            case CANCEL:
                return new Message.Cancel(requireStr(f, "correlationId", type));
            case PROCESS_END: {
                ToolContext c = context(f);
                if (c == null) {
                    throw new BadFrameException("process_end needs a field 'context'.");
                }
                return new Message.ProcessEnd(c);
            }
            default:
                throw new IllegalStateException(type);
        }
    }

    /** A field that must be an array (or absent), as a tree. */
    private static JsonNode tree(FieldReader<BadFrameException> f, String field) throws BadFrameException {
        Object v = f.raw(field);
        if (v == null) {
            return null;
        }
        if (!(v instanceof List<?>) && !(v instanceof Map<?, ?>)) {
            throw new BadFrameException("The field '" + field + "' must be an array.");
        }
        return MAPPER.valueToTree(v);
    }

    private static Set<String> stringsOf(FieldReader<BadFrameException> f, String field) throws BadFrameException {
        return stringArray(tree(f, field), field);
    }

    private static Message.Result result(FieldReader<BadFrameException> f) throws BadFrameException {
        String id = requireStr(f, "correlationId", RESULT);
        if (!(f.raw("ok") instanceof Boolean ok)) {
            throw new BadFrameException("client_tool_result needs a boolean field 'ok'.");
        }
        if (ok) {
            return new Message.Result(id, true, map(f, "result"), null, null);
        }
        Map<String, Object> err = map(f, "error");
        Object code = err.get("code");
        Object message = err.get("message");
        return new Message.Result(id, false, null, code instanceof String c ? c : "internal",
                message instanceof String m ? m : "The client reported a failure without a message.");
    }

    private static ToolContext context(FieldReader<BadFrameException> f) throws BadFrameException {
        if (!f.has("context")) {
            return null;
        }
        Map<String, Object> c = map(f, "context");
        Object processId = c.get("processId");
        Object tenant = c.get("tenant");
        Object project = c.get("project");
        if (!(processId instanceof String pid) || !(tenant instanceof String ten) || !(project instanceof String pro)) {
            throw new BadFrameException("The field 'context' needs string fields processId, tenant and project.");
        }
        Object session = c.get("sessionId");
        Object user = c.get("user");
        return new ToolContext(pid, session instanceof String s ? s : null, ten, pro, user instanceof String u ? u : null);
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



    private static Set<String> stringArray(JsonNode v, String field) throws BadFrameException {
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
            for (String l : stringArray(t.get("labels"), "labels")) {
                for (ToolLabel known : ToolLabel.values()) {
                    if (known.wire().equals(l)) {
                        labels.add(known);
                    }
                }
            }
            JsonNode schema = t.get("paramsSchema");
            // title and outputSchema came after the first peers: a spec without them gets the defaults
            JsonNode output = t.get("outputSchema");
            try {
                out.add(new ToolSpec(name, str(t, "description"), primary != null && primary.asBoolean(false), labels,
                        map(schema == null ? MAPPER.createObjectNode().put("type", "object") : schema),
                        str(t, "title"), output == null || output.isNull() ? null : map(output)));
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
     * @param message the message ({@link Message.Other} is written as its bytes)
     * @param alloc the allocator
     * @return the UTF-8 payload of a text frame
     */
    public static ByteBuf encode(Message message, ByteBufAllocator alloc) {
        ByteBuf buf = alloc.buffer(256);
        boolean done = false;
        try {
            if (message instanceof Message.Other o) {
                buf.writeBytes(o.utf8().duplicate());
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
     * Encodes a message into a new buffer of at most {@code maxBytes}: the size check before a frame
     * is sent. Encoding stops as soon as the limit is passed, so an oversized message never becomes a
     * whole frame in memory.
     *
     * @param message the message
     * @param alloc the allocator
     * @param maxBytes the largest payload allowed
     * @return the UTF-8 payload of a text frame, at most {@code maxBytes} long
     * @throws FrameTooLargeException when the payload would be longer (nothing is left allocated)
     * @throws UncheckedIOException when a value cannot be written as JSON
     */
    public static ByteBuf encode(Message message, ByteBufAllocator alloc, int maxBytes) throws FrameTooLargeException {
        if (message instanceof Message.Other o) {
            if (o.utf8().remaining() > maxBytes) {
                throw new FrameTooLargeException(message.type(), maxBytes);
            }
            return encode(message, alloc);
        }
        ByteBuf buf = alloc.buffer(Math.min(256, maxBytes));
        Bounded out = new Bounded(buf, maxBytes);
        boolean done = false;
        try {
            try (JsonGenerator g = FACTORY.createGenerator(out)) {
                write(g, message);
            }
            done = true;
            return buf;
        } catch (IOException | RuntimeException e) {
            // the flag, not the exception type: the serializer may wrap the stream's refusal
            if (out.exceeded) {
                throw new FrameTooLargeException(message.type(), maxBytes);
            }
            if (e instanceof IOException io) {
                throw new UncheckedIOException("Could not encode a " + message.type() + " frame", io);
            }
            throw (RuntimeException) e;
        } finally {
            if (!done) {
                buf.release();
            }
        }
    }

    /** Writes into a buffer and refuses, once and for good, the first write that would pass the limit. */
    private static final class Bounded extends OutputStream {
        private final ByteBuf buf;
        private final int max;
        boolean exceeded;

        Bounded(ByteBuf buf, int max) {
            this.buf = buf;
            this.max = max;
        }

        private void room(int n) throws IOException {
            if (exceeded || buf.readableBytes() + (long) n > max) {
                exceeded = true;
                throw new IOException("frame over " + max + " bytes");
            }
        }

        @Override
        public void write(int b) throws IOException {
            room(1);
            buf.writeByte(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            room(len);
            buf.writeBytes(b, off, len);
        }
    }

    /**
     * A byte count as people read it, for messages: {@code "2 MiB (2097152 bytes)"}.
     *
     * @param bytes the count
     * @return the text
     */
    public static String describeBytes(long bytes) {
        if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0) {
            return (bytes >> 20) + " MiB (" + bytes + " bytes)";
        }
        if (bytes >= 1024 && bytes % 1024 == 0) {
            return (bytes >> 10) + " KiB (" + bytes + " bytes)";
        }
        return bytes + " bytes";
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
            if (!h.limits().isEmpty()) {
                g.writeObjectField("limits", h.limits());
            }
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
                writeContext(g, i.context());
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
        } else if (message instanceof Message.ProcessEnd e) {
            writeContext(g, e.context());
        } else if (message instanceof Message.Other o) {
            throw new IllegalStateException("Other frames are written as text: " + o.type());
        }
        g.writeEndObject();
    }

    private static void writeContext(JsonGenerator g, ToolContext c) throws IOException {
        g.writeObjectFieldStart("context");
        g.writeStringField("processId", c.processId());
        g.writeStringField("sessionId", c.sessionId());
        g.writeStringField("tenant", c.tenant());
        g.writeStringField("project", c.project());
        g.writeStringField("user", c.user());
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
     * The wire form of a tool spec.
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
        m.put("title", spec.title());
        m.put("outputSchema", spec.outputSchema());
        return m;
    }
}
