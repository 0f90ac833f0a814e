package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferInit;

/** The wire form of {@code transfer.zstd}: the init's {@code compression}, a chunk's flag and decompressed size. */
class ZstdCodecTest {
    private static final String HASH = "sha256:" + "ab".repeat(32);
    private final TransferCodec codec = TransferCodec.create();

    private static ByteBuffer binary(TransferCodec codec, TransferChunk c) {
        ByteBuffer b = ByteBuffer.allocate(codec.binaryLength(c));
        codec.encodeBinaryChunk(c, b);
        assertThat(b.hasRemaining()).isFalse();
        return b.flip();
    }

    @Test
    void theInitCarriesTheCompression() throws Exception {
        TransferInit init = new TransferInit("t1", null, "a.txt", null, 5, HASH, null, TransferInit.ZSTD);
        String json = codec.encodeToString(init);
        assertThat(json).contains("\"compression\":\"zstd\"");
        assertThat(codec.decode(json)).isEqualTo(init);
    }

    @Test
    void anInitWithoutCompressionIsTheBaseProtocolsByteForByte() {
        TransferInit init = new TransferInit("t1", null, "a.txt", null, 5, HASH, null);
        assertThat(codec.encodeToString(init)).doesNotContain("compression");
    }

    @Test
    void aCompressedChunkInJsonNamesItsCompressionAndRawSize() throws Exception {
        TransferChunk c = new TransferChunk("t1", 3, new byte[] {1, 2, 3}, false, null, 1000, TransferChunk.NO_OFFSET);
        byte[] json = codec.encode(c);
        assertThat(new String(json, StandardCharsets.UTF_8)).isEqualTo("{\"type\":\"transfer_chunk\",\"transferId\":\"t1\","
                + "\"seq\":3,\"bytes\":\"AQID\",\"last\":false,\"compression\":\"zstd\",\"rawSize\":1000}");
        assertThat(json).hasSize(codec.encodedLength(c));
        assertThat(codec.decode(json)).isEqualTo(c);
    }

    @Test
    void aCompressedLastChunkWithTheHashTrailerRoundTripsInJson() throws Exception {
        TransferChunk c = new TransferChunk("t1", 0, new byte[] {9}, true, HASH, 0, TransferChunk.NO_OFFSET);
        byte[] json = codec.encode(c);
        assertThat(json).hasSize(codec.encodedLength(c));
        assertThat(codec.decode(json)).isEqualTo(c);
        assertThat(codec.decode(ByteBuffer.wrap(json))).isEqualTo(c);
    }

    @Test
    void aRawChunkIsWrittenAsBefore() {
        TransferChunk c = new TransferChunk("t1", 0, new byte[] {1}, true, HASH);
        assertThat(new String(codec.encode(c), StandardCharsets.UTF_8)).isEqualTo("{\"type\":\"transfer_chunk\","
                + "\"transferId\":\"t1\",\"seq\":0,\"bytes\":\"AQ==\",\"last\":true,\"hash\":\"" + HASH + "\"}");
    }

    @Test
    void aCompressedBinaryChunkHasTheFlagAndTheRawSizeAfterThePayloadLength() throws Exception {
        TransferChunk c = new TransferChunk("ab", 7, new byte[] {5, 6}, true, null, 300, TransferChunk.NO_OFFSET);
        ByteBuffer b = binary(codec, c);
        assertThat(b.remaining()).isEqualTo(1 + 1 + 2 + 2 + 8 + 4 + 4 + 2);
        assertThat(b.get(0)).isEqualTo(TransferCodec.BINARY_CHUNK);
        assertThat(b.get(1)).isEqualTo((byte) (TransferCodec.FLAG_LAST | TransferCodec.FLAG_ZSTD));
        assertThat(b.getInt(1 + 1 + 2 + 2 + 8)).as("payload length").isEqualTo(2);
        assertThat(b.getInt(1 + 1 + 2 + 2 + 8 + 4)).as("decompressed size").isEqualTo(300);
        assertThat(codec.decodeBinaryChunk(b)).isEqualTo(c);
    }

    @Test
    void aCompressedBinaryChunkWithTheHashPutsTheHashAfterTheRawSize() throws Exception {
        TransferChunk c = new TransferChunk("ab", 0, new byte[] {5}, true, HASH, 1, TransferChunk.NO_OFFSET);
        ByteBuffer b = binary(codec, c);
        assertThat(b.get(1)).isEqualTo((byte) (TransferCodec.FLAG_LAST | TransferCodec.FLAG_HASH | TransferCodec.FLAG_ZSTD));
        assertThat(b.get(1 + 1 + 2 + 2 + 8 + 4 + 4)).isEqualTo((byte) 0xab);
        assertThat(codec.decodeBinaryChunk(b)).isEqualTo(c);
    }

    @Test
    void aBinaryChunkWithANegativeRawSizeIsMalformed() {
        ByteBuffer b = binary(codec, new TransferChunk("ab", 0, new byte[] {5}, false, null, 1, TransferChunk.NO_OFFSET));
        b.putInt(1 + 1 + 2 + 2 + 8 + 4, -5);
        assertThatThrownBy(() -> codec.decodeBinaryChunk(b)).isInstanceOf(FrameDecodeException.class)
                .hasMessageContaining("decompressed size -5 is negative");
    }

    @Test
    void aBinaryChunkCutInsideTheRawSizeIsMalformed() {
        ByteBuffer b = binary(codec, new TransferChunk("ab", 0, new byte[0], false, null, 1, TransferChunk.NO_OFFSET));
        ByteBuffer cut = b.limit(b.limit() - 2);
        assertThatThrownBy(() -> codec.decodeBinaryChunk(cut)).isInstanceOf(FrameDecodeException.class)
                .hasMessageContaining("cut short");
    }

    @Test
    void aJsonChunkWithRawSizeButNoCompressionIsRefused() {
        assertThatThrownBy(() -> codec.decode("{\"type\":\"transfer_chunk\",\"transferId\":\"t1\",\"seq\":0,\"bytes\":\"\","
                + "\"last\":true,\"rawSize\":3}")).isInstanceOf(FrameDecodeException.class)
                .hasMessageContaining("'rawSize' is allowed only on a compressed chunk");
    }

    @Test
    void aJsonChunkWithCompressionButNoRawSizeIsRefused() {
        assertThatThrownBy(() -> codec.decode("{\"type\":\"transfer_chunk\",\"transferId\":\"t1\",\"seq\":0,\"bytes\":\"\","
                + "\"last\":true,\"compression\":\"zstd\"}")).isInstanceOf(FrameDecodeException.class)
                .extracting(e -> ((FrameDecodeException) e).reason()).isEqualTo(FrameDecodeException.Reason.MISSING_FIELD);
    }

    @Test
    void aJsonChunkWithAnotherCompressionIsRefused() {
        assertThatThrownBy(() -> codec.decode("{\"type\":\"transfer_chunk\",\"transferId\":\"t1\",\"seq\":0,\"bytes\":\"\","
                + "\"last\":true,\"compression\":\"gzip\",\"rawSize\":0}")).isInstanceOf(FrameDecodeException.class)
                .hasMessageContaining("must be \"zstd\" or absent");
    }

    @Test
    void aJsonChunkWithANegativeRawSizeIsRefused() {
        assertThatThrownBy(() -> codec.decode("{\"type\":\"transfer_chunk\",\"transferId\":\"t1\",\"seq\":0,\"bytes\":\"\","
                + "\"last\":true,\"compression\":\"zstd\",\"rawSize\":-1}")).isInstanceOf(FrameDecodeException.class)
                .extracting(e -> ((FrameDecodeException) e).reason()).isEqualTo(FrameDecodeException.Reason.BAD_FIELD);
    }
}
