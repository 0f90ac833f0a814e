package org.vancetope.worktarget.transfer;

import com.fasterxml.jackson.core.Base64Variant;
import com.fasterxml.jackson.core.Base64Variants;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import org.vancetope.worktarget.core.transfer.TransferAttrs;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.UploadRequest;
import org.vancetope.worktarget.transfer.internal.Base64Codec;

/**
 * The JSON codec of the transfer frames: one UTF-8 JSON object per
 * frame, chunk bytes as standard base64 with padding.
 *
 * <p>Decoding is a streaming parse: fields may come in any order, unknown fields are skipped, and
 * the base64 of a chunk is decoded straight from the input bytes into the chunk's array, without an
 * intermediate {@code String}, as strictly as the JDK's decoder. Every defect of the input is a
 * {@link FrameDecodeException}; no other exception leaves the decode methods (except for a slice
 * outside its array). When a field is broken, the rest of the frame is still read for its
 * {@code type} and {@code transferId}, so that the failure names the transfer wherever the id stands
 * (a receiver can then fail that transfer at once). Instances are immutable and thread-safe.
 *
 * <pre>{@code
 * TransferCodec codec = TransferCodec.create();
 * byte[] json = codec.encode(new TransferFinish(id, true, null));
 * TransferFrame back = codec.decode(json);
 * }</pre>
 *
 * <p>It does not check protocol rules (hash format, sizes, sequence numbers): the state machines do.
 */
public final class TransferCodec {
    private static final Base64Variant BASE64 = Base64Variants.MIME_NO_LINEFEEDS;
    private static final JsonStringEncoder QUOTER = JsonStringEncoder.getInstance();
    private static final byte[] CHUNK_HEAD = ascii("{\"type\":\"transfer_chunk\",\"transferId\":\"");
    private static final byte[] SEQ = ascii("\",\"seq\":");
    private static final byte[] BYTES = ascii(",\"bytes\":\"");
    private static final byte[] LAST_TRUE = ascii("\",\"last\":true}");
    private static final byte[] LAST_FALSE = ascii("\",\"last\":false}");
    private static final String BAD_BASE64 = "Field 'bytes' is not valid base64 (standard alphabet, with padding).";

    private final JsonFactory factory;

    private TransferCodec(JsonFactory factory) {
        this.factory = factory;
    }

    /**
     * A codec with Jackson's default stream limits.
     *
     * @return the codec
     */
    public static TransferCodec create() {
        return new TransferCodec(JsonFactory.builder().build());
    }

    /**
     * Encodes a frame as UTF-8 JSON.
     *
     * @param frame the frame
     * @return the JSON bytes
     */
    public byte[] encode(TransferFrame frame) {
        if (frame instanceof TransferChunk c) {
            return encodeChunk(c);
        }
        Buffer out = new Buffer(256);
        try {
            encode(frame, out);
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory failed", e);
        }
        return out.toByteArray();
    }

    /**
     * The exact length of a chunk frame as {@link #encode} writes it, to size a buffer for
     * {@link #encodeChunk(TransferChunk, ByteBuffer)}.
     *
     * @param chunk the chunk
     * @return bytes
     */
    public int encodedLength(TransferChunk chunk) {
        return CHUNK_HEAD.length + QUOTER.quoteAsUTF8(chunk.transferId()).length + SEQ.length
                + Long.toString(chunk.seq()).length() + BYTES.length + Base64Codec.encodedLength(chunk.bytes().length)
                + (chunk.last() ? LAST_TRUE.length : LAST_FALSE.length);
    }

    /**
     * Writes a chunk frame into a buffer (for example a network buffer): the hot path, the same JSON as
     * the generator path, in canonical field order, the payload's base64 written straight into
     * {@code dst}.
     *
     * @param chunk the chunk
     * @param dst where to write, from its position on; it advances by {@link #encodedLength}
     * @throws java.nio.BufferOverflowException when {@code dst} has less room than that
     */
    public void encodeChunk(TransferChunk chunk, ByteBuffer dst) {
        dst.put(CHUNK_HEAD).put(QUOTER.quoteAsUTF8(chunk.transferId())).put(SEQ)
                .put(Long.toString(chunk.seq()).getBytes(StandardCharsets.US_ASCII)).put(BYTES);
        Base64Codec.encode(chunk.bytes(), dst);
        dst.put(chunk.last() ? LAST_TRUE : LAST_FALSE);
    }

    /** A chunk frame in one exactly sized array, the same bytes {@link #encodeChunk(TransferChunk, ByteBuffer)} writes. */
    private byte[] encodeChunk(TransferChunk c) {
        byte[] out = new byte[encodedLength(c)];
        encodeChunk(c, ByteBuffer.wrap(out));
        return out;
    }

    /**
     * Encodes a frame as a JSON string (for transports that take text).
     *
     * @param frame the frame
     * @return the JSON text
     */
    public String encodeToString(TransferFrame frame) {
        return new String(encode(frame), StandardCharsets.UTF_8);
    }

    /**
     * Encodes a frame as UTF-8 JSON into a stream (for example a Netty {@code ByteBufOutputStream}).
     *
     * @param frame the frame
     * @param out the stream; not closed
     * @throws IOException when the stream fails
     */
    public void encode(TransferFrame frame, OutputStream out) throws IOException {
        if (frame instanceof TransferChunk c) {
            out.write(encodeChunk(c));
            return;
        }
        try (JsonGenerator g = factory.createGenerator(out)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.writeStartObject();
            g.writeStringField("type", frame.type());
            g.writeStringField("transferId", frame.transferId());
            if (frame instanceof TransferInit i) {
                optString(g, "source", i.source());
                g.writeStringField("target", i.target());
                optString(g, "dirName", i.dirName());
                g.writeNumberField("totalSize", i.totalSize());
                g.writeStringField("hash", i.hash());
                attrs(g, i.attrs());
            } else if (frame instanceof TransferInitResponse r) {
                g.writeBooleanField("ok", r.ok());
                g.writeStringField("error", r.error());
            } else if (frame instanceof TransferComplete c) {
                g.writeBooleanField("ok", c.ok());
                g.writeStringField("error", c.error());
                g.writeNumberField("bytesWritten", c.bytesWritten());
                g.writeStringField("hashCheck", c.hashCheck());
            } else if (frame instanceof TransferFinish f) {
                g.writeBooleanField("ok", f.ok());
                optString(g, "error", f.error());
            } else if (frame instanceof UploadRequest u) {
                g.writeStringField("localPath", u.localPath());
                g.writeStringField("dirName", u.dirName());
                g.writeStringField("remotePath", u.remotePath());
                attrs(g, u.attrs());
            }
            g.writeEndObject();
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static void optString(JsonGenerator g, String name, String value) throws IOException {
        if (value != null) {
            g.writeStringField(name, value);
        }
    }

    private static void attrs(JsonGenerator g, TransferAttrs attrs) throws IOException {
        if (attrs == null) {
            return;
        }
        g.writeObjectFieldStart("attrs");
        optString(g, "mode", attrs.mode());
        optString(g, "mtime", attrs.mtime());
        g.writeEndObject();
    }

    /**
     * Decodes a UTF-8 JSON frame.
     *
     * @param json the bytes of exactly one JSON object
     * @return the frame
     * @throws FrameDecodeException when the bytes are not a valid transfer frame
     */
    public TransferFrame decode(byte[] json) throws FrameDecodeException {
        return decode(json, 0, json.length);
    }

    /**
     * Decodes a JSON frame given as text.
     *
     * @param json one JSON object
     * @return the frame
     * @throws FrameDecodeException when the text is not a valid transfer frame
     */
    public TransferFrame decode(String json) throws FrameDecodeException {
        byte[] b = json.getBytes(StandardCharsets.UTF_8);
        return decode(b, 0, b.length);
    }

    /**
     * Decodes a UTF-8 JSON frame from a buffer's remaining bytes; the buffer's position does not move.
     * A chunk frame in canonical form is decoded in place, from a direct buffer too; any other frame
     * of a direct buffer is copied once.
     *
     * @param json the frame's bytes
     * @return the frame
     * @throws FrameDecodeException when the bytes are not a valid transfer frame
     */
    public TransferFrame decode(ByteBuffer json) throws FrameDecodeException {
        TransferChunk canonical = canonicalChunk(json, json.position(), json.limit());
        if (canonical != null) {
            return canonical;
        }
        if (json.hasArray()) {
            return parse(json.array(), json.arrayOffset() + json.position(), json.remaining());
        }
        byte[] copy = new byte[json.remaining()];
        json.duplicate().get(copy);
        return parse(copy, 0, copy.length);
    }

    /**
     * Decodes a UTF-8 JSON frame from a slice of an array.
     *
     * @param json the array
     * @param offset where the frame starts
     * @param length the frame's length in bytes
     * @return the frame
     * @throws FrameDecodeException when the bytes are not a valid transfer frame
     * @throws IndexOutOfBoundsException when the slice is not inside the array
     */
    public TransferFrame decode(byte[] json, int offset, int length) throws FrameDecodeException {
        Objects.checkFromIndexSize(offset, length, json.length);
        TransferChunk canonical = canonicalChunk(ByteBuffer.wrap(json), offset, offset + length);
        if (canonical != null) {
            return canonical;
        }
        return parse(json, offset, length);
    }

    /** The general path: a streaming parse of any frame. */
    private TransferFrame parse(byte[] json, int offset, int length) throws FrameDecodeException {
        Fields f = new Fields();
        FrameDecodeException broken = null;
        try (JsonParser p = factory.createParser(json, offset, length)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw f.fail(FrameDecodeException.Reason.MALFORMED_JSON, "A transfer frame must be one JSON object.", null);
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                if (broken == null) {
                    try {
                        readField(p, name, v, f, json, offset, length);
                    } catch (FrameDecodeException e) {
                        if (p.currentToken() == JsonToken.START_OBJECT || p.currentToken() == JsonToken.START_ARRAY) {
                            p.skipChildren();
                        }
                        if (f.type != null && f.transferId != null || !inTopObject(p)) {
                            throw e;
                        }
                        broken = e;     // read on for the type and id, so the failure can name its transfer
                    }
                } else if ("type".equals(name) || "transferId".equals(name)) {
                    readField(p, name, v, f, json, offset, length);
                } else {
                    p.skipChildren();
                }
            }
            if (broken != null) {
                throw f.fail(broken.reason(), broken.getMessage(), broken.getCause());
            }
            if (t != JsonToken.END_OBJECT || p.nextToken() != null) {
                throw f.fail(FrameDecodeException.Reason.MALFORMED_JSON,
                        "A transfer frame must be exactly one JSON object, without trailing content.", null);
            }
        } catch (FrameDecodeException e) {
            throw broken == null ? e : f.fail(broken.reason(), broken.getMessage(), broken.getCause());
        } catch (JsonProcessingException e) {
            throw broken != null ? f.fail(broken.reason(), broken.getMessage(), broken.getCause())
                    : f.fail(FrameDecodeException.Reason.MALFORMED_JSON, "Malformed JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw broken != null ? f.fail(broken.reason(), broken.getMessage(), broken.getCause())
                    : f.fail(FrameDecodeException.Reason.MALFORMED_JSON, "Unreadable frame: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw broken != null ? f.fail(broken.reason(), broken.getMessage(), broken.getCause())
                    : f.fail(FrameDecodeException.Reason.MALFORMED_JSON, "Unreadable frame: " + e, e);
        }
        return f.build();
    }

    /** Whether the parser stands on a field of the frame's own object (not of an object inside it). */
    private static boolean inTopObject(JsonParser p) {
        com.fasterxml.jackson.core.JsonStreamContext c = p.getParsingContext();
        return c.inObject() && c.getParent() != null && c.getParent().inRoot();
    }

    /**
     * The hot path of decoding: a chunk frame in exactly the canonical form {@link #encode} writes
     * (field order, no whitespace, ASCII id without escapes) is cut apart without a JSON parser, read
     * in place from {@code b[from, to)} (absolute indices), and its payload decoded straight into the
     * chunk's array. Anything else returns null and takes the general streaming parse, so the result
     * is the same either way.
     */
    private static TransferChunk canonicalChunk(ByteBuffer b, int from, int to) {
        if (!matches(b, from, to, CHUNK_HEAD)) {
            return null;
        }
        int p = from + CHUNK_HEAD.length;
        int idStart = p;
        while (p < to && b.get(p) != '"') {
            if (b.get(p) == '\\' || b.get(p) < 0x20) {     // escapes, control and non-ASCII bytes: general path
                return null;
            }
            p++;
        }
        if (p == idStart || !matches(b, p, to, SEQ)) {
            return null;
        }
        byte[] idBytes = new byte[p - idStart];
        b.get(idStart, idBytes);
        String id = new String(idBytes, StandardCharsets.US_ASCII);
        p += SEQ.length;
        int digits = p;
        long seq = 0;
        while (p < to && b.get(p) >= '0' && b.get(p) <= '9' && p - digits < 18) {
            seq = seq * 10 + (b.get(p) - '0');
            p++;
        }
        if (p == digits || (b.get(digits) == '0' && p - digits > 1) || !matches(b, p, to, BYTES)) {
            return null;
        }
        p += BYTES.length;
        boolean last;
        int payloadEnd;
        if (to - p >= LAST_TRUE.length && matches(b, to - LAST_TRUE.length, to, LAST_TRUE)) {
            last = true;
            payloadEnd = to - LAST_TRUE.length;
        } else if (to - p >= LAST_FALSE.length && matches(b, to - LAST_FALSE.length, to, LAST_FALSE)) {
            last = false;
            payloadEnd = to - LAST_FALSE.length;
        } else {
            return null;
        }
        // A payload that is not pure base64 (bad characters, or more fields hiding a '"') is left to the
        // general parse, which reports a real base64 error precisely.
        byte[] bytes = Base64Codec.decode(b, p, payloadEnd);
        return bytes == null ? null : new TransferChunk(id, seq, bytes, last);
    }

    private static boolean matches(ByteBuffer b, int pos, int end, byte[] expected) {
        if (end - pos < expected.length) {
            return false;
        }
        for (int i = 0; i < expected.length; i++) {
            if (b.get(pos + i) != expected[i]) {
                return false;
            }
        }
        return true;
    }

    private void readField(JsonParser p, String name, JsonToken v, Fields f, byte[] json, int offset, int length)
            throws IOException, FrameDecodeException {
        switch (name) {
            case "type" -> f.type = string(p, v, name, f);
            case "transferId" -> f.transferId = string(p, v, name, f);
            case "source" -> f.source = string(p, v, name, f);
            case "target" -> f.target = string(p, v, name, f);
            case "dirName" -> f.dirName = string(p, v, name, f);
            case "hash" -> f.hash = string(p, v, name, f);
            case "error" -> f.error = string(p, v, name, f);
            case "hashCheck" -> f.hashCheck = string(p, v, name, f);
            case "localPath" -> f.localPath = string(p, v, name, f);
            case "remotePath" -> f.remotePath = string(p, v, name, f);
            case "totalSize" -> f.totalSize = count(p, v, name, f);
            case "seq" -> f.seq = count(p, v, name, f);
            case "bytesWritten" -> f.bytesWritten = count(p, v, name, f);
            case "ok" -> f.ok = bool(p, v, name, f);
            case "last" -> f.last = bool(p, v, name, f);
            case "attrs" -> f.attrs = attrs(p, v, f);
            case "bytes" -> f.bytes = base64(p, v, f, json, offset, length);
            default -> p.skipChildren();
        }
    }

    private static String string(JsonParser p, JsonToken v, String name, Fields f) throws IOException, FrameDecodeException {
        if (v == JsonToken.VALUE_NULL) {
            return null;
        }
        if (v != JsonToken.VALUE_STRING) {
            throw f.fail(FrameDecodeException.Reason.BAD_FIELD, "Field '" + name + "' must be a string.", null);
        }
        return p.getText();
    }

    private static Long count(JsonParser p, JsonToken v, String name, Fields f) throws IOException, FrameDecodeException {
        if (v == JsonToken.VALUE_NULL) {
            return null;
        }
        if (v != JsonToken.VALUE_NUMBER_INT) {
            throw f.fail(FrameDecodeException.Reason.BAD_FIELD, "Field '" + name + "' must be a whole number.", null);
        }
        long value;
        try {
            value = p.getLongValue();
        } catch (InputCoercionException e) {
            throw f.fail(FrameDecodeException.Reason.BAD_FIELD, "Field '" + name + "' is out of range.", e);
        }
        if (value < 0) {
            throw f.fail(FrameDecodeException.Reason.BAD_FIELD, "Field '" + name + "' must not be negative.", null);
        }
        return value;
    }

    private static Boolean bool(JsonParser p, JsonToken v, String name, Fields f) throws FrameDecodeException {
        if (v == JsonToken.VALUE_NULL) {
            return null;
        }
        if (v != JsonToken.VALUE_TRUE && v != JsonToken.VALUE_FALSE) {
            throw f.fail(FrameDecodeException.Reason.BAD_FIELD, "Field '" + name + "' must be true or false.", null);
        }
        return v == JsonToken.VALUE_TRUE;
    }

    private static TransferAttrs attrs(JsonParser p, JsonToken v, Fields f) throws IOException, FrameDecodeException {
        if (v == JsonToken.VALUE_NULL) {
            return null;
        }
        if (v != JsonToken.START_OBJECT) {
            throw f.fail(FrameDecodeException.Reason.BAD_FIELD, "Field 'attrs' must be an object.", null);
        }
        String mode = null;
        String mtime = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken t = p.nextToken();
            switch (name) {
                case "mode" -> mode = string(p, t, "attrs.mode", f);
                case "mtime" -> mtime = string(p, t, "attrs.mtime", f);
                default -> p.skipChildren();
            }
        }
        return new TransferAttrs(mode, mtime);
    }

    /**
     * Decodes the chunk's base64. Fast path: the token is located in the input array and handed to
     * {@link Base64Codec}, which allocates the exact result; the parser then skips the token without
     * building a {@code String}. A string with JSON escapes (legal, though no encoder writes them)
     * takes Jackson's own decoder.
     */
    private static byte[] base64(JsonParser p, JsonToken v, Fields f, byte[] json, int offset, int length)
            throws IOException, FrameDecodeException {
        if (v == JsonToken.VALUE_NULL) {
            return null;
        }
        if (v != JsonToken.VALUE_STRING) {
            throw f.fail(FrameDecodeException.Reason.BAD_FIELD, "Field 'bytes' must be a base64 string.", null);
        }
        long rel = p.currentTokenLocation().getByteOffset();
        int quote = rel < 0 ? -1 : (int) (offset + rel);
        if (quote >= offset && quote < offset + length && json[quote] == '"') {
            int end = offset + length;
            int i = quote + 1;
            while (i < end && json[i] != '"' && json[i] != '\\') {
                i++;
            }
            if (i < end && json[i] == '"') {
                byte[] bytes = Base64Codec.decode(ByteBuffer.wrap(json), quote + 1, i);
                if (bytes == null) {
                    throw f.fail(FrameDecodeException.Reason.BAD_BASE64, BAD_BASE64, null);
                }
                return bytes;
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            p.readBinaryValue(BASE64, out);
        } catch (IOException | IllegalArgumentException e) {
            throw f.fail(FrameDecodeException.Reason.BAD_BASE64, BAD_BASE64, e);
        }
        return out.toByteArray();
    }

    /** The fields read so far, and the frame they make. */
    private static final class Fields {
        String type;
        String transferId;
        String source;
        String target;
        String dirName;
        String hash;
        String error;
        String hashCheck;
        String localPath;
        String remotePath;
        Long totalSize;
        Long seq;
        Long bytesWritten;
        Boolean ok;
        Boolean last;
        TransferAttrs attrs;
        byte[] bytes;

        FrameDecodeException fail(FrameDecodeException.Reason reason, String message, Throwable cause) {
            return new FrameDecodeException(reason, message, type, transferId, cause);
        }

        private <T> T require(T value, String name) throws FrameDecodeException {
            if (value == null) {
                throw fail(FrameDecodeException.Reason.MISSING_FIELD,
                        "A " + type + " frame needs the field '" + name + "'.", null);
            }
            return value;
        }

        TransferFrame build() throws FrameDecodeException {
            if (type == null) {
                throw fail(FrameDecodeException.Reason.MISSING_TYPE, "The frame has no 'type' field.", null);
            }
            switch (type) {
                case TransferInit.TYPE, TransferInitResponse.TYPE, TransferChunk.TYPE, TransferComplete.TYPE,
                        TransferFinish.TYPE, UploadRequest.TYPE -> { }
                default -> throw fail(FrameDecodeException.Reason.UNKNOWN_TYPE,
                        "Unknown frame type '" + type + "'.", null);
            }
            require(transferId, "transferId");
            if (transferId.isEmpty()) {
                throw fail(FrameDecodeException.Reason.BAD_FIELD, "Field 'transferId' must not be empty.", null);
            }
            return switch (type) {
                case TransferInit.TYPE -> new TransferInit(transferId, source, require(target, "target"), dirName,
                        require(totalSize, "totalSize"), require(hash, "hash"), attrs);
                case TransferInitResponse.TYPE -> new TransferInitResponse(transferId, require(ok, "ok"), error);
                case TransferChunk.TYPE -> new TransferChunk(transferId, require(seq, "seq"), require(bytes, "bytes"),
                        require(last, "last"));
                case TransferComplete.TYPE -> new TransferComplete(transferId, require(ok, "ok"), error,
                        bytesWritten == null ? 0L : bytesWritten, hashCheck);
                case TransferFinish.TYPE -> new TransferFinish(transferId, require(ok, "ok"), error);
                default -> new UploadRequest(transferId, require(localPath, "localPath"), require(dirName, "dirName"),
                        require(remotePath, "remotePath"), attrs);
            };
        }
    }

    /** A growable byte sink that hands out its array without a copy when it is exactly full. */
    private static final class Buffer extends OutputStream {
        private byte[] buf;
        private int count;

        Buffer(int capacity) {
            buf = new byte[Math.max(16, capacity)];
        }

        private void ensure(int extra) {
            int need = count + extra;
            if (need > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(need, buf.length * 2));
            }
        }

        @Override
        public void write(int b) {
            ensure(1);
            buf[count++] = (byte) b;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            ensure(len);
            System.arraycopy(b, off, buf, count, len);
            count += len;
        }

        byte[] toByteArray() {
            return count == buf.length ? buf : Arrays.copyOf(buf, count);
        }
    }
}
