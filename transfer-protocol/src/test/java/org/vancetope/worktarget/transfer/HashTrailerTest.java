package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.ErrorCode;

/**
 * The capability {@code transfer.hash-trailer}: the sender reads its file once, announcing it without its
 * SHA-256 and sending the hash with the last chunk; the receiver verifies it before it commits the file.
 */
class HashTrailerTest {
    private static final Set<TransferCapability> TRAILER = Set.of(TransferCapability.HASH_TRAILER);
    private static final byte[] OLD = "old content".getBytes(StandardCharsets.UTF_8);
    private TransferFixture fx;

    private static TransferFixture fixture(Set<TransferCapability> caps) throws Exception {
        return new TransferFixture(Configuration.unix(), TransferSettings.builder().chunkSize(64 * 1024).build(), 16,
                false, caps);
    }

    private static String sha(byte[] data) throws Exception {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void aDownloadAnnouncesNoHashAndSendsItWithTheLastChunkOnly() throws Exception {
        fx = fixture(TRAILER);
        byte[] data = TransferFixture.randomBytes(200_000, 1);
        Path src = fx.brainFile("reports", "q2.bin", data);
        CompletableFuture<TransferResult> f = fx.send(src, "q2.bin", null, null);
        fx.deliverAll();
        TransferResult r = TransferFixture.done(f);
        assertThat(r.ok()).as(r.error()).isTrue();
        assertThat(r.hash()).isEqualTo(sha(data));
        assertThat(Files.readAllBytes(fx.footProject.resolve("q2.bin"))).isEqualTo(data);
        assertThat(fx.framesOf(fx.sentByBrain, TransferInit.class)).singleElement()
                .satisfies(i -> assertThat(i.hash()).isNull());
        List<TransferChunk> chunks = fx.framesOf(fx.sentByBrain, TransferChunk.class);
        assertThat(chunks).hasSize(4);
        assertThat(chunks.subList(0, 3)).allSatisfy(c -> assertThat(c.hash()).isNull());
        assertThat(chunks.get(3).hash()).isEqualTo(sha(data));
        fx.assertClean();
    }

    @Test
    void anUploadOnRequestArrivesVerified() throws Exception {
        fx = fixture(TRAILER);
        byte[] data = TransferFixture.randomBytes(70_000, 2);
        fx.footFile("a.bin", data);
        CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "a.bin", "uploads",
                "a.bin", null);
        fx.deliverAll();
        TransferResult r = TransferFixture.done(f);
        assertThat(r.ok()).as(r.error()).isTrue();
        assertThat(r.hash()).isEqualTo(sha(data));
        assertThat(Files.readAllBytes(fx.rootDirs.get("uploads").resolve("a.bin"))).isEqualTo(data);
        assertThat(fx.framesOf(fx.sentByFoot, TransferInit.class).get(0).hash()).isNull();
        fx.assertClean();
    }

    @Test
    void anEmptyFileSendsItsHashWithItsOnlyChunk() throws Exception {
        fx = fixture(TRAILER);
        Path src = fx.brainFile("reports", "empty.txt", new byte[0]);
        CompletableFuture<TransferResult> f = fx.send(src, "empty.txt", null, null);
        fx.deliverAll();
        assertThat(TransferFixture.done(f).ok()).isTrue();
        assertThat(fx.framesOf(fx.sentByBrain, TransferChunk.class)).singleElement()
                .satisfies(c -> assertThat(c.hash()).isEqualTo(sha(new byte[0])));
        assertThat(Files.size(fx.footProject.resolve("empty.txt"))).isZero();
        fx.assertClean();
    }

    @Test
    void withoutTheCapabilityTheInitCarriesTheHashAndNoChunkDoes() throws Exception {
        fx = fixture(Set.of());
        byte[] data = TransferFixture.randomBytes(100_000, 3);
        Path src = fx.brainFile("reports", "v1.bin", data);
        CompletableFuture<TransferResult> f = fx.send(src, "v1.bin", null, null);
        fx.deliverAll();
        assertThat(TransferFixture.done(f).ok()).isTrue();
        assertThat(fx.framesOf(fx.sentByBrain, TransferInit.class).get(0).hash()).isEqualTo(sha(data));
        assertThat(fx.framesOf(fx.sentByBrain, TransferChunk.class)).allSatisfy(c -> assertThat(c.hash()).isNull());
        fx.assertClean();
    }

    @Test
    void aReceiverWithoutTheCapabilityRefusesAnInitWithoutHashAndSaysWhy() throws Exception {
        fx = fixture(Set.of());
        fx.brainSilent = true;
        fx.pair.left().send(new TransferInit("t1", null, "x.bin", null, 3, null, null));
        fx.deliverAll();
        assertThat(fx.framesOf(fx.sentByFoot, TransferInitResponse.class)).singleElement().satisfies(r -> {
            assertThat(r.ok()).isFalse();
            assertThat(r.error()).contains("needs the hash", "transfer.hash-trailer");
        });
        assertThat(fx.footProject.resolve("x.bin")).doesNotExist();
        fx.pair.left().send(new org.vancetope.worktarget.core.transfer.TransferFinish("t1", false, null));
        fx.deliverAll();
        fx.assertClean();
    }

    @Test
    void aLastChunkWithoutTheHashFailsTheTransferAndLeavesTheOldFile() throws Exception {
        fx = fixture(TRAILER);
        fx.brainSilent = true;
        fx.footFile("t.bin", OLD);
        fx.pair.left().send(new TransferInit("t1", null, "t.bin", null, 3, null, null));
        fx.pair.left().send(new TransferChunk("t1", 0, new byte[] {1, 2, 3}, true));
        fx.deliverAll();
        assertThat(fx.framesOf(fx.sentByFoot, TransferComplete.class)).singleElement().satisfies(c -> {
            assertThat(c.ok()).isFalse();
            assertThat(c.error()).contains("carries no hash");
        });
        assertThat(Files.readAllBytes(fx.footProject.resolve("t.bin"))).isEqualTo(OLD);
        fx.pair.left().send(new org.vancetope.worktarget.core.transfer.TransferFinish("t1", false, null));
        fx.deliverAll();
        fx.assertClean();
    }

    @Test
    void aWrongTrailerHashIsAMismatchAndLeavesTheOldFile() throws Exception {
        fx = fixture(TRAILER);
        fx.brainSilent = true;
        fx.footFile("t.bin", OLD);
        fx.pair.left().send(new TransferInit("t1", null, "t.bin", null, 3, null, null));
        fx.pair.left().send(new TransferChunk("t1", 0, new byte[] {1, 2, 3}, true, sha(OLD)));
        fx.deliverAll();
        assertThat(fx.framesOf(fx.sentByFoot, TransferComplete.class)).singleElement().satisfies(c -> {
            assertThat(c.ok()).isFalse();
            assertThat(c.hashCheck()).isEqualTo(TransferComplete.HASH_MISMATCH);
        });
        assertThat(Files.readAllBytes(fx.footProject.resolve("t.bin"))).isEqualTo(OLD);
        fx.pair.left().send(new org.vancetope.worktarget.core.transfer.TransferFinish("t1", false, null));
        fx.deliverAll();
        fx.assertClean();
    }

    @Test
    void aTrailerHashThatContradictsTheAnnouncedOneIsAMismatch() throws Exception {
        fx = fixture(TRAILER);
        fx.brainSilent = true;
        byte[] data = {1, 2, 3};
        fx.pair.left().send(new TransferInit("t1", null, "t.bin", null, 3, sha(data), null));
        fx.pair.left().send(new TransferChunk("t1", 0, data, true, sha(OLD)));
        fx.deliverAll();
        assertThat(fx.framesOf(fx.sentByFoot, TransferComplete.class)).singleElement().satisfies(c -> {
            assertThat(c.ok()).isFalse();
            assertThat(c.error()).contains("differs from the one transfer_init announced");
        });
        assertThat(fx.footProject.resolve("t.bin")).doesNotExist();
        fx.pair.left().send(new org.vancetope.worktarget.core.transfer.TransferFinish("t1", false, null));
        fx.deliverAll();
        fx.assertClean();
    }

    @Test
    void aSourceThatGrowsWhileItStreamsFailsInsteadOfSendingAPrefix() throws Exception {
        fx = fixture(TRAILER);
        byte[] data = TransferFixture.randomBytes(100_000, 4);
        Path src = fx.brainFile("reports", "log.txt", data);
        CompletableFuture<TransferResult> f = fx.send(src, "log.txt", null, null);
        // announced with its size at the start; it grows before a byte of it is read
        Files.write(src, "more".getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
        fx.deliverAll();
        TransferResult r = TransferFixture.done(f);
        assertThat(r.ok()).isFalse();
        assertThat(r.error()).contains("longer than announced");
        assertThat(r.code()).isEqualTo(ErrorCode.SOURCE_CHANGED);
        assertThat(fx.footProject.resolve("log.txt")).doesNotExist();
        fx.deliverAll();
        fx.assertClean();
    }

    @Test
    void anUploadWhoseSourceGrowsFailsOnTheServerWithTheClientsReasonAndSourceChanged() throws Exception {
        fx = fixture(TRAILER);
        Path src = fx.footFile("g.bin", TransferFixture.randomBytes(100_000, 6));
        CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "g.bin", "uploads",
                "g.bin", null);
        fx.pair.deliverNext(fx.pair.left());    // the request reaches the client, which announces 100,000 bytes
        Files.write(src, "more".getBytes(StandardCharsets.UTF_8), StandardOpenOption.APPEND);
        fx.deliverAll();

        TransferResult r = TransferFixture.done(f);
        assertThat(r.ok()).isFalse();
        assertThat(r.code()).as("the client's own code, carried by transfer_finish").isEqualTo(ErrorCode.SOURCE_CHANGED);
        assertThat(r.error()).contains("longer than announced");
        assertThat(fx.framesOf(fx.sentByFoot, org.vancetope.worktarget.core.transfer.TransferFinish.class))
                .singleElement().satisfies(fin -> {
                    assertThat(fin.ok()).isFalse();
                    assertThat(fin.code()).isEqualTo(ErrorCode.SOURCE_CHANGED);
                });
        assertThat(fx.rootDirs.get("uploads").resolve("g.bin")).doesNotExist();
        assertThat(fx.stagingFiles()).isEmpty();
        fx.assertClean();
    }
}
