package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.transfer.TransferAttrs;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.UploadRequest;

/**
 * A transfer's life end to end (init, chunks, complete, finish): a Brain and a Foot endpoint over the
 * in-memory pair and the codec.
 */
class TransferLifecycleTest {
    private TransferFixture fx;

    @BeforeEach
    void setUp() throws Exception {
        fx = new TransferFixture();
    }

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    @Test
    void downloadRoundTripWritesTheVerifiedFileOnTheFoot() throws Exception {
        byte[] data = TransferFixture.randomBytes(200_000, 1);
        Path src = fx.brainFile("reports", "q2.pdf", data);
        CompletableFuture<TransferResult> f = fx.send(src, "reports/2026-q2.pdf", null, null);
        fx.deliverAll();
        TransferResult r = TransferFixture.done(f);
        assertThat(r.ok()).isTrue();
        assertThat(r.bytesWritten()).isEqualTo(200_000);
        assertThat(r.hash()).startsWith("sha256:").hasSize(71);
        assertThat(Files.readAllBytes(fx.footProject.resolve("reports/2026-q2.pdf"))).isEqualTo(data);
        assertThat(fx.framesOf(fx.sentByBrain, TransferChunk.class)).hasSize(4);
        assertThat(fx.framesOf(fx.sentByBrain, TransferFinish.class)).containsExactly(new TransferFinish(r.transferId(), true, null));
        fx.assertClean();
    }

    @Test
    void aClientReceivesAtMostSoManyFilesAtOnceOnAConnectionAndRefusesOneMoreSizeLimit() throws Exception {
        int max = org.vancetope.worktarget.core.internal.transfer.TransferEngine.MAX_RECEIVES_PER_CONNECTION;
        String hash = "sha256:" + "0".repeat(64);
        for (int i = 0; i <= max; i++) {       // a server that starts transfers and never sends their chunks
            fx.footConn.onFrame(new org.vancetope.worktarget.core.transfer.TransferInit("t-" + i, "s", "f" + i + ".bin",
                    null, 1000, hash, null));
        }

        fx.deliverAll();

        assertThat(fx.foot.pendingReceives()).isEqualTo(max);
        assertThat(fx.framesOf(fx.sentByFoot, org.vancetope.worktarget.core.transfer.TransferInitResponse.class))
                .filteredOn(r -> !r.ok()).singleElement().satisfies(r -> {
                    assertThat(r.transferId()).isEqualTo("t-" + max);
                    assertThat(r.code()).isEqualTo(org.vancetope.worktarget.spi.ErrorCode.SIZE_LIMIT);
                    assertThat(r.error()).contains("at most " + max + " files at once");
                });
    }

    @Test
    void aDownloadWhoseFutureIsCancelledStopsAndTheReceiverKeepsNothing() throws Exception {
        byte[] data = TransferFixture.randomBytes(4_000_000, 21);     // more chunks than the channel holds at once
        Path src = fx.brainFile("reports", "cancel.bin", data);
        CompletableFuture<TransferResult> f = fx.send(src, "cancel.bin", null, null);
        fx.pair.deliverNext(fx.pair.left());        // transfer_init
        fx.pair.deliverNext(fx.pair.right());       // its response: the chunks start
        fx.pair.deliverNext(fx.pair.left());        // the first chunk is written

        f.cancel(true);                             // the tool call waiting on it was cancelled
        fx.deliverAll();

        assertThat(fx.footProject.resolve("cancel.bin")).doesNotExist();
        assertThat(fx.framesOf(fx.sentByBrain, TransferFinish.class)).singleElement()
                .satisfies(fin -> assertThat(fin.ok()).isFalse());
        fx.assertClean();
    }

    @Test
    void anUploadWhoseFutureIsCancelledStopsTheSenderAndWritesNothing() throws Exception {
        byte[] data = TransferFixture.randomBytes(4_000_000, 22);
        fx.footFile("big/cancel.bin", data);
        CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "big/cancel.bin",
                "uploads", "in/cancel.bin", null);
        fx.pair.deliverNext(fx.pair.left());        // the request
        fx.pair.deliverNext(fx.pair.right());       // transfer_init
        fx.pair.deliverNext(fx.pair.left());        // its response: the chunks start
        fx.pair.deliverNext(fx.pair.right());       // the first chunk is written

        f.cancel(true);
        fx.deliverAll();

        assertThat(fx.rootDirs.get("uploads").resolve("in/cancel.bin")).doesNotExist();
        fx.assertClean();
    }

    @Test
    void downloadWithoutSyncBeforeCommitStillWritesOnlyTheVerifiedFile() throws Exception {
        fx.close();
        fx = new TransferFixture(org.vancetope.worktarget.core.transfer.TransferSettings.builder()
                .syncBeforeCommit(false).build());
        byte[] data = TransferFixture.randomBytes(150_000, 11);
        Path src = fx.brainFile("reports", "nosync.bin", data);
        CompletableFuture<TransferResult> f = fx.send(src, "nosync.bin", null, null);
        fx.deliverAll();
        assertThat(TransferFixture.done(f).ok()).isTrue();
        assertThat(Files.readAllBytes(fx.footProject.resolve("nosync.bin"))).isEqualTo(data);
        fx.assertClean();
    }

    @Test
    void uploadRoundTripOnRequestWritesTheFileIntoTheRootDir() throws Exception {
        byte[] data = TransferFixture.randomBytes(70_000, 2);
        fx.footFile("sounds/test.wav", data);
        CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "sounds/test.wav",
                "uploads", "audio/test.wav", null);
        fx.deliverAll();
        TransferResult r = TransferFixture.done(f);
        assertThat(r.ok()).isTrue();
        assertThat(r.bytesWritten()).isEqualTo(70_000);
        assertThat(Files.readAllBytes(fx.rootDirs.get("uploads").resolve("audio/test.wav"))).isEqualTo(data);
        TransferInit init = fx.framesOf(fx.sentByFoot, TransferInit.class).get(0);
        assertThat(init.dirName()).isEqualTo("uploads");
        assertThat(init.target()).isEqualTo("audio/test.wav");
        assertThat(init.hash()).isEqualTo(r.hash());
        fx.assertClean();
    }

    @Test
    void emptyFileMovesAsOneEmptyLastChunk() throws Exception {
        Path src = fx.brainFile("reports", "empty.txt", new byte[0]);
        CompletableFuture<TransferResult> f = fx.send(src, "empty.txt", null, null);
        fx.deliverAll();
        assertThat(TransferFixture.done(f).ok()).isTrue();
        assertThat(fx.framesOf(fx.sentByBrain, TransferChunk.class)).singleElement()
                .satisfies(c -> {
                    assertThat(c.seq()).isZero();
                    assertThat(c.bytes()).isEmpty();
                    assertThat(c.last()).isTrue();
                });
        assertThat(Files.size(fx.footProject.resolve("empty.txt"))).isZero();
        fx.assertClean();
    }

    @Test
    void fileOfExactlyOneChunkSizeNeedsOneChunk() throws Exception {
        Path src = fx.brainFile("reports", "one.bin", TransferFixture.randomBytes(64 * 1024, 3));
        CompletableFuture<TransferResult> f = fx.send(src, "one.bin", null, null);
        fx.deliverAll();
        assertThat(TransferFixture.done(f).ok()).isTrue();
        assertThat(fx.framesOf(fx.sentByBrain, TransferChunk.class)).singleElement().extracting(TransferChunk::last)
                .isEqualTo(true);
        fx.assertClean();
    }

    @Test
    void successfulTransferReplacesAnExistingTarget() throws Exception {
        fx.footFile("a.txt", "old".getBytes());
        Path src = fx.brainFile("reports", "a.txt", "new content".getBytes());
        CompletableFuture<TransferResult> f = fx.send(src, "a.txt", null, null);
        fx.deliverAll();
        assertThat(TransferFixture.done(f).ok()).isTrue();
        assertThat(Files.readString(fx.footProject.resolve("a.txt"))).isEqualTo("new content");
        fx.assertClean();
    }

    @Test
    void footAppliesModeMaskedWith0755AndTheMtime() throws Exception {
        Path src = fx.brainFile("reports", "run.sh", "echo hi".getBytes());
        CompletableFuture<TransferResult> f = fx.send(src, "run.sh", null,
                new TransferAttrs("4777", "2026-05-01T14:23:11Z"));
        fx.deliverAll();
        assertThat(TransferFixture.done(f).ok()).isTrue();
        Path target = fx.footProject.resolve("run.sh");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target))).isEqualTo("rwxr-xr-x");
        assertThat(Files.getLastModifiedTime(target).toInstant()).isEqualTo(Instant.parse("2026-05-01T14:23:11Z"));
    }

    @Test
    void brainAppliesModeMaskedWith0644() throws Exception {
        fx.footFile("tool.sh", "x".getBytes());
        CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "tool.sh", "uploads",
                "tool.sh", new TransferAttrs("0777", null));
        fx.deliverAll();
        assertThat(TransferFixture.done(f).ok()).isTrue();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(fx.rootDirs.get("uploads").resolve("tool.sh"))))
                .isEqualTo("rw-r--r--");
    }

    @Test
    void downloadCarriesTheSourceFilesOwnModeAndMtimeByDefault() throws Exception {
        Path src = fx.brainFile("reports", "r.txt", "r".getBytes());
        Files.setPosixFilePermissions(src, PosixFilePermissions.fromString("rw-r-----"));
        Files.setLastModifiedTime(src, java.nio.file.attribute.FileTime.from(Instant.parse("2025-01-02T03:04:05Z")));
        fx.send(src, "r.txt", null, null);
        fx.deliverAll();
        TransferInit init = fx.framesOf(fx.sentByBrain, TransferInit.class).get(0);
        assertThat(init.attrs()).isEqualTo(new TransferAttrs("0640", "2025-01-02T03:04:05Z"));
        assertThat(Files.getLastModifiedTime(fx.footProject.resolve("r.txt")).toInstant())
                .isEqualTo(Instant.parse("2025-01-02T03:04:05Z"));
    }

    @Test
    void progressListenerSeesEveryChunkOnBothSides() throws Exception {
        Path src = fx.brainFile("reports", "p.bin", TransferFixture.randomBytes(150_000, 4));
        fx.send(src, "p.bin", null, null);
        fx.deliverAll();
        assertThat(fx.progress).contains("SENDER:65536/150000", "SENDER:131072/150000", "SENDER:150000/150000",
                "RECEIVER:0/150000", "RECEIVER:65536/150000", "RECEIVER:150000/150000");
    }

    @Test
    void uploadRequestForAMissingLocalFileIsAnsweredWithFinishOnly() throws Exception {
        CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "nope.wav", "uploads",
                "nope.wav", null);
        fx.deliverAll();
        TransferResult r = TransferFixture.done(f);
        assertThat(r.ok()).isFalse();
        assertThat(r.error()).isEqualTo(ConfinedRoot.notFound("nope.wav").getMessage());
        assertThat(fx.framesOf(fx.sentByFoot, TransferInit.class)).isEmpty();
        assertThat(fx.sentByFoot).singleElement().isInstanceOf(TransferFinish.class);
        fx.assertClean();
    }

    @Test
    void uploadRequestOutsideTheFootSandboxIsAnsweredWithFinishOnly() throws Exception {
        CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "../../../../etc/passwd",
                "uploads", "passwd", null);
        fx.deliverAll();
        assertThat(TransferFixture.done(f).error()).isEqualTo(ConfinedRoot.escape("../../../../etc/passwd").getMessage());
        fx.assertClean();
    }

    @Test
    void uploadOverTheSizeLimitIsRefusedByTheFootBeforeInit() throws Exception {
        fx.close();
        fx = new TransferFixture(org.vancetope.worktarget.core.transfer.TransferSettings.builder().maxUploadSize(10).build());
        fx.footFile("big.bin", new byte[11]);
        CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "big.bin", "uploads",
                "big.bin", null);
        fx.deliverAll();
        assertThat(TransferFixture.done(f).error()).startsWith("exceeds size limit");
        assertThat(fx.framesOf(fx.sentByFoot, TransferInit.class)).isEmpty();
        fx.assertClean();
    }

    @Test
    void receiverFailureMidStreamStopsTheSenderEarly() throws Exception {
        // A chunk size of 1 KiB and a file of 64 chunks; the Foot is fed a conflicting seq after the
        // first chunk by replaying it, so its early transfer_complete must stop the stream.
        fx.close();
        fx = new TransferFixture(org.vancetope.worktarget.core.transfer.TransferSettings.builder().chunkSize(1024)
                .maxChunksInFlight(2).build());
        Path src = fx.brainFile("reports", "long.bin", TransferFixture.randomBytes(64 * 1024, 5));
        CompletableFuture<TransferResult> f = fx.send(src, "long.bin", null, null);
        fx.pair.deliverNext(fx.pair.left());   // init
        fx.pair.deliverNext(fx.pair.right());  // init response
        fx.pair.deliverNext(fx.pair.left());   // chunk 0
        fx.pair.dropNext(fx.pair.left());      // chunk 1 lost -> chunk 2 is out of order
        fx.deliverAll();
        TransferResult r = TransferFixture.done(f);
        assertThat(r.ok()).isFalse();
        assertThat(r.error()).startsWith("chunk out of order");
        assertThat(fx.framesOf(fx.sentByBrain, TransferChunk.class).size()).isLessThan(10);
        assertThat(fx.framesOf(fx.sentByBrain, TransferFinish.class)).singleElement()
                .extracting(TransferFinish::ok).isEqualTo(false);
        assertThat(fx.footProject.resolve("long.bin")).doesNotExist();
        fx.assertClean();
    }

    @Test
    void closingTheChannelAbortsEveryTransferOnItAtOnce() throws Exception {
        Path src = fx.brainFile("reports", "c.bin", TransferFixture.randomBytes(300_000, 6));
        fx.footFile("up.bin", TransferFixture.randomBytes(10, 7));
        CompletableFuture<TransferResult> down = fx.send(src, "c.bin", null, null);
        CompletableFuture<TransferResult> up = fx.brainConn.requestUpload(TransferFixture.SCOPE, "none-yet.bin",
                "uploads", "x.bin", null);
        fx.pair.deliverNext(fx.pair.left());
        fx.pair.deliverNext(fx.pair.right());
        fx.pair.deliverNext(fx.pair.left());
        fx.pair.deliverNext(fx.pair.left());  // init, request answered?, chunk 0 — some mid-stream state
        fx.pair.close();
        assertThat(TransferFixture.done(down).error()).startsWith("connection closed");
        assertThat(TransferFixture.done(up).ok()).isFalse();
        assertThat(fx.footProject.resolve("c.bin")).doesNotExist();
        fx.assertClean();
    }

    @Test
    void framesForAnUnknownTransferAreDroppedWithoutCreatingState() throws Exception {
        fx.pair.left().send(new TransferChunk("ghost", 0, new byte[] {1}, true));
        fx.pair.left().send(new TransferFinish("ghost", true, null));
        fx.pair.right().send(new TransferComplete("ghost", true, null, 1, "ok"));
        fx.pair.right().send(new TransferInitResponse("ghost", true, null));
        fx.deliverAll();
        assertThat(fx.sentByFoot).hasSize(2);   // only what the test itself sent from the right
        fx.assertClean();
    }

    @Test
    void framesOfATransferArrivingOnAnotherChannelAreIgnored() throws Exception {
        fx.footSilent = true;
        Path src = fx.brainFile("reports", "o.bin", TransferFixture.randomBytes(10, 8));
        CompletableFuture<TransferResult> f = fx.send(src, "o.bin", null, null);
        fx.deliverAll();
        String id = fx.framesOf(fx.sentByBrain, TransferInit.class).get(0).transferId();
        var other = org.vancetope.worktarget.testkit.InMemoryFramePair.<org.vancetope.worktarget.core.transfer.TransferFrame>builder()
                .name("other").build();
        var intruder = fx.brain.attach(other.left(), TransferFixture.SCOPE);
        intruder.onFrame(new TransferInitResponse(id, false, "hijacked"));
        intruder.onFrame(new TransferComplete(id, false, "hijacked", 0, null));
        assertThat(f).isNotDone();
        fx.pair.right().send(new TransferInitResponse(id, false, "refused for real"));
        fx.deliverAll();
        assertThat(TransferFixture.done(f).error()).isEqualTo("refused for real");
        other.close();
        fx.assertClean();
    }

    @Test
    void brainRefusesATransferInitItDidNotRequest() throws Exception {
        fx.pair.right().send(new TransferInit("push", null, "evil.sh", "uploads", 1,
                "sha256:" + "0".repeat(64), null));
        fx.deliverAll();
        assertThat(fx.sentByBrain).singleElement().isInstanceOfSatisfying(TransferInitResponse.class,
                r -> assertThat(r.ok()).isFalse());
        assertThat(fx.rootDirs.get("uploads").resolve("evil.sh")).doesNotExist();
        fx.assertClean();
    }

    @Test
    void brainRefusesAnInitThatDoesNotMatchTheUploadRequest() throws Exception {
        fx.footSilent = true;
        CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "a.txt", "uploads",
                "a.txt", null);
        fx.deliverAll();
        String id = fx.framesOf(fx.sentByBrain, UploadRequest.class).get(0).transferId();
        fx.pair.right().send(new TransferInit(id, null, "../reports/a.txt", "uploads", 1, "sha256:" + "0".repeat(64), null));
        fx.deliverAll();
        assertThat(fx.framesOf(fx.sentByBrain, TransferInitResponse.class)).singleElement()
                .satisfies(r -> assertThat(r.error()).contains("does not match the upload request"));
        fx.pair.right().send(new TransferFinish(id, false, null));
        fx.deliverAll();
        assertThat(TransferFixture.done(f).ok()).isFalse();
        fx.assertClean();
    }

    @Test
    void duplicateChunkAfterVerificationIsDroppedAndTheFileKept() throws Exception {
        fx.brainSilent = true;
        byte[] data = "hello".getBytes();
        String hash = org.vancetope.worktarget.core.internal.transfer.Sha256.format(
                java.security.MessageDigest.getInstance("SHA-256").digest(data));
        fx.pair.left().send(new TransferInit("d1", null, "h.txt", null, 5, hash, null));
        fx.pair.left().send(new TransferChunk("d1", 0, data, true));
        fx.pair.left().send(new TransferChunk("d1", 0, "XXXXX".getBytes(), true));
        fx.pair.left().send(new TransferInit("d1", null, "h.txt", null, 5, hash, null));
        fx.pair.left().send(new TransferFinish("d1", true, null));
        fx.deliverAll();
        assertThat(Files.readString(fx.footProject.resolve("h.txt"))).isEqualTo("hello");
        assertThat(fx.framesOf(fx.sentByFoot, TransferComplete.class)).singleElement()
                .satisfies(c -> assertThat(c.ok()).isTrue());
        assertThat(fx.framesOf(fx.sentByFoot, TransferInitResponse.class)).hasSize(1);
        fx.assertClean();
    }
}
