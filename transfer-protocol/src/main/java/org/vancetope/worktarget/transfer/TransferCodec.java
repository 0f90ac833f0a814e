package org.vancetope.worktarget.transfer;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.ArrayList;
import java.util.List;
import org.vancetope.worktarget.core.internal.FieldReader;
import org.vancetope.worktarget.core.transfer.DirectoryEntry;
import org.vancetope.worktarget.core.transfer.DirectoryEntryResult;
import org.vancetope.worktarget.core.transfer.DirectoryManifest;
import org.vancetope.worktarget.core.transfer.DirectoryManifestResponse;
import org.vancetope.worktarget.core.transfer.DirectoryUploadRequest;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.core.transfer.TransferAttrs;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.TransferResume;
import org.vancetope.worktarget.core.transfer.TransferResumeResponse;
import org.vancetope.worktarget.core.transfer.UploadRequest;
import org.vancetope.worktarget.transfer.internal.Base64Codec;

/**
 * The JSON codec of the transfer frames: one UTF-8 JSON object per
 * frame, chunk bytes as standard base64 with padding.
 *
 * <p>Decoding: a chunk frame in the canonical form this codec writes is cut apart without a JSON
 * parser, its base64 decoded straight from the input bytes into the chunk's array, as strictly as the
 * JDK's decoder. Any other frame is parsed once into its fields, which are read with the typed field
 * reader every WorkTarget decoder shares ({@link #decode(Map)} takes fields that a connection parsed
 * already). Fields may come in any order, unknown fields are ignored. Every defect of the input is a
 * {@link FrameDecodeException}; no other exception leaves the decode methods (except for a slice
 * outside its array). A failure names the frame's {@code type} and {@code transferId} whenever they
 * are strings, wherever they stand (a receiver can then fail that transfer at once). Instances are
 * immutable and thread-safe.
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
    private static final JsonStringEncoder QUOTER = JsonStringEncoder.getInstance();
    private static final byte[] CHUNK_HEAD = ascii("{\"type\":\"transfer_chunk\",\"transferId\":\"");
    private static final byte[] SEQ = ascii("\",\"seq\":");
    private static final byte[] OFFSET = ascii(",\"offset\":");
    private static final byte[] BYTES = ascii(",\"bytes\":\"");
    private static final byte[] LAST_TRUE = ascii("\",\"last\":true}");
    private static final byte[] LAST_FALSE = ascii("\",\"last\":false}");
    private static final byte[] LAST_TRUE_OPEN = ascii("\",\"last\":true");
    private static final byte[] LAST_FALSE_OPEN = ascii("\",\"last\":false");
    private static final byte[] HASH_FIELD = ascii(",\"hash\":\"");
    private static final byte[] ZSTD_FIELDS = ascii(",\"compression\":\"zstd\",\"rawSize\":");
    private static final String BAD_BASE64 = "Field 'bytes' is not valid base64 (standard alphabet, with padding).";

    private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() { };

    private final JsonFactory factory;
    private final ObjectReader reader;

    private TransferCodec(ObjectMapper mapper) {
        this.factory = mapper.getFactory();
        this.reader = mapper.readerFor(MAP).with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    /**
     * A codec with Jackson's default stream limits.
     *
     * @return the codec
     */
    public static TransferCodec create() {
        return new TransferCodec(new ObjectMapper());
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
                + Long.toString(chunk.seq()).length()
                + (chunk.offset() == TransferChunk.NO_OFFSET ? 0 : OFFSET.length + Long.toString(chunk.offset()).length())
                + BYTES.length + Base64Codec.encodedLength(chunk.bytes().length)
                + (chunk.hash() == null && !chunk.compressed() ? (chunk.last() ? LAST_TRUE.length : LAST_FALSE.length)
                : (chunk.last() ? LAST_TRUE_OPEN.length : LAST_FALSE_OPEN.length)
                + (chunk.hash() != null ? HASH_FIELD.length + QUOTER.quoteAsUTF8(chunk.hash()).length + 1 : 0)
                + (chunk.compressed() ? ZSTD_FIELDS.length + Integer.toString(chunk.rawSize()).length() : 0) + 1);
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
                .put(Long.toString(chunk.seq()).getBytes(StandardCharsets.US_ASCII));
        if (chunk.offset() != TransferChunk.NO_OFFSET) {        // the first chunk after transfer_resume
            dst.put(OFFSET).put(Long.toString(chunk.offset()).getBytes(StandardCharsets.US_ASCII));
        }
        dst.put(BYTES);
        Base64Codec.encode(chunk.bytes(), dst);
        if (chunk.hash() == null && !chunk.compressed()) {
            dst.put(chunk.last() ? LAST_TRUE : LAST_FALSE);
            return;
        }
        dst.put(chunk.last() ? LAST_TRUE_OPEN : LAST_FALSE_OPEN);
        if (chunk.hash() != null) {
            dst.put(HASH_FIELD).put(QUOTER.quoteAsUTF8(chunk.hash())).put((byte) '"');
        }
        if (chunk.compressed()) {      // transfer.zstd: the bytes are zstd frames of rawSize bytes of the file
            dst.put(ZSTD_FIELDS).put(Integer.toString(chunk.rawSize()).getBytes(StandardCharsets.US_ASCII));
        }
        dst.put((byte) '}');
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
                optString(g, "hash", i.hash());     // absent: it comes with the last chunk (hash trailer)
                attrs(g, i.attrs());
                optString(g, "compression", i.compression());   // transfer.zstd: chunks may be compressed
            } else if (frame instanceof TransferInitResponse r) {
                g.writeBooleanField("ok", r.ok());
                g.writeStringField("error", r.error());
                optCode(g, r.code());
            } else if (frame instanceof TransferComplete c) {
                g.writeBooleanField("ok", c.ok());
                g.writeStringField("error", c.error());
                g.writeNumberField("bytesWritten", c.bytesWritten());
                g.writeStringField("hashCheck", c.hashCheck());
                optCode(g, c.code());
            } else if (frame instanceof TransferFinish f) {
                g.writeBooleanField("ok", f.ok());
                optString(g, "error", f.error());
                optCode(g, f.code());
            } else if (frame instanceof UploadRequest u) {
                g.writeStringField("localPath", u.localPath());
                g.writeStringField("dirName", u.dirName());
                g.writeStringField("remotePath", u.remotePath());
                attrs(g, u.attrs());
                if (u.resume()) {
                    g.writeBooleanField("resume", true);    // transfer.resume: take up the kept upload of this id
                }
            } else if (frame instanceof TransferResume r) {
                g.writeStringField("target", r.target());
                optString(g, "dirName", r.dirName());
                g.writeNumberField("totalSize", r.totalSize());
                optString(g, "hash", r.hash());
            } else if (frame instanceof TransferResumeResponse r) {
                g.writeBooleanField("ok", r.ok());
                g.writeNumberField("offset", r.offset());
                g.writeNumberField("nextSeq", r.nextSeq());
                g.writeStringField("error", r.error());
                optCode(g, r.code());
            } else if (frame instanceof DirectoryUploadRequest d) {
                g.writeStringField("localPath", d.localPath());
                g.writeStringField("dirName", d.dirName());
                g.writeStringField("remotePath", d.remotePath());
                g.writeBooleanField("overwrite", d.overwrite());
            } else if (frame instanceof DirectoryManifest m) {
                g.writeStringField("target", m.target());
                optString(g, "dirName", m.dirName());
                g.writeBooleanField("overwrite", m.overwrite());
                optString(g, "error", m.error());
                optCode(g, m.code());
                g.writeArrayFieldStart("entries");
                for (DirectoryEntry e : m.entries()) {
                    g.writeStartObject();
                    g.writeStringField("path", e.path());
                    g.writeStringField("type", e.kind().wire());
                    if (e.kind() == DirectoryEntry.Kind.FILE) {
                        g.writeNumberField("size", e.size());
                        optString(g, "hash", e.hash());
                    }
                    g.writeEndObject();
                }
                g.writeEndArray();
            } else if (frame instanceof DirectoryManifestResponse r) {
                g.writeBooleanField("ok", r.ok());
                optString(g, "error", r.error());
                optCode(g, r.code());
                g.writeArrayFieldStart("refused");
                for (DirectoryEntryResult e : r.refused()) {
                    g.writeStartObject();
                    g.writeStringField("path", e.path());
                    g.writeStringField("type", e.kind().wire());
                    g.writeStringField("code", e.code() == null ? ErrorCode.INTERNAL.wire() : e.code().wire());
                    optString(g, "error", e.error());
                    g.writeEndObject();
                }
                g.writeEndArray();
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

    // ---------------------------------------------------------------- binary chunks (transfer.binary)

    /** The first byte of a binary chunk frame: the frame kind. */
    public static final byte BINARY_CHUNK = 0x01;
    /** Flag bit of a binary chunk frame: the last chunk. */
    public static final int FLAG_LAST = 0x01;
    /** Flag bit of a binary chunk frame: the 32 raw bytes of the whole file's SHA-256 follow the lengths. */
    public static final int FLAG_HASH = 0x02;
    /**
     * Flag bit of a binary chunk frame ({@code transfer.zstd}): the payload is zstd frames, and the
     * decompressed size (4 bytes) follows the payload's length.
     */
    public static final int FLAG_ZSTD = 0x04;
    /**
     * Flag bit of a binary chunk frame: the chunk's byte offset in the file (8 bytes) follows the lengths
     * (after the decompressed size, if any), before the hash ({@code transfer.resume}: the first chunk after
     * a resume).
     */
    public static final int FLAG_OFFSET = 0x80;
    /**
     * The bytes of a chunk frame besides its payload that a sender leaves room for when it sizes chunks to
     * a frame limit ({@link #maxChunkBytes}): the JSON fields or binary header, the transfer id, the hash
     * trailer, the zstd fields and the offset.
     */
    public static final int CHUNK_FRAME_RESERVE = 4096;

    /**
     * The most raw bytes per chunk whose frame fits a frame limit: the payload's base64 in a JSON chunk,
     * the payload itself in a binary one ({@code transfer.binary}), beside {@link #CHUNK_FRAME_RESERVE}
     * bytes for the rest. A compressed chunk is only sent when it is smaller than its raw bytes, so it fits
     * too.
     *
     * <pre>{@code
     * int chunk = Math.min(settings.chunkSize(), TransferCodec.maxChunkBytes(65536, false));   // 46080
     * }</pre>
     *
     * @param maxFrameBytes the largest frame payload the connection carries
     * @param binary whether chunks travel as binary frames
     * @return the raw bytes, at least 1
     */
    public static int maxChunkBytes(int maxFrameBytes, boolean binary) {
        int room = maxFrameBytes - CHUNK_FRAME_RESERVE;
        return Math.max(1, binary ? room : room / 4 * 3);
    }

    /** The longest transfer id a binary chunk frame carries, in UTF-8 bytes. */
    public static final int MAX_BINARY_ID_BYTES = 1024;
    private static final int KNOWN_FLAGS = FLAG_LAST | FLAG_HASH | FLAG_ZSTD | FLAG_OFFSET;
    private static final int SHA256_BYTES = 32;
    private static final java.util.regex.Pattern SHA256_HASH = java.util.regex.Pattern.compile("sha256:[0-9a-fA-F]{64}");
    private static final String SHA256_PREFIX = "sha256:";

    /**
     * The exact length of a chunk as a binary frame ({@code transfer.binary}).
     *
     * @param chunk the chunk
     * @return bytes
     * @throws IllegalArgumentException when the id is longer than {@link #MAX_BINARY_ID_BYTES} or the
     *         hash is not {@code sha256:} and 64 hex digits
     */
    public int binaryLength(TransferChunk chunk) {
        int id = chunk.transferId().getBytes(StandardCharsets.UTF_8).length;
        if (id > MAX_BINARY_ID_BYTES) {
            throw new IllegalArgumentException("transferId longer than " + MAX_BINARY_ID_BYTES + " bytes");
        }
        return 1 + 1 + 2 + id + 8 + 4 + (chunk.compressed() ? 4 : 0) + (chunk.offset() != TransferChunk.NO_OFFSET ? 8 : 0)
                + (chunk.hash() != null ? SHA256_BYTES : 0) + chunk.bytes().length;
    }

    /**
     * Writes a chunk as a binary frame: kind {@link #BINARY_CHUNK} (1 byte), flags (1 byte:
     * {@link #FLAG_LAST}, {@link #FLAG_HASH}, {@link #FLAG_ZSTD}, {@link #FLAG_OFFSET}), the transfer id's
     * length (2 bytes) and UTF-8 bytes, {@code seq} (8 bytes), the payload's length (4 bytes), the
     * decompressed size when {@link #FLAG_ZSTD} is set (4 bytes), the offset when {@link #FLAG_OFFSET} is set
     * (8 bytes), the raw SHA-256 when {@link #FLAG_HASH} is set (32 bytes), then the payload; numbers
     * big-endian.
     *
     * @param chunk the chunk
     * @param dst where to write, from its position on; it advances by {@link #binaryLength}
     * @throws java.nio.BufferOverflowException when {@code dst} has less room than that
     */
    public void encodeBinaryChunk(TransferChunk chunk, ByteBuffer dst) {
        byte[] id = chunk.transferId().getBytes(StandardCharsets.UTF_8);
        byte[] hash = chunk.hash() == null ? null : rawHash(chunk.hash());
        boolean offset = chunk.offset() != TransferChunk.NO_OFFSET;
        dst.put(BINARY_CHUNK)
                .put((byte) ((chunk.last() ? FLAG_LAST : 0) | (hash != null ? FLAG_HASH : 0)
                        | (chunk.compressed() ? FLAG_ZSTD : 0) | (offset ? FLAG_OFFSET : 0)))
                .putShort((short) id.length).put(id)
                .putLong(chunk.seq())
                .putInt(chunk.bytes().length);
        if (chunk.compressed()) {
            dst.putInt(chunk.rawSize());
        }
        if (offset) {
            dst.putLong(chunk.offset());
        }
        if (hash != null) {
            dst.put(hash);
        }
        dst.put(chunk.bytes());
    }

    /**
     * Reads a binary chunk frame ({@link #encodeBinaryChunk}); the payload is copied out.
     *
     * @param frame the whole frame, from its position to its limit; not changed
     * @return the chunk
     * @throws FrameDecodeException with {@link FrameDecodeException.Reason#MALFORMED_BINARY} when the kind
     *         is not a chunk, a flag is unknown, a length is out of range or the frame is longer or shorter
     *         than its header says
     */
    public TransferChunk decodeBinaryChunk(ByteBuffer frame) throws FrameDecodeException {
        ByteBuffer b = frame.slice().order(java.nio.ByteOrder.BIG_ENDIAN);
        if (b.remaining() < 4) {
            throw malformed("it is shorter than a header (" + b.remaining() + " bytes)", null);
        }
        byte kind = b.get();
        if (kind != BINARY_CHUNK) {
            throw malformed("its kind is " + kind + ", and only " + BINARY_CHUNK + " (a chunk) is defined", null);
        }
        int flags = b.get() & 0xFF;
        int idLength = b.getShort() & 0xFFFF;
        if (idLength == 0 || idLength > MAX_BINARY_ID_BYTES || b.remaining() < idLength) {
            throw malformed("its transferId length " + idLength + " is 0, above " + MAX_BINARY_ID_BYTES
                    + " or beyond the frame", null);
        }
        byte[] idBytes = new byte[idLength];
        b.get(idBytes);
        String id = new String(idBytes, StandardCharsets.UTF_8);
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw malformed("it has unknown flags 0x" + Integer.toHexString(flags & ~KNOWN_FLAGS), id);
        }
        boolean hasHash = (flags & FLAG_HASH) != 0;
        boolean zstd = (flags & FLAG_ZSTD) != 0;
        boolean hasOffset = (flags & FLAG_OFFSET) != 0;
        if (b.remaining() < 12 + (zstd ? 4 : 0) + (hasOffset ? 8 : 0) + (hasHash ? SHA256_BYTES : 0)) {
            throw malformed("its header is cut short", id);
        }
        long seq = b.getLong();
        int length = b.getInt();
        if (seq < 0 || length < 0) {
            throw malformed("seq " + seq + " or payload length " + length + " is negative", id);
        }
        int rawSize = TransferChunk.RAW;
        if (zstd) {
            rawSize = b.getInt();
            if (rawSize < 0) {
                throw malformed("its decompressed size " + rawSize + " is negative", id);
            }
        }
        long offset = TransferChunk.NO_OFFSET;
        if (hasOffset) {
            offset = b.getLong();
            if (offset < 0) {
                throw malformed("its offset " + offset + " is negative", id);
            }
        }
        String hash = null;
        if (hasHash) {
            byte[] raw = new byte[SHA256_BYTES];
            b.get(raw);
            hash = SHA256_PREFIX + java.util.HexFormat.of().formatHex(raw);
        }
        if (b.remaining() != length) {
            throw malformed("its header announces " + length + " payload bytes and " + b.remaining() + " follow", id);
        }
        boolean last = (flags & FLAG_LAST) != 0;
        if (hasHash && !last) {
            throw malformed("only the last chunk may carry the hash", id);
        }
        byte[] bytes = new byte[length];
        b.get(bytes);
        return new TransferChunk(id, seq, bytes, last, hash, rawSize, offset);
    }

    private static FrameDecodeException malformed(String problem, String transferId) {
        return new FrameDecodeException(FrameDecodeException.Reason.MALFORMED_BINARY,
                "The binary transfer_chunk frame is malformed: " + problem + ".", TransferChunk.TYPE, transferId, null);
    }

    private static byte[] rawHash(String hash) {
        if (!SHA256_HASH.matcher(hash).matches()) {
            throw new IllegalArgumentException("hash must be \"sha256:\" followed by 64 hex digits, got " + hash);
        }
        return java.util.HexFormat.of().parseHex(hash, SHA256_PREFIX.length(), hash.length());
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

    /** The general path: the frame parsed into a map once, then decoded from it. */
    private TransferFrame parse(byte[] json, int offset, int length) throws FrameDecodeException {
        Map<String, Object> fields;
        try {
            fields = reader.readValue(json, offset, length);
        } catch (JsonProcessingException e) {
            throw new FrameDecodeException(FrameDecodeException.Reason.MALFORMED_JSON,
                    "Malformed JSON: " + e.getOriginalMessage(), null, null, e);
        } catch (IOException | RuntimeException e) {
            throw new FrameDecodeException(FrameDecodeException.Reason.MALFORMED_JSON, "Unreadable frame: " + e, null,
                    null, e);
        }
        if (fields == null) {
            throw new FrameDecodeException(FrameDecodeException.Reason.MALFORMED_JSON,
                    "A transfer frame must be one JSON object.", null, null, null);
        }
        return decode(fields);
    }

    /**
     * Decodes a frame that was already parsed, for example by a connection that parsed it to learn
     * its type: the fields as a JSON parser gives them (strings, numbers, booleans, maps and lists).
     * Unknown fields are ignored; a failure names the frame's type and transfer whenever they are
     * strings, whatever else is broken.
     *
     * @param fields the frame's fields
     * @return the frame
     * @throws FrameDecodeException when the fields are not a valid transfer frame
     */
    public TransferFrame decode(Map<String, ?> fields) throws FrameDecodeException {
        String type = fields.get("type") instanceof String t ? t : null;
        String transferId = fields.get("transferId") instanceof String id ? id : null;
        FieldReader<FrameDecodeException> f = new FieldReader<>(fields, new Words(type, transferId, ""));
        // every known field is checked, whatever the type, so a broken field is reported before a missing one
        f.string("type");
        f.string("transferId");
        String source = f.string("source");
        String target = f.string("target");
        String dirName = f.string("dirName");
        String hash = f.string("hash");
        String error = f.string("error");
        String hashCheck = f.string("hashCheck");
        ErrorCode code = code(f.string("code"));
        String localPath = f.string("localPath");
        String remotePath = f.string("remotePath");
        String compression = f.string("compression");
        Long rawSize = f.integer("rawSize", 0, Integer.MAX_VALUE);
        Long totalSize = f.integer("totalSize", 0, Long.MAX_VALUE);
        Long seq = f.integer("seq", 0, Long.MAX_VALUE);
        Long bytesWritten = f.integer("bytesWritten", 0, Long.MAX_VALUE);
        Long offset = f.integer("offset", 0, Long.MAX_VALUE);
        Long nextSeq = f.integer("nextSeq", 0, Long.MAX_VALUE);
        Boolean ok = f.bool("ok");
        Boolean last = f.bool("last");
        Boolean overwrite = f.bool("overwrite");
        Boolean resume = f.bool("resume");
        TransferAttrs attrs = attrs(f.object("attrs"), type, transferId);
        byte[] bytes = base64(f.string("bytes"), type, transferId);
        if (type == null) {
            throw new FrameDecodeException(FrameDecodeException.Reason.MISSING_TYPE, "The frame has no 'type' field.",
                    null, transferId, null);
        }
        switch (type) {
            case TransferInit.TYPE, TransferInitResponse.TYPE, TransferChunk.TYPE, TransferComplete.TYPE,
                    TransferFinish.TYPE, UploadRequest.TYPE, TransferResume.TYPE, TransferResumeResponse.TYPE,
                    DirectoryManifest.TYPE, DirectoryManifestResponse.TYPE, DirectoryUploadRequest.TYPE -> { }
            default -> throw new FrameDecodeException(FrameDecodeException.Reason.UNKNOWN_TYPE,
                    "Unknown frame type '" + type + "'.", type, transferId, null);
        }
        Required r = new Required(type, transferId);
        r.of(transferId, "transferId");
        if (transferId.isEmpty()) {
            throw f.refuse("transferId", "must not be empty.");
        }
        return switch (type) {
            case TransferInit.TYPE -> new TransferInit(transferId, source, r.of(target, "target"), dirName,
                    r.of(totalSize, "totalSize"), hash, attrs, compression);
            case TransferInitResponse.TYPE -> new TransferInitResponse(transferId, r.of(ok, "ok"), error, code);
            case TransferChunk.TYPE -> chunk(transferId, r.of(seq, "seq"), r.of(bytes, "bytes"), r.of(last, "last"),
                    hash, rawSize(compression, rawSize, transferId), offset == null ? TransferChunk.NO_OFFSET : offset);
            case TransferResume.TYPE -> new TransferResume(transferId, r.of(target, "target"), dirName,
                    r.of(totalSize, "totalSize"), hash);
            case TransferResumeResponse.TYPE -> new TransferResumeResponse(transferId, r.of(ok, "ok"),
                    offset == null ? 0L : offset, nextSeq == null ? 0L : nextSeq, error, code);
            case TransferComplete.TYPE -> new TransferComplete(transferId, r.of(ok, "ok"), error,
                    bytesWritten == null ? 0L : bytesWritten, hashCheck, code);
            case TransferFinish.TYPE -> new TransferFinish(transferId, r.of(ok, "ok"), error, code);
            case DirectoryUploadRequest.TYPE -> new DirectoryUploadRequest(transferId, r.of(localPath, "localPath"),
                    r.of(dirName, "dirName"), r.of(remotePath, "remotePath"), overwrite != null && overwrite);
            case DirectoryManifest.TYPE -> new DirectoryManifest(transferId, r.of(target, "target"), dirName,
                    overwrite != null && overwrite, entries(r.of(f.raw("entries"), "entries"), type, transferId), error, code);
            case DirectoryManifestResponse.TYPE -> new DirectoryManifestResponse(transferId, r.of(ok, "ok"), error,
                    refusals(f.raw("refused"), type, transferId), code);
            default -> new UploadRequest(transferId, r.of(localPath, "localPath"), r.of(dirName, "dirName"),
                    r.of(remotePath, "remotePath"), attrs, resume != null && resume);
        };
    }

    /** The {@code code} of a failure frame: null when absent, {@code internal} when not a known code. */
    private static ErrorCode code(String wire) {
        return wire == null ? null : ErrorCode.fromWire(wire).orElse(ErrorCode.INTERNAL);
    }

    /** Writes the {@code code} of a failure frame, when it has one. */
    private static void optCode(JsonGenerator g, ErrorCode code) throws IOException {
        if (code != null) {
            g.writeStringField("code", code.wire());
        }
    }

    /** A chunk's {@code rawSize}: with {@code compression: "zstd"} it is required, without it not allowed. */
    private static int rawSize(String compression, Long rawSize, String transferId) throws FrameDecodeException {
        if (compression == null) {
            if (rawSize != null) {
                throw new FrameDecodeException(FrameDecodeException.Reason.BAD_FIELD, "Field 'rawSize' is allowed only on "
                        + "a compressed chunk (compression: \"zstd\").", TransferChunk.TYPE, transferId, null);
            }
            return TransferChunk.RAW;
        }
        if (!TransferInit.ZSTD.equals(compression)) {
            throw new FrameDecodeException(FrameDecodeException.Reason.BAD_FIELD, "Field 'compression' of a chunk must be "
                    + "\"zstd\" or absent.", TransferChunk.TYPE, transferId, null);
        }
        if (rawSize == null) {
            throw new FrameDecodeException(FrameDecodeException.Reason.MISSING_FIELD, "A compressed transfer_chunk frame "
                    + "needs the field 'rawSize' (its decompressed size).", TransferChunk.TYPE, transferId, null);
        }
        return rawSize.intValue();
    }

    private static TransferChunk chunk(String transferId, long seq, byte[] bytes, boolean last, String hash,
                                       int rawSize, long offset) throws FrameDecodeException {
        if (hash != null && !last) {
            throw new FrameDecodeException(FrameDecodeException.Reason.BAD_FIELD, "Field 'hash' is allowed only on the "
                    + "last chunk (last: true).", TransferChunk.TYPE, transferId, null);
        }
        if (hash != null && !SHA256_HASH.matcher(hash).matches()) {
            throw new FrameDecodeException(FrameDecodeException.Reason.BAD_FIELD, "Field 'hash' must be \"sha256:\" "
                    + "followed by 64 hex digits.", TransferChunk.TYPE, transferId, null);
        }
        return new TransferChunk(transferId, seq, bytes, last, hash, rawSize, offset);
    }

    /** The items of a list field, each an object. */
    private static List<FieldReader<FrameDecodeException>> items(Object list, String field, String type,
                                                                 String transferId) throws FrameDecodeException {
        if (list == null) {
            return List.of();
        }
        if (!(list instanceof List<?> l)) {
            throw new FrameDecodeException(FrameDecodeException.Reason.BAD_FIELD, "Field '" + field + "' must be an "
                    + "array of objects.", type, transferId, null);
        }
        List<FieldReader<FrameDecodeException>> out = new ArrayList<>(l.size());
        for (int i = 0; i < l.size(); i++) {
            if (!(l.get(i) instanceof Map<?, ?> m)) {
                throw new FrameDecodeException(FrameDecodeException.Reason.BAD_FIELD, "Field '" + field + "[" + i
                        + "]' must be an object.", type, transferId, null);
            }
            @SuppressWarnings("unchecked")
            Map<String, ?> fields = (Map<String, ?>) m;
            out.add(new FieldReader<>(fields, new Words(type, transferId, field + "[" + i + "].")));
        }
        return out;
    }

    private static DirectoryEntry.Kind kind(FieldReader<FrameDecodeException> e, String type, String transferId)
            throws FrameDecodeException {
        String name = e.requireString("type");
        return DirectoryEntry.Kind.fromWire(name).orElseThrow(() -> e.refuse("type", "must be file, dir, link or "
                + "special, got '" + name + "'."));
    }

    private static List<DirectoryEntry> entries(Object list, String type, String transferId) throws FrameDecodeException {
        List<DirectoryEntry> out = new ArrayList<>();
        for (FieldReader<FrameDecodeException> e : items(list, "entries", type, transferId)) {
            String path = e.requireString("path");
            DirectoryEntry.Kind kind = kind(e, type, transferId);
            long size = e.integer("size", 0, 0, Long.MAX_VALUE);
            String hash = e.string("hash");
            out.add(new DirectoryEntry(path, kind, kind == DirectoryEntry.Kind.FILE ? size : 0,
                    kind == DirectoryEntry.Kind.FILE ? hash : null));
        }
        return out;
    }

    private static List<DirectoryEntryResult> refusals(Object list, String type, String transferId)
            throws FrameDecodeException {
        List<DirectoryEntryResult> out = new ArrayList<>();
        for (FieldReader<FrameDecodeException> e : items(list, "refused", type, transferId)) {
            String path = e.requireString("path");
            DirectoryEntry.Kind kind = kind(e, type, transferId);
            ErrorCode code = ErrorCode.fromWire(e.string("code")).orElse(ErrorCode.INTERNAL);
            String error = e.string("error");
            out.add(new DirectoryEntryResult(path, kind, DirectoryEntryResult.Status.FAILED, 0, null,
                    error == null ? "refused by the receiver" : error, code));
        }
        return out;
    }

    private static TransferAttrs attrs(Map<String, Object> attrs, String type, String transferId)
            throws FrameDecodeException {
        if (attrs == null) {
            return null;
        }
        FieldReader<FrameDecodeException> a = new FieldReader<>(attrs, new Words(type, transferId, "attrs."));
        return new TransferAttrs(a.string("mode"), a.string("mtime"));
    }

    private static byte[] base64(String text, String type, String transferId) throws FrameDecodeException {
        if (text == null) {
            return null;
        }
        byte[] ascii = text.getBytes(StandardCharsets.ISO_8859_1);    // any other character is not base64 anyway
        byte[] bytes = Base64Codec.decode(ByteBuffer.wrap(ascii), 0, ascii.length);
        if (bytes == null) {
            throw new FrameDecodeException(FrameDecodeException.Reason.BAD_BASE64, BAD_BASE64, type, transferId, null);
        }
        return bytes;
    }

    /** The transfer frames' words for the field reader: {@code Field 'seq' ...}, refusals are {@code BAD_FIELD}. */
    private record Words(String type, String transferId, String prefix)
            implements FieldReader.Vocabulary<FrameDecodeException> {
        @Override
        public String subject(String field) {
            return "Field '" + prefix + field + "'";
        }

        @Override
        public String missing(String field) {
            return "A " + type + " frame needs the field '" + prefix + field + "'.";
        }

        @Override
        public FrameDecodeException refusal(String field, String message) {
            return new FrameDecodeException(FrameDecodeException.Reason.BAD_FIELD, message, type, transferId, null);
        }
    }

    /** The check of a frame type's required fields. */
    private record Required(String type, String transferId) {
        <T> T of(T value, String name) throws FrameDecodeException {
            if (value == null) {
                throw new FrameDecodeException(FrameDecodeException.Reason.MISSING_FIELD,
                        "A " + type + " frame needs the field '" + name + "'.", type, transferId, null);
            }
            return value;
        }
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
