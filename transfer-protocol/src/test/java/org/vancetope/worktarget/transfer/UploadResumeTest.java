package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.vancetope.worktarget.transfer.ResumeHarness.done;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferResume;
import org.vancetope.worktarget.core.transfer.TransferResumeResponse;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.UploadRequest;
import org.vancetope.worktarget.spi.ErrorCode;

/**
 * {@code transfer.resume} for uploads (client → server): the Brain is the receiver, keeps what arrived when
 * the connection is lost, and on the client's new connection asks it with
 * {@code client.file.upload.request {resume:true}}; the client answers with {@code transfer_resume} and sends
 * the rest from the Brain's offset. The same receiver and sender state machines as downloads, the same
 * checks: offset, file identity, the whole file's hash, retention, restart of the receiving process.
 */
class UploadResumeTest {
    private static final int SIZE = 1_000_000;

    /** Uploads f.bin on a first connection and cuts it once the Brain holds at least {@code cutAt} bytes. */
    private static TransferResult uploadAndCut(ResumeHarness h, long cutAt) {
        ResumeHarness.Link first = h.connect();
        CompletableFuture<TransferResult> up = first.upload("f.bin", "in/f.bin");
        first.deliverUntilBrainHas(cutAt);
        first.cut();
        return done(up);
    }

    private static Path target(ResumeHarness h) {
        return h.brainDir.resolve("in/f.bin");
    }

    private static void assertNothingLeft(ResumeHarness h) throws Exception {
        assertThat(h.brain.keptReceives()).as("brain kept receives").isZero();
        assertThat(h.brainReservedEntries()).as("no staging file or sidecar left").isEmpty();
        h.assertNothingPending();
    }

    @ParameterizedTest(name = "hash trailer {0}")
    @ValueSource(booleans = {false, true})
    void anUploadCutInTheMiddleResumesOnANewConnectionAndArrivesIdentical(boolean trailer) throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(trailer))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 1);
            h.footFile("f.bin", content);
            TransferResult cut = uploadAndCut(h, 300_000);
            assertThat(cut.ok()).isFalse();
            assertThat(cut.code()).isEqualTo(ErrorCode.OFFLINE);
            assertThat(cut.resumeId()).isEqualTo(cut.transferId());
            assertThat(h.brain.keptReceives()).isEqualTo(1);
            assertThat(h.brain.pendingReceives()).isZero();
            long kept = h.brainBytes.get();

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> resumed = second.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();

            TransferResult r = done(resumed);
            assertThat(r.ok()).as(r.toString()).isTrue();
            assertThat(r.hash()).isEqualTo(ResumeHarness.sha256(content));
            assertThat(Files.readAllBytes(target(h))).isEqualTo(content);
            UploadRequest asked = second.sentByBrain(UploadRequest.class).get(0);
            assertThat(asked.resume()).as("the Brain asks for a resume").isTrue();
            assertThat(asked.transferId()).isEqualTo(cut.resumeId());
            assertThat(second.sentByFoot(TransferInit.class)).as("no new transfer_init").isEmpty();
            assertThat(second.sentByFoot(TransferResume.class)).hasSize(1);
            TransferResumeResponse answer = second.sentByBrain(TransferResumeResponse.class).get(0);
            assertThat(answer.ok()).isTrue();
            assertThat(answer.offset()).isEqualTo(kept);
            List<TransferChunk> rest = second.sentByFoot(TransferChunk.class);
            assertThat(rest.get(0).offset()).as("the first chunk names its offset").isEqualTo(kept);
            assertThat(rest.get(0).seq()).isEqualTo(answer.nextSeq());
            assertThat(rest.stream().mapToLong(c -> c.bytes().length).sum()).as("only the rest is sent")
                    .isEqualTo(SIZE - kept);
            assertNothingLeft(h);
        }
    }

    @ParameterizedTest(name = "hash trailer {0}")
    @ValueSource(booleans = {false, true})
    void anUploadResumesAfterTheServerRestartsByRehashingTheKeptPrefix(boolean trailer) throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(trailer))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 2);
            h.footFile("f.bin", content);
            TransferResult cut = uploadAndCut(h, 400_000);
            h.restartBrain();
            assertThat(h.brain.keptReceives()).as("the new process holds nothing in memory").isZero();

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> resumed = second.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();

            TransferResult r = done(resumed);
            assertThat(r.ok()).as(r.toString()).isTrue();
            assertThat(Files.readAllBytes(target(h))).isEqualTo(content);
            assertThat(second.sentByBrain(TransferResumeResponse.class).get(0).offset()).isGreaterThan(0);
            assertNothingLeft(h);
        }
    }

    @Test
    void aResumeTakesRoomFromTheProjectForTheRestOfTheFile() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 21);
            h.footFile("f.bin", content);
            TransferResult cut = uploadAndCut(h, 300_000);
            long kept = h.brainBytes.get();
            List<Long> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
            h.brainRoom = (scope, bytes) -> {
                asked.add(bytes);
                return null;
            };

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> resumed = second.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();

            assertThat(done(resumed).ok()).isTrue();
            assertThat(asked).as("room for what was still to come").containsExactly(SIZE - kept);
            assertNothingLeft(h);
        }
    }

    @Test
    void aResumeOfAProjectWithoutRoomFailsBudgetExceededAndKeepsWhatArrivedForALaterResume() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 22);
            h.footFile("f.bin", content);
            TransferResult cut = uploadAndCut(h, 300_000);
            h.brainRoom = (scope, bytes) -> "The RootDirs of project 'proj' are over the project's disk budget.";

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> refused = second.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();

            TransferResult r = done(refused);
            assertThat(r.ok()).isFalse();
            assertThat(r.code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED);
            assertThat(r.error()).contains("disk budget", "stays kept for resumeId " + cut.resumeId());
            assertThat(second.sentByBrain(UploadRequest.class)).as("the client is not asked").isEmpty();
            assertThat(h.brain.keptReceives()).isEqualTo(1);
            assertThat(Files.exists(target(h))).isFalse();

            h.brainRoom = RootDirTargetResolver.Room.ANY;
            ResumeHarness.Link third = h.connect();
            CompletableFuture<TransferResult> resumed = third.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin");
            third.deliverAll();
            assertThat(done(resumed).ok()).isTrue();
            assertThat(Files.readAllBytes(target(h))).isEqualTo(content);
            assertNothingLeft(h);
        }
    }

    @Test
    void anUploadVerifiedBeforeTheServerDiedIsAnsweredAsCompleteWithoutAskingTheClient() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 3);
            h.footFile("f.bin", content);
            ResumeHarness.Link first = h.connect();
            CompletableFuture<TransferResult> up = first.upload("f.bin", "in/f.bin");
            first.deliverUntilBrainHas(SIZE);
            first.footSilent = true;    // the client never hears transfer_complete, so never sends transfer_finish
            first.deliverAll();
            assertThat(first.sentByBrain(TransferComplete.class)).singleElement()
                    .satisfies(c -> assertThat(c.ok()).isTrue());
            String id = first.sentByBrain(TransferComplete.class).get(0).transferId();
            h.crashBrain();             // dies before the call returned: the sidecar still says verified
            first.cut();

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> resumed = second.resumeUpload(id, "f.bin", "in/f.bin");
            second.deliverAll();

            TransferResult r = done(resumed);
            assertThat(r.ok()).as(r.toString()).isTrue();
            assertThat(r.bytesWritten()).isEqualTo(SIZE);
            assertThat(r.hash()).isEqualTo(ResumeHarness.sha256(content));
            assertThat(second.sentByBrain(UploadRequest.class)).as("nothing asked again").isEmpty();
            assertThat(Files.readAllBytes(target(h))).isEqualTo(content);
            assertThat(h.brainReservedEntries()).isEmpty();
            assertThat(up).as("the dead process's call never returned").isNotDone();
        }
    }

    @Test
    void anUploadVerifiedBeforeTheCutIsCompleteForTheCallAndLeavesNothingKept() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 4);
            h.footFile("f.bin", content);
            ResumeHarness.Link first = h.connect();
            CompletableFuture<TransferResult> up = first.upload("f.bin", "in/f.bin");
            first.deliverUntilBrainHas(SIZE);
            first.footSilent = true;    // transfer_complete is lost with the connection
            first.deliverAll();
            first.cut();

            TransferResult r = done(up);
            assertThat(r.ok()).as(r.toString()).isTrue();
            assertThat(r.resumeId()).isNull();
            assertThat(Files.readAllBytes(target(h))).isEqualTo(content);
            assertNothingLeft(h);
        }
    }

    @Test
    void aChunkWhoseOffsetIsNotTheServersIsRefusedAndNothingIsKept() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 5);
            h.footFile("f.bin", content);
            TransferResult cut = uploadAndCut(h, 200_000);
            long kept = h.brainBytes.get();

            ResumeHarness.Link second = h.connect();
            second.footSilent = true;       // the test plays the client
            CompletableFuture<TransferResult> resumed = second.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();
            assertThat(second.sentByBrain(UploadRequest.class)).singleElement()
                    .satisfies(u -> assertThat(u.resume()).isTrue());
            second.pair.right().send(new TransferResume(cut.resumeId(), "in/f.bin", ResumeHarness.UPLOAD_DIR, SIZE,
                    ResumeHarness.sha256(content)));
            second.deliverAll();
            TransferResumeResponse answer = second.sentByBrain(TransferResumeResponse.class).get(0);
            assertThat(answer.offset()).isEqualTo(kept);
            second.pair.right().send(new TransferChunk(cut.resumeId(), answer.nextSeq(), new byte[1000], false, null,
                    TransferChunk.RAW, kept + 1000));
            second.deliverAll();

            TransferComplete refusal = second.sentByBrain(TransferComplete.class).get(0);
            assertThat(refusal.ok()).isFalse();
            assertThat(refusal.error()).contains("chunk offset " + (kept + 1000), "receiver's offset " + kept);
            TransferResult r = done(resumed);
            assertThat(r.ok()).isFalse();
            assertThat(r.resumeId()).isNull();
            assertThat(Files.exists(target(h))).isFalse();
            second.pair.right().send(new TransferFinish(cut.resumeId(), false, "receiver refused"));
            second.deliverAll();
            assertNothingLeft(h);
        }
    }

    @Test
    void anUnknownResumeIdFailsTheCallWithoutAskingTheClient() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            h.footFile("f.bin", TransferFixture.randomBytes(1000, 6));
            ResumeHarness.Link link = h.connect();

            TransferResult r = done(link.resumeUpload("never-started", "f.bin", "in/f.bin"));
            link.deliverAll();

            assertThat(r.ok()).isFalse();
            assertThat(r.error()).contains("nothing is kept of transfer never-started");
            assertThat(r.code()).isEqualTo(ErrorCode.NOT_FOUND);
            assertThat(r.resumeId()).isNull();
            assertThat(link.sentByBrain(UploadRequest.class)).isEmpty();
            assertThat(Files.exists(target(h))).isFalse();
            assertNothingLeft(h);
        }
    }

    @Test
    void anUploadNotResumedWithinTheRetentionIsDeletedAndItsResumeIdFails() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            h.footFile("f.bin", TransferFixture.randomBytes(SIZE, 7));
            TransferResult cut = uploadAndCut(h, 300_000);
            assertThat(h.brainReservedEntries()).as("staging file and sidecar kept").hasSize(2);

            h.time.advance(h.settings.resumeRetention());
            assertThat(h.brain.keptReceives()).isZero();
            assertThat(h.brainReservedEntries()).as("deleted after the retention").isEmpty();

            ResumeHarness.Link second = h.connect();
            TransferResult r = done(second.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin"));
            assertThat(r.ok()).isFalse();
            assertThat(r.error()).contains("nothing is kept");
            assertThat(Files.exists(target(h))).isFalse();
            assertNothingLeft(h);
        }
    }

    @Test
    void aResumeIdOfAnotherProjectIsUnknownThereAndTheKeptUploadStaysResumableForItsOwn() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 11);
            h.footFile("f.bin", content);
            TransferResult cut = uploadAndCut(h, 300_000);

            // the same resumeId, RootDir name and path from a call of another project: as if nothing were kept
            ResumeHarness.Link second = h.connect();
            TransferResult foreign = done(second.resumeUpload(new TransferScope("acme", "other"), cut.resumeId(),
                    "f.bin", "in/f.bin"));
            assertThat(foreign.ok()).isFalse();
            assertThat(foreign.code()).isEqualTo(ErrorCode.NOT_FOUND);
            assertThat(foreign.error()).contains("nothing is kept of transfer " + cut.resumeId());
            assertThat(second.sentByBrain(UploadRequest.class)).isEmpty();
            assertThat(h.brain.keptReceives()).isEqualTo(1);

            CompletableFuture<TransferResult> own = second.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();
            assertThat(done(own).ok()).isTrue();
            assertThat(Files.readAllBytes(target(h))).isEqualTo(content);
            assertNothingLeft(h);
        }
    }

    @Test
    void aResumeIdOfAnotherFileIsRefusedAndTheKeptUploadStaysResumable() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 8);
            h.footFile("f.bin", content);
            TransferResult cut = uploadAndCut(h, 300_000);

            ResumeHarness.Link second = h.connect();
            TransferResult wrong = done(second.resumeUpload(cut.resumeId(), "f.bin", "elsewhere/f.bin"));
            assertThat(wrong.ok()).isFalse();
            assertThat(wrong.error()).contains("another file");
            assertThat(wrong.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
            assertThat(second.sentByBrain(UploadRequest.class)).isEmpty();
            assertThat(h.brain.keptReceives()).isEqualTo(1);

            CompletableFuture<TransferResult> right = second.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();
            assertThat(done(right).ok()).isTrue();
            assertThat(Files.readAllBytes(target(h))).isEqualTo(content);
            assertThat(Files.exists(h.brainDir.resolve("elsewhere"))).isFalse();
            assertNothingLeft(h);
        }
    }

    @Test
    void aSourceThatChangedSinceTheCutFailsTheResumeAndDeletesWhatWasKept() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            h.footFile("f.bin", TransferFixture.randomBytes(SIZE, 9));
            TransferResult cut = uploadAndCut(h, 300_000);
            h.footFile("f.bin", TransferFixture.randomBytes(SIZE, 10));     // same size, other bytes

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> resumed = second.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();

            TransferResult r = done(resumed);
            assertThat(r.ok()).isFalse();
            assertThat(r.error()).contains("the source changed");
            assertThat(r.code()).isEqualTo(ErrorCode.SOURCE_CHANGED);
            assertThat(Files.exists(target(h))).isFalse();
            assertNothingLeft(h);
        }
    }

    @Test
    void aClientWhoseFileIsGoneFailsTheResumeAndNothingIsKept() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            h.footFile("f.bin", TransferFixture.randomBytes(SIZE, 11));
            TransferResult cut = uploadAndCut(h, 300_000);
            Files.delete(h.footProject.resolve("f.bin"));

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> resumed = second.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();

            TransferResult r = done(resumed);
            assertThat(r.ok()).isFalse();
            assertThat(second.sentByFoot(TransferFinish.class)).singleElement()
                    .satisfies(f -> assertThat(f.ok()).isFalse());
            assertThat(Files.exists(target(h))).isFalse();
            assertNothingLeft(h);
        }
    }

    @Test
    void aDirectoryThatAppearedAtTheTargetMeanwhileIsNotClobbered() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            h.footFile("f.bin", TransferFixture.randomBytes(SIZE, 12));
            TransferResult cut = uploadAndCut(h, 300_000);
            Path inTheWay = Files.createDirectories(target(h));
            Files.write(inTheWay.resolve("keep.txt"), new byte[] {1, 2, 3});

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> resumed = second.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();

            TransferResult r = done(resumed);
            assertThat(r.ok()).as(r.toString()).isFalse();
            assertThat(Files.isDirectory(inTheWay)).isTrue();
            assertThat(Files.readAllBytes(inTheWay.resolve("keep.txt"))).containsExactly(1, 2, 3);
            assertNothingLeft(h);
        }
    }

    @Test
    void aClientThatDoesNotAnswerTheResumeRequestFailsTheCallOnTheInitTimeoutAndNothingIsKept() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            h.footFile("f.bin", TransferFixture.randomBytes(SIZE, 15));
            TransferResult cut = uploadAndCut(h, 300_000);

            ResumeHarness.Link second = h.connect();
            second.footSilent = true;       // the request reaches a client that never answers
            CompletableFuture<TransferResult> resumed = second.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();
            assertThat(resumed).isNotDone();
            h.time.advance(h.settings.phaseTimeout());

            TransferResult r = done(resumed);
            assertThat(r.ok()).isFalse();
            assertThat(r.code()).isEqualTo(ErrorCode.TIMEOUT);
            assertThat(r.error()).contains("did not answer the resume request");
            assertThat(Files.exists(target(h))).isFalse();
            assertNothingLeft(h);
        }
    }

    @Test
    void aConnectionLostBeforeTheClientAnswersKeepsTheUploadForTheNextOne() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(true))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 16);
            h.footFile("f.bin", content);
            TransferResult cut = uploadAndCut(h, 300_000);

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> asked = second.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin");
            second.cut();                   // before the request reached the client
            TransferResult again = done(asked);
            assertThat(again.code()).isEqualTo(ErrorCode.OFFLINE);
            assertThat(again.resumeId()).isEqualTo(cut.resumeId());
            assertThat(h.brain.keptReceives()).isEqualTo(1);
            assertThat(h.brainReservedEntries()).hasSize(2);

            ResumeHarness.Link third = h.connect();
            CompletableFuture<TransferResult> resumed = third.resumeUpload(cut.resumeId(), "f.bin", "in/f.bin");
            third.deliverAll();
            TransferResult r = done(resumed);
            assertThat(r.ok()).as(r.toString()).isTrue();
            assertThat(Files.readAllBytes(target(h))).isEqualTo(content);
            assertNothingLeft(h);
        }
    }

    @Test
    void theServerRefusesATransferResumeItDidNotAskFor() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            h.footFile("f.bin", TransferFixture.randomBytes(SIZE, 13));
            TransferResult cut = uploadAndCut(h, 300_000);

            ResumeHarness.Link second = h.connect();
            second.footSilent = true;
            second.pair.right().send(new TransferResume(cut.resumeId(), "in/f.bin", ResumeHarness.UPLOAD_DIR, SIZE, null));
            second.deliverAll();

            TransferResumeResponse answer = second.sentByBrain(TransferResumeResponse.class).get(0);
            assertThat(answer.ok()).isFalse();
            assertThat(answer.error()).contains("no resume of upload " + cut.resumeId() + " was requested");
            assertThat(h.brain.keptReceives()).as("still kept for the server's own resume").isEqualTo(1);
        }
    }

    @Test
    void withoutTheCapabilityACutUploadFailsAndNothingIsKept() throws Exception {
        try (ResumeHarness h = new ResumeHarness(EnumSet.of(TransferCapability.HASH_TRAILER))) {
            h.footFile("f.bin", TransferFixture.randomBytes(SIZE, 14));
            TransferResult cut = uploadAndCut(h, 300_000);

            assertThat(cut.ok()).isFalse();
            assertThat(cut.resumeId()).isNull();
            assertThat(Files.exists(target(h))).isFalse();
            assertNothingLeft(h);
            ResumeHarness.Link second = h.connect();
            TransferResult r = done(second.resumeUpload(cut.transferId(), "f.bin", "in/f.bin"));
            assertThat(r.ok()).isFalse();
            assertThat(r.error()).contains("did not negotiate transfer.resume");
        }
    }
}
