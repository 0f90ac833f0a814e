package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import com.google.common.jimfs.Configuration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.internal.transfer.ChunkCompression;
import org.vancetope.worktarget.core.internal.transfer.Sha256;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferSettings;

/**
 * {@code transfer.zstd} between a real sender and a real receiver, and the receiver's refusals of a
 * hostile sender's compressed chunks: every limit applies to the decompressed bytes, a decompression
 * bomb is refused by the size it declares and by the size it really has, and each refusal leaves no
 * staging file, no pending transfer, and an existing target untouched.
 */
class ZstdTransferTest {
    private static final int CHUNK = 4096;
    private static final byte[] OLD = "old content".getBytes(StandardCharsets.UTF_8);
    private static final TransferSettings SETTINGS = TransferSettings.builder().chunkSize(CHUNK).build();
    private TransferFixture fx;

    @AfterEach
    void tearDown() throws Exception {
        if (fx != null) {
            fx.close();
        }
    }

    private TransferFixture fixture(Set<TransferCapability> caps) throws Exception {
        fx = new TransferFixture(Configuration.unix(), SETTINGS, 64, false, caps);
        fx.footFile("t.bin", OLD);
        return fx;
    }

    private static String sha(byte[] data) throws Exception {
        return Sha256.format(MessageDigest.getInstance("SHA-256").digest(data));
    }

    private static byte[] text(int size) {
        StringBuilder sb = new StringBuilder();
        for (int line = 0; sb.length() < size; line++) {
            sb.append("line ").append(line).append(": the quick brown fox jumps over the lazy dog\n");
        }
        return sb.substring(0, size).getBytes(StandardCharsets.US_ASCII);
    }

    private TransferResult roundTrip(Set<TransferCapability> caps, byte[] data) throws Exception {
        fixture(caps);
        Path src = fx.brainFile("reports", "src.bin", data);
        java.util.concurrent.CompletableFuture<TransferResult> f = fx.send(src, "t.bin", null, null);
        fx.deliverAll();
        TransferResult r = TransferFixture.done(f);
        assertThat(r.ok()).as("result %s", r).isTrue();
        assertThat(Files.readAllBytes(fx.footProject.resolve("t.bin"))).isEqualTo(data);
        assertThat(r.bytesWritten()).isEqualTo(data.length);
        fx.assertClean();
        return r;
    }

    private List<TransferChunk> chunksSent() {
        return fx.framesOf(fx.sentByBrain, TransferChunk.class);
    }

    @Test
    void zstdIsUsableInTheseTests() {
        assertThat(ChunkCompression.availability()).isEqualTo(new ChunkCompression.Availability(true, null));
        assertThat(TransferSettings.defaults().capabilities()).contains(TransferCapability.ZSTD);
    }

    @Test
    void compressibleTextTravelsCompressedAndArrivesIdentical() throws Exception {
        byte[] data = text(10 * CHUNK + 123);
        roundTrip(EnumSet.of(TransferCapability.ZSTD), data);
        assertThat(fx.framesOf(fx.sentByBrain, TransferInit.class)).singleElement()
                .extracting(TransferInit::compression).isEqualTo(TransferInit.ZSTD);
        List<TransferChunk> chunks = chunksSent();
        assertThat(chunks).hasSize(11).allMatch(TransferChunk::compressed);
        long wire = chunks.stream().mapToLong(c -> c.bytes().length).sum();
        assertThat(wire).as("compressed bytes on the wire").isLessThan(data.length / 4);
        assertThat(chunks.stream().mapToLong(TransferChunk::dataLength).sum()).isEqualTo(data.length);
    }

    @Test
    void compressedChunksTravelInBinaryFramesWithTheHashTrailer() throws Exception {
        byte[] data = text(5 * CHUNK);
        TransferResult r = roundTrip(EnumSet.allOf(TransferCapability.class), data);
        assertThat(r.hash()).isEqualTo(sha(data));
        List<TransferChunk> chunks = chunksSent();
        assertThat(chunks).allMatch(TransferChunk::compressed);
        assertThat(chunks.get(chunks.size() - 1).hash()).isEqualTo(sha(data));
    }

    @Test
    void randomBytesGoRawInATransferAnnouncedWithZstd() throws Exception {
        byte[] data = TransferFixture.randomBytes(7 * CHUNK + 5, 42);
        roundTrip(EnumSet.of(TransferCapability.ZSTD, TransferCapability.BINARY), data);
        assertThat(fx.framesOf(fx.sentByBrain, TransferInit.class).get(0).compression()).isEqualTo(TransferInit.ZSTD);
        assertThat(chunksSent()).hasSize(8).noneMatch(TransferChunk::compressed);
    }

    @Test
    void afterRandomBytesTheSenderTriesAgainAndCompressesTextThatFollows() throws Exception {
        byte[] random = TransferFixture.randomBytes(30 * CHUNK, 7);
        byte[] text = text(30 * CHUNK);
        byte[] data = new byte[random.length + text.length];
        System.arraycopy(random, 0, data, 0, random.length);
        System.arraycopy(text, 0, data, random.length, text.length);
        roundTrip(EnumSet.of(TransferCapability.ZSTD, TransferCapability.BINARY), data);
        List<TransferChunk> chunks = chunksSent();
        assertThat(chunks.subList(0, 30)).noneMatch(TransferChunk::compressed);
        // given up after 4 raw chunks, it tries every 16th: chunk 19 is random too, chunk 35 is text
        assertThat(chunks.subList(36, 60)).allMatch(TransferChunk::compressed);
    }

    @Test
    void withoutTheCapabilityNothingIsCompressedOrAnnounced() throws Exception {
        roundTrip(EnumSet.of(TransferCapability.BINARY), text(3 * CHUNK));
        assertThat(fx.framesOf(fx.sentByBrain, TransferInit.class).get(0).compression()).isNull();
        assertThat(chunksSent()).noneMatch(TransferChunk::compressed);
    }

    @Test
    void anEmptyFileTravelsInAZstdTransfer() throws Exception {
        roundTrip(EnumSet.of(TransferCapability.ZSTD), new byte[0]);
        assertThat(chunksSent()).singleElement().matches(c -> !c.compressed() && c.last());
    }

    // ---------------------------------------------------------------- a hostile sender

    private void send(TransferFrame... frames) {
        for (TransferFrame f : frames) {
            fx.pair.left().send(f);
        }
        fx.deliverAll();
    }

    private TransferComplete refusedChunk(byte[] data, TransferChunk chunk) throws Exception {
        fixture(EnumSet.of(TransferCapability.ZSTD, TransferCapability.BINARY));
        fx.brainSilent = true;
        send(new TransferInit("t1", null, "t.bin", null, data.length, sha(data), null, TransferInit.ZSTD));
        assertThat(fx.framesOf(fx.sentByFoot, TransferInitResponse.class)).singleElement()
                .matches(TransferInitResponse::ok);
        send(chunk);
        List<TransferComplete> complete = fx.framesOf(fx.sentByFoot, TransferComplete.class);
        assertThat(complete).hasSize(1);
        assertThat(complete.get(0).ok()).isFalse();
        assertThat(fx.stagingFiles()).as("staging file removed at once").isEmpty();
        assertThat(Files.readAllBytes(fx.footProject.resolve("t.bin"))).isEqualTo(OLD);
        fx.advance(Duration.ofMinutes(1));
        fx.assertClean();
        return complete.get(0);
    }

    @Test
    void aBombIsRefusedByItsDeclaredSizeBeforeAnythingIsDecompressed() throws Exception {
        byte[] data = new byte[CHUNK + 1];
        byte[] packed = Zstd.compress(data, 3);
        TransferComplete c = refusedChunk(data, new TransferChunk("t1", 0, packed, true, null, CHUNK + 1, TransferChunk.NO_OFFSET));
        assertThat(c.error()).startsWith("zstd_refused: chunk 0 declares " + (CHUNK + 1)
                + " decompressed bytes, above the chunk size " + CHUNK);
    }

    @Test
    void aBombIsRefusedByItsActualSizeWhenItDeclaresLess() throws Exception {
        byte[] bomb = Zstd.compress(new byte[64 * 1024 * 1024], 19);      // 64 MiB of zeros in a few KiB
        assertThat(bomb.length).isLessThan(CHUNK);
        byte[] data = new byte[100];
        TransferComplete c = refusedChunk(data, new TransferChunk("t1", 0, bomb, true, null, 100, TransferChunk.NO_OFFSET));
        assertThat(c.error()).startsWith("zstd_refused: chunk 0 cannot be decompressed: the data decompress to more "
                + "than the 100 bytes the chunk declares");
    }

    @Test
    void dataThatDecompressToLessThanDeclaredAreRefused() throws Exception {
        byte[] data = new byte[200];
        TransferComplete c = refusedChunk(data, new TransferChunk("t1", 0, Zstd.compress(new byte[150], 3), true,
                null, 200, TransferChunk.NO_OFFSET));
        assertThat(c.error()).contains("decompress to 150 bytes and the chunk declares 200");
    }

    @Test
    void corruptZstdIsRefused() throws Exception {
        byte[] data = new byte[100];
        TransferComplete c = refusedChunk(data, new TransferChunk("t1", 0, "not zstd at all".getBytes(
                StandardCharsets.US_ASCII), true, null, 100, TransferChunk.NO_OFFSET));
        assertThat(c.error()).startsWith("zstd_refused: chunk 0 cannot be decompressed: the data are not valid zstd");
    }

    @Test
    void compressedBytesAboveTheChunkSizeAreRefused() throws Exception {
        byte[] data = new byte[CHUNK];
        TransferComplete c = refusedChunk(data, new TransferChunk("t1", 0, new byte[CHUNK + 1], true, null, CHUNK, TransferChunk.NO_OFFSET));
        assertThat(c.error()).startsWith("zstd_refused: chunk 0 carries " + (CHUNK + 1) + " compressed bytes");
    }

    @Test
    void theTotalSizeLimitAppliesToTheDecompressedBytes() throws Exception {
        byte[] data = new byte[CHUNK];       // announced: 4096 bytes; the chunk decompresses to 4096 + 4096
        fixture(EnumSet.of(TransferCapability.ZSTD));
        fx.brainSilent = true;
        send(new TransferInit("t1", null, "t.bin", null, 10, sha(data), null, TransferInit.ZSTD),
                new TransferChunk("t1", 0, Zstd.compress(data, 3), false, null, CHUNK, TransferChunk.NO_OFFSET));
        List<TransferComplete> complete = fx.framesOf(fx.sentByFoot, TransferComplete.class);
        assertThat(complete).singleElement().matches(c -> !c.ok() && c.error().startsWith("more bytes than the "
                + "announced totalSize 10"));
        fx.advance(Duration.ofMinutes(1));
        fx.assertClean();
    }

    @Test
    void aCompressedChunkOfATransferAnnouncedWithoutCompressionIsRefused() throws Exception {
        byte[] data = text(1000);
        fixture(EnumSet.of(TransferCapability.ZSTD));
        fx.brainSilent = true;
        send(new TransferInit("t1", null, "t.bin", null, data.length, sha(data), null),
                new TransferChunk("t1", 0, Zstd.compress(data, 3), true, null, data.length, TransferChunk.NO_OFFSET));
        assertThat(fx.framesOf(fx.sentByFoot, TransferComplete.class)).singleElement()
                .matches(c -> !c.ok() && c.error().equals("zstd_refused: chunk 0 is zstd-compressed, and "
                        + "transfer_init announced no compression"));
        fx.advance(Duration.ofMinutes(1));
        fx.assertClean();
        assertThat(Files.readAllBytes(fx.footProject.resolve("t.bin"))).isEqualTo(OLD);
    }

    @Test
    void anInitAnnouncingZstdIsRefusedOnAConnectionThatDidNotNegotiateIt() throws Exception {
        fixture(EnumSet.of(TransferCapability.BINARY, TransferCapability.HASH_TRAILER));
        fx.brainSilent = true;
        send(new TransferInit("t1", null, "t.bin", null, 3, sha(new byte[3]), null, TransferInit.ZSTD));
        assertThat(fx.framesOf(fx.sentByFoot, TransferInitResponse.class)).singleElement()
                .matches(r -> !r.ok() && r.error().contains("needs the capability transfer.zstd"));
        fx.advance(Duration.ofMinutes(1));
        fx.assertClean();
    }

    @Test
    void anInitAnnouncingAnUnknownCompressionIsRefused() throws Exception {
        fixture(EnumSet.of(TransferCapability.ZSTD));
        fx.brainSilent = true;
        send(new TransferInit("t1", null, "t.bin", null, 3, sha(new byte[3]), null, "gzip"));
        assertThat(fx.framesOf(fx.sentByFoot, TransferInitResponse.class)).singleElement()
                .matches(r -> !r.ok() && r.error().startsWith("transfer_init announces the compression 'gzip'"));
        fx.advance(Duration.ofMinutes(1));
        fx.assertClean();
    }

    @Test
    void theSenderCompressesWithTheConfiguredLevel() throws Exception {
        TransferSettings best = SETTINGS.toBuilder().compressionLevel(19).build();
        byte[] data = text(4 * CHUNK);
        fx = new TransferFixture(Configuration.unix(), best, 64, false, EnumSet.of(TransferCapability.ZSTD));
        Path src = fx.brainFile("reports", "src.bin", data);
        java.util.concurrent.CompletableFuture<TransferResult> f = fx.send(src, "t.bin", null, null);
        fx.deliverAll();
        assertThat(TransferFixture.done(f).ok()).isTrue();
        byte[] first = java.util.Arrays.copyOf(data, CHUNK);
        try (com.github.luben.zstd.ZstdCompressCtx level19 = new com.github.luben.zstd.ZstdCompressCtx().setLevel(19)) {
            assertThat(chunksSent().get(0).bytes()).isEqualTo(level19.compress(first));
        }
        fx.assertClean();
    }
}
