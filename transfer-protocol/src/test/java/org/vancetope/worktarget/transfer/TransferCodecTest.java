package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vancetope.worktarget.core.transfer.TransferAttrs;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.UploadRequest;
import org.vancetope.worktarget.spi.ErrorCode;

class TransferCodecTest {
    private final TransferCodec codec = TransferCodec.create();

    // Literal frames as the protocol writes them (comments removed, "..." ids kept as they are).
    private static final String SPEC_INIT = """
            {
              "type": "transfer_init",
              "transferId": "01J...",
              "source": "/Users/hummel/sounds/test.wav",
              "target": "soundfiles/test.wav",
              "dirName": "user-upload-2026-05-01",
              "totalSize": 12345678,
              "hash": "sha256:8f3c...",
              "attrs": {
                "mode": "0755",
                "mtime": "2026-05-01T14:23:11Z"
              }
            }""";
    private static final String SPEC_INIT_RESPONSE = """
            {
              "type": "transfer_init_response",
              "transferId": "01J...",
              "ok": true,
              "error": null
            }""";
    private static final String SPEC_CHUNK = """
            {
              "type": "transfer_chunk",
              "transferId": "01J...",
              "seq": 0,
              "bytes": "aGVsbG8gd29ybGQ=",
              "last": false
            }""";
    private static final String SPEC_COMPLETE = """
            {
              "type": "transfer_complete",
              "transferId": "01J...",
              "ok": true,
              "error": null,
              "bytesWritten": 12345678,
              "hashCheck": "ok"
            }""";
    private static final String SPEC_FINISH = """
            {
              "type": "transfer_finish",
              "transferId": "01J...",
              "ok": true
            }""";
    private static final String SPEC_UPLOAD_REQUEST = """
            {
              "type": "client.file.upload.request",
              "transferId": "01J...",
              "localPath": "/Users/hummel/sounds/test.wav",
              "dirName": "user-upload-2026-05-01",
              "remotePath": "test.wav",
              "attrs": {
                "mode": "0644",
                "mtime": "2026-05-01T14:23:11Z"
              }
            }""";

    private TransferFrame roundTrip(String json) throws FrameDecodeException {
        TransferFrame decoded = codec.decode(json);
        assertThat(codec.decode(codec.encode(decoded))).isEqualTo(decoded);
        assertThat(codec.decode(codec.encodeToString(decoded))).isEqualTo(decoded);
        return decoded;
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 65_535, 65_536, 65_537, 1_048_576})
    void chunkWrittenIntoABufferIsByteForByteTheEncodedFrame(int size) throws Exception {
        byte[] data = new byte[size];
        new Random(size).nextBytes(data);
        for (TransferChunk c : new TransferChunk[] {new TransferChunk("t-1", 0, data, false),
                new TransferChunk("id \"quoted\" \u00e9", Long.MAX_VALUE, data, true)}) {
            byte[] expected = codec.encode(c);
            assertThat(codec.encodedLength(c)).isEqualTo(expected.length);
            for (ByteBuffer dst : new ByteBuffer[] {ByteBuffer.allocate(expected.length + 5),
                    ByteBuffer.allocateDirect(expected.length + 5)}) {
                dst.position(5);
                codec.encodeChunk(c, dst);
                assertThat(dst.position()).isEqualTo(expected.length + 5);
                byte[] written = new byte[expected.length];
                dst.position(5);
                dst.get(written);
                assertThat(written).isEqualTo(expected);
                assertThat(codec.decode(written)).isEqualTo(c);
            }
        }
    }

    @Test
    void chunkIntoATooSmallBufferFailsWithOverflow() {
        TransferChunk c = new TransferChunk("t-1", 0, new byte[100], false);
        assertThatThrownBy(() -> codec.encodeChunk(c, ByteBuffer.allocate(codec.encodedLength(c) - 1)))
                .isInstanceOf(java.nio.BufferOverflowException.class);
    }

    @Test
    void framesDecodeFromDirectReadOnlyAndOffsetBuffersAlike() throws Exception {
        byte[] chunk = new byte[70_000];
        new Random(5).nextBytes(chunk);
        for (TransferFrame frame : new TransferFrame[] {new TransferChunk("t-1", 3, chunk, true), codec.decode(SPEC_INIT)}) {
            byte[] json = codec.encode(frame);
            ByteBuffer direct = ByteBuffer.allocateDirect(json.length + 10);
            direct.position(10);
            direct.put(json).position(10);
            byte[] padded = new byte[json.length + 7];
            System.arraycopy(json, 0, padded, 3, json.length);
            ByteBuffer offset = ByteBuffer.wrap(padded, 3, json.length).slice();
            assertThat(codec.decode(direct)).isEqualTo(frame);
            assertThat(direct.position()).isEqualTo(10);
            assertThat(codec.decode(offset)).isEqualTo(frame);
            assertThat(codec.decode(ByteBuffer.wrap(json).asReadOnlyBuffer())).isEqualTo(frame);
        }
    }

    @Test
    void specTransferInitDecodesAndRoundTrips() throws Exception {
        assertThat(roundTrip(SPEC_INIT)).isEqualTo(new TransferInit("01J...", "/Users/hummel/sounds/test.wav",
                "soundfiles/test.wav", "user-upload-2026-05-01", 12345678L, "sha256:8f3c...",
                new TransferAttrs("0755", "2026-05-01T14:23:11Z")));
    }

    @Test
    void specTransferInitResponseDecodesAndRoundTrips() throws Exception {
        assertThat(roundTrip(SPEC_INIT_RESPONSE)).isEqualTo(new TransferInitResponse("01J...", true, null));
    }

    @Test
    void specTransferChunkDecodesBase64AndRoundTrips() throws Exception {
        assertThat(roundTrip(SPEC_CHUNK)).isEqualTo(
                new TransferChunk("01J...", 0, "hello world".getBytes(StandardCharsets.US_ASCII), false));
    }

    @Test
    void specTransferCompleteDecodesAndRoundTrips() throws Exception {
        assertThat(roundTrip(SPEC_COMPLETE)).isEqualTo(new TransferComplete("01J...", true, null, 12345678L, "ok"));
    }

    @Test
    void specTransferFinishDecodesAndRoundTrips() throws Exception {
        assertThat(roundTrip(SPEC_FINISH)).isEqualTo(new TransferFinish("01J...", true, null));
    }

    @Test
    void specUploadRequestDecodesAndRoundTrips() throws Exception {
        assertThat(roundTrip(SPEC_UPLOAD_REQUEST)).isEqualTo(new UploadRequest("01J...",
                "/Users/hummel/sounds/test.wav", "user-upload-2026-05-01", "test.wav",
                new TransferAttrs("0644", "2026-05-01T14:23:11Z")));
    }

    @Test
    void finishWithLocalErrorRoundTrips() throws Exception {
        TransferFinish f = new TransferFinish("t1", false, "file not found: a.wav");
        assertThat(codec.decode(codec.encode(f))).isEqualTo(f);
    }

    @Test
    void initResponseIsEncodedWithExplicitNullErrorLikeTheSpec() {
        assertThat(codec.encodeToString(new TransferInitResponse("t1", true, null)))
                .isEqualTo("{\"type\":\"transfer_init_response\",\"transferId\":\"t1\",\"ok\":true,\"error\":null}");
    }

    @Test
    void chunkIsEncodedAsPaddedStandardBase64() {
        assertThat(codec.encodeToString(new TransferChunk("t1", 3, new byte[] {(byte) 0xfb, (byte) 0xff}, true)))
                .isEqualTo("{\"type\":\"transfer_chunk\",\"transferId\":\"t1\",\"seq\":3,\"bytes\":\"+/8=\",\"last\":true}");
    }

    @Test
    void initWithoutOptionalFieldsOmitsThem() throws Exception {
        TransferInit init = new TransferInit("t1", null, "a.txt", null, 0, "sha256:00", null);
        String json = codec.encodeToString(init);
        assertThat(json).doesNotContain("dirName", "source", "attrs");
        assertThat(codec.decode(json)).isEqualTo(init);
    }

    @Test
    void anInitWithoutHashLeavesTheFieldOutAndDecodesWithNone() throws Exception {
        TransferInit init = new TransferInit("t1", null, "a.txt", null, 3, null, null);
        String json = codec.encodeToString(init);
        assertThat(json).isEqualTo("{\"type\":\"transfer_init\",\"transferId\":\"t1\",\"target\":\"a.txt\","
                + "\"totalSize\":3}");
        assertThat(codec.decode(json)).isEqualTo(init);
    }

    @Test
    void aLastChunkWithTheTrailerHashRoundTripsAndIsAsLongAsAnnounced() throws Exception {
        TransferChunk c = new TransferChunk("t1", 2, new byte[] {1, 2, 3}, true, "sha256:" + "ab".repeat(32));
        byte[] json = codec.encode(c);
        assertThat(json).hasSize(codec.encodedLength(c));
        assertThat(new String(json, StandardCharsets.UTF_8)).isEqualTo("{\"type\":\"transfer_chunk\",\"transferId\":"
                + "\"t1\",\"seq\":2,\"bytes\":\"AQID\",\"last\":true,\"hash\":\"sha256:" + "ab".repeat(32) + "\"}");
        assertThat(codec.decode(json)).isEqualTo(c);
        assertThat(codec.decode(java.nio.ByteBuffer.wrap(json))).isEqualTo(c);
    }

    @Test
    void aMalformedTrailerHashOnTheLastChunkIsRefused() {
        FrameDecodeException e = decodeFails("{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"seq\":0,"
                + "\"bytes\":\"\",\"last\":true,\"hash\":\"sha256:" + "z".repeat(64) + "\"}");
        assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.BAD_FIELD);
        assertThat(e.getMessage()).contains("64 hex digits");
    }

    @Test
    void aChunkWithAMalformedHashCannotBeWrittenAsABinaryFrame() {
        TransferChunk c = new TransferChunk("t", 0, new byte[0], true, "sha256:" + "z".repeat(64));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> codec.encodeBinaryChunk(c, ByteBuffer.allocate(200)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("64 hex digits");
    }

    @Test
    void aHashOnAChunkThatIsNotTheLastIsRefused() {
        FrameDecodeException e = decodeFails("{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"seq\":0,"
                + "\"bytes\":\"\",\"last\":false,\"hash\":\"sha256:00\"}");
        assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.BAD_FIELD);
        assertThat(e.getMessage()).contains("only on the last chunk");
    }

    // ---- binary chunks (transfer.binary)

    private ByteBuffer binary(TransferChunk c) {
        ByteBuffer b = ByteBuffer.allocate(codec.binaryLength(c));
        codec.encodeBinaryChunk(c, b);
        assertThat(b.hasRemaining()).as("binaryLength is exact").isFalse();
        return b.flip();
    }

    @Test
    void aBinaryChunkRoundTripsWithItsHeader() throws Exception {
        TransferChunk c = new TransferChunk("t-1", 7, new byte[] {0, (byte) 0xff, 42}, false);
        ByteBuffer b = binary(c);
        assertThat(b.get(0)).isEqualTo(TransferCodec.BINARY_CHUNK);
        assertThat(b.get(1)).isZero();
        assertThat(b.getShort(2)).isEqualTo((short) 3);
        assertThat(b.remaining()).isEqualTo(1 + 1 + 2 + 3 + 8 + 4 + 3);
        assertThat(codec.decodeBinaryChunk(b)).isEqualTo(c);
        assertThat(b.position()).as("the frame is not consumed").isZero();
    }

    @Test
    void aLastBinaryChunkCarriesItsFlagAndTheTrailerHash() throws Exception {
        String hash = "sha256:" + "0123456789abcdef".repeat(4);
        TransferChunk c = new TransferChunk("t-1", 0, new byte[0], true, hash);
        ByteBuffer b = binary(c);
        assertThat(b.get(1)).isEqualTo((byte) (TransferCodec.FLAG_LAST | TransferCodec.FLAG_HASH));
        assertThat(codec.decodeBinaryChunk(b)).isEqualTo(c);
    }

    @Test
    void aLargeBinaryChunkRoundTripsByteForByte() throws Exception {
        byte[] data = new byte[1024 * 1024];
        new Random(9).nextBytes(data);
        TransferChunk c = new TransferChunk("t1", 42, data, false);
        assertThat(codec.decodeBinaryChunk(binary(c)).bytes()).isEqualTo(data);
    }

    private FrameDecodeException binaryFails(byte[] frame) {
        try {
            codec.decodeBinaryChunk(ByteBuffer.wrap(frame));
        } catch (FrameDecodeException e) {
            assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.MALFORMED_BINARY);
            assertThat(e.frameType()).contains("transfer_chunk");
            return e;
        }
        throw new AssertionError("decoded a malformed binary frame");
    }

    private byte[] bytesOf(TransferChunk c) {
        ByteBuffer b = binary(c);
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    @Test
    void aBinaryFrameShorterThanAHeaderIsMalformed() {
        assertThat(binaryFails(new byte[] {1, 0}).getMessage()).contains("shorter than a header");
    }

    @Test
    void aBinaryFrameOfAnotherKindIsMalformed() {
        byte[] f = bytesOf(new TransferChunk("t", 0, new byte[] {1}, true));
        f[0] = 9;
        assertThat(binaryFails(f).getMessage()).contains("kind is 9");
    }

    @Test
    void aBinaryFrameWithAnUnknownFlagIsMalformedAndNamesItsTransfer() {
        byte[] f = bytesOf(new TransferChunk("t", 0, new byte[] {1}, true));
        f[1] |= 0x40;
        FrameDecodeException e = binaryFails(f);
        assertThat(e.getMessage()).contains("unknown flags 0x40");
        assertThat(e.transferId()).contains("t");
    }

    @Test
    void aBinaryFrameWhosePayloadIsLongerOrShorterThanAnnouncedIsMalformed() {
        byte[] f = bytesOf(new TransferChunk("t", 0, new byte[] {1, 2, 3}, false));
        assertThat(binaryFails(Arrays.copyOf(f, f.length - 1)).getMessage()).contains("announces 3 payload bytes and 2");
        assertThat(binaryFails(Arrays.copyOf(f, f.length + 1)).getMessage()).contains("announces 3 payload bytes and 4");
    }

    @Test
    void aBinaryFrameWithAnEmptyOrOverlongIdIsMalformed() {
        byte[] f = bytesOf(new TransferChunk("t", 0, new byte[0], false));
        f[2] = 0;
        f[3] = 0;
        assertThat(binaryFails(f).getMessage()).contains("transferId length 0");
        byte[] g = bytesOf(new TransferChunk("t", 0, new byte[0], false));
        g[2] = (byte) 0xff;
        assertThat(binaryFails(g).getMessage()).contains("transferId length 65281");
    }

    @Test
    void aBinaryHashOnAChunkThatIsNotTheLastIsMalformed() {
        byte[] f = bytesOf(new TransferChunk("t", 0, new byte[0], true, "sha256:" + "00".repeat(32)));
        f[1] = (byte) TransferCodec.FLAG_HASH;
        assertThat(binaryFails(f).getMessage()).contains("only the last chunk may carry the hash");
    }

    @Test
    void anIdTooLongForTheBinaryHeaderIsRefusedWhenEncoding() {
        TransferChunk c = new TransferChunk("x".repeat(TransferCodec.MAX_BINARY_ID_BYTES + 1), 0, new byte[0], true);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> codec.binaryLength(c))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("longer than 1024 bytes");
    }

    @Test
    void emptyChunkOfAnEmptyFileRoundTrips() throws Exception {
        TransferChunk c = new TransferChunk("t1", 0, new byte[0], true);
        assertThat(codec.decode(codec.encode(c))).isEqualTo(c);
        assertThat(((TransferChunk) codec.decode(
                "{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"seq\":0,\"bytes\":\"\",\"last\":true}")).bytes())
                .isEmpty();
    }

    @Test
    void largeChunkRoundTripsByteForByte() throws Exception {
        byte[] data = new byte[1024 * 1024];
        new Random(7).nextBytes(data);
        TransferChunk c = new TransferChunk("t1", 42, data, false);
        TransferChunk back = (TransferChunk) codec.decode(codec.encode(c));
        assertThat(back.bytes()).isEqualTo(data);
        assertThat(back.seq()).isEqualTo(42);
    }

    @Test
    void fieldsMayComeInAnyOrderAndUnknownFieldsAreIgnored() throws Exception {
        String json = "{\"last\":true,\"extra\":{\"nested\":[1,2,{\"x\":null}]},\"bytes\":\""
                + Base64.getEncoder().encodeToString(new byte[] {1, 2, 3}) + "\",\"seq\":7,\"transferId\":\"t9\","
                + "\"type\":\"transfer_chunk\"}";
        assertThat(codec.decode(json)).isEqualTo(new TransferChunk("t9", 7, new byte[] {1, 2, 3}, true));
    }

    @Test
    void decodesFromASliceOfALargerArray() throws Exception {
        byte[] frame = codec.encode(new TransferFinish("t1", true, null));
        byte[] padded = new byte[frame.length + 10];
        System.arraycopy(frame, 0, padded, 5, frame.length);
        assertThat(codec.decode(padded, 5, frame.length)).isEqualTo(new TransferFinish("t1", true, null));
    }

    @Test
    void fieldsParsedElsewhereDecodeToTheSameFrameAsTheBytes() throws Exception {
        String json = "{\"type\":\"transfer_init\",\"transferId\":\"t1\",\"target\":\"a\",\"totalSize\":12,"
                + "\"hash\":\"sha256:00\",\"attrs\":{\"mode\":\"644\"}}";
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> fields = new com.fasterxml.jackson.databind.ObjectMapper().readValue(json,
                java.util.Map.class);
        assertThat(codec.decode(fields)).isEqualTo(codec.decode(json));
    }

    @Test
    void aChunkFromParsedFieldsDecodesItsBase64() throws Exception {
        assertThat(codec.decode(java.util.Map.of("type", "transfer_chunk", "transferId", "t1", "seq", 3,
                "bytes", "AQID", "last", false))).isEqualTo(new TransferChunk("t1", 3, new byte[] {1, 2, 3}, false));
    }

    @Test
    void aNegativeCountIsABadFieldSayingTheBound() {
        FrameDecodeException e = decodeFails("{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"seq\":-1,"
                + "\"bytes\":\"\",\"last\":true}");
        assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.BAD_FIELD);
        assertThat(e.getMessage()).isEqualTo("Field 'seq' must be at least 0, got -1.");
        assertThat(e.transferId()).contains("t");
    }

    @Test
    void aMistypedAttrFieldNamesItsPath() {
        assertThat(decodeFails("{\"type\":\"transfer_init\",\"transferId\":\"t\",\"target\":\"a\",\"totalSize\":1,"
                + "\"hash\":\"h\",\"attrs\":{\"mode\":755}}").getMessage())
                .isEqualTo("Field 'attrs.mode' must be a string, got a number.");
    }

    private FrameDecodeException decodeFails(String json) {
        return (FrameDecodeException) org.assertj.core.api.Assertions.catchThrowable(() -> codec.decode(json));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "{", "{\"type\":", "{\"type\":\"transfer_finish\",}", "not json", "[1,2]",
            "\"transfer_finish\"", "{\"type\":\"transfer_finish\",\"transferId\":\"t\",\"ok\":true}{}",
            "{\"type\":\"transfer_finish\",\"transferId\":\"t\",\"ok\":true} x"})
    void malformedJsonIsATypedDecodeError(String json) {
        FrameDecodeException e = decodeFails(json);
        assertThat(e).isNotNull();
        assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.MALFORMED_JSON);
        assertThat(e.code()).isEqualTo(ErrorCode.BAD_FRAME);
    }

    @Test
    void invalidUtf8IsATypedDecodeError() {
        byte[] bad = {'{', '"', 't', 'y', 'p', 'e', '"', ':', '"', (byte) 0xc3, (byte) 0x28, '"', '}'};
        assertThatThrownBy(() -> codec.decode(bad)).isInstanceOf(FrameDecodeException.class)
                .extracting(e -> ((FrameDecodeException) e).reason()).isEqualTo(FrameDecodeException.Reason.MALFORMED_JSON);
    }

    @Test
    void missingTypeIsReported() {
        assertThat(decodeFails("{\"transferId\":\"t\",\"ok\":true}").reason())
                .isEqualTo(FrameDecodeException.Reason.MISSING_TYPE);
    }

    @Test
    void unknownTypeIsReportedWithTheTypeAndId() {
        FrameDecodeException e = decodeFails("{\"type\":\"transfer_pause\",\"transferId\":\"t7\"}");
        assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.UNKNOWN_TYPE);
        assertThat(e.frameType()).contains("transfer_pause");
        assertThat(e.transferId()).contains("t7");
        assertThat(e.getMessage()).contains("transfer_pause");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"type\":\"transfer_finish\",\"ok\":true}",
            "{\"type\":\"transfer_finish\",\"transferId\":null,\"ok\":true}",
            "{\"type\":\"transfer_finish\",\"transferId\":\"t\"}",
            "{\"type\":\"transfer_init_response\",\"transferId\":\"t\",\"error\":null}",
            "{\"type\":\"transfer_complete\",\"transferId\":\"t\",\"bytesWritten\":3}",
            "{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"bytes\":\"\",\"last\":true}",
            "{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"seq\":0,\"last\":true}",
            "{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"seq\":0,\"bytes\":\"\"}",
            "{\"type\":\"transfer_init\",\"transferId\":\"t\",\"totalSize\":1,\"hash\":\"sha256:00\"}",
            "{\"type\":\"transfer_init\",\"transferId\":\"t\",\"target\":\"a\",\"hash\":\"sha256:00\"}",
            "{\"type\":\"client.file.upload.request\",\"transferId\":\"t\",\"dirName\":\"d\",\"remotePath\":\"r\"}",
            "{\"type\":\"client.file.upload.request\",\"transferId\":\"t\",\"localPath\":\"l\",\"remotePath\":\"r\"}",
            "{\"type\":\"client.file.upload.request\",\"transferId\":\"t\",\"localPath\":\"l\",\"dirName\":\"d\"}"})
    void missingRequiredFieldIsReported(String json) {
        FrameDecodeException e = decodeFails(json);
        assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.MISSING_FIELD);
        assertThat(e.getMessage()).contains("needs the field");
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"type\":\"transfer_finish\",\"transferId\":\"\",\"ok\":true}",
            "{\"type\":\"transfer_finish\",\"transferId\":7,\"ok\":true}",
            "{\"type\":\"transfer_finish\",\"transferId\":\"t\",\"ok\":\"yes\"}",
            "{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"seq\":-1,\"bytes\":\"\",\"last\":true}",
            "{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"seq\":1.5,\"bytes\":\"\",\"last\":true}",
            "{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"seq\":99999999999999999999999,\"bytes\":\"\",\"last\":true}",
            "{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"seq\":0,\"bytes\":[1,2],\"last\":true}",
            "{\"type\":\"transfer_init\",\"transferId\":\"t\",\"target\":\"a\",\"totalSize\":\"12\",\"hash\":\"h\"}",
            "{\"type\":\"transfer_init\",\"transferId\":\"t\",\"target\":\"a\",\"totalSize\":1,\"hash\":\"h\",\"attrs\":7}",
            "{\"type\":\"transfer_init\",\"transferId\":\"t\",\"target\":\"a\",\"totalSize\":1,\"hash\":\"h\",\"attrs\":{\"mode\":755}}",
            "{\"type\":[],\"transferId\":\"t\"}"})
    void mistypedFieldIsReported(String json) {
        assertThat(decodeFails(json).reason()).isEqualTo(FrameDecodeException.Reason.BAD_FIELD);
    }

    @ParameterizedTest
    @ValueSource(strings = {"@@@@", "aGVsbG8", "aGV=sbG8", "a", "aGVsbG8gd29ybGQ=="})
    void badBase64IsReportedWithTheTransferId(String b64) {
        FrameDecodeException e = decodeFails("{\"type\":\"transfer_chunk\",\"transferId\":\"t5\",\"seq\":0,\"bytes\":\""
                + b64 + "\",\"last\":false}");
        assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.BAD_BASE64);
        assertThat(e.transferId()).contains("t5");
    }

    @Test
    void badBase64BeforeTheTransferIdStillNamesTheTransfer() {
        FrameDecodeException e = decodeFails("{\"type\":\"transfer_chunk\",\"seq\":0,\"bytes\":\"@@@@\","
                + "\"last\":false,\"transferId\":\"t5\"}");
        assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.BAD_BASE64);
        assertThat(e.frameType()).contains("transfer_chunk");
        assertThat(e.transferId()).contains("t5");
    }

    @Test
    void aBrokenFieldBeforeTheTypeAndIdStillNamesBoth() {
        FrameDecodeException e = decodeFails("{\"seq\":\"zero\",\"bytes\":\"\",\"last\":false,"
                + "\"transferId\":\"t6\",\"type\":\"transfer_chunk\"}");
        assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.BAD_FIELD);
        assertThat(e.getMessage()).contains("seq");
        assertThat(e.frameType()).contains("transfer_chunk");
        assertThat(e.transferId()).contains("t6");
    }

    @Test
    void aBrokenStructuredFieldIsSkippedWhileTheIdIsLookedFor() {
        FrameDecodeException e = decodeFails("{\"type\":\"transfer_chunk\",\"bytes\":[\"transferId\",{\"a\":1}],"
                + "\"seq\":0,\"last\":true,\"transferId\":\"t7\"}");
        assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.BAD_FIELD);
        assertThat(e.transferId()).contains("t7");
    }

    @Test
    void aBrokenFieldInsideAnObjectDoesNotTakeAnIdFromInsideIt() {
        FrameDecodeException e = decodeFails("{\"type\":\"transfer_init\",\"attrs\":{\"mode\":755,"
                + "\"transferId\":\"inner\"},\"target\":\"a\",\"totalSize\":1,\"hash\":\"h\"}");
        assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.BAD_FIELD);
        assertThat(e.transferId()).isEmpty();
    }

    @Test
    void aBrokenFieldFollowedByMalformedJsonIsMalformedJson() {
        FrameDecodeException e = decodeFails("{\"type\":\"transfer_chunk\",\"bytes\":\"@@@@\",\"transferId\":");
        assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.MALFORMED_JSON);
        assertThat(e.transferId()).isEmpty();
    }

    @Test
    void chunkWithAnExtraFieldAfterTheBytesIsNotMistakenForCanonical() throws Exception {
        String json = "{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"seq\":1,\"bytes\":\"AQID\",\"x\":\"y\","
                + "\"last\":true}";
        assertThat(codec.decode(json)).isEqualTo(new TransferChunk("t", 1, new byte[] {1, 2, 3}, true));
    }

    @Test
    void chunkWithARepeatedLastFieldTakesTheLastValue() throws Exception {
        String json = "{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"seq\":1,\"bytes\":\"AQID\",\"last\":true,"
                + "\"last\":false}";
        assertThat(codec.decode(json)).isEqualTo(new TransferChunk("t", 1, new byte[] {1, 2, 3}, false));
    }

    @Test
    void chunkWithANonAsciiOrEscapedIdDecodesThroughTheGeneralPath() throws Exception {
        TransferChunk c = new TransferChunk("id-\u00e9-\"q\"", 3, new byte[] {9}, false);
        assertThat(codec.decode(codec.encode(c))).isEqualTo(c);
    }

    @Test
    void canonicalChunkWithBadBase64IsStillABase64Error() {
        FrameDecodeException e = decodeFails("{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"seq\":0,"
                + "\"bytes\":\"AQ*D\",\"last\":false}");
        assertThat(e.reason()).isEqualTo(FrameDecodeException.Reason.BAD_BASE64);
    }

    @Test
    void chunkWithLeadingZeroSeqIsMalformed() {
        assertThat(decodeFails("{\"type\":\"transfer_chunk\",\"transferId\":\"t\",\"seq\":01,\"bytes\":\"\","
                + "\"last\":false}").reason()).isEqualTo(FrameDecodeException.Reason.MALFORMED_JSON);
    }

    @Test
    void attrsWithOnlyOneFieldAndUnknownFieldsDecode() throws Exception {
        TransferInit init = (TransferInit) codec.decode("{\"type\":\"transfer_init\",\"transferId\":\"t\",\"target\":\"a\","
                + "\"totalSize\":1,\"hash\":\"h\",\"attrs\":{\"owner\":\"root\",\"mtime\":\"2026-05-01T14:23:11Z\"}}");
        assertThat(init.attrs()).isEqualTo(new TransferAttrs(null, "2026-05-01T14:23:11Z"));
    }
}
