package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.vancetope.worktarget.transfer.ResumeHarness.done;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferResume;
import org.vancetope.worktarget.core.transfer.TransferResumeResponse;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.ErrorCode;

/**
 * {@code transfer.resume}: a transfer cut off by a lost connection is kept by the receiver and taken up on
 * a new connection from the receiver's offset, offset-checked, with the whole file's hash verified; after a
 * restart of the receiver from its staging file and sidecar; kept files go after the retention time; a
 * connection without the capability behaves as the base protocol.
 */
class TransferResumeTest {
    private static final int SIZE = 1_000_000;

    /** Sends a file on a first connection and cuts it once the Foot holds at least {@code cutAt} bytes. */
    private static TransferResult sendAndCut(ResumeHarness h, long cutAt) {
        ResumeHarness.Link first = h.connect();
        CompletableFuture<TransferResult> sent = first.send("f.bin", "in/f.bin");
        first.deliverUntilFootHas(cutAt);
        first.cut();
        return done(sent);
    }

    @ParameterizedTest(name = "hash trailer {0}")
    @ValueSource(booleans = {false, true})
    void aTransferCutInTheMiddleResumesOnANewConnectionAndArrivesIdentical(boolean trailer) throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(trailer))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 1);
            h.brainFile("f.bin", content);
            TransferResult cut = sendAndCut(h, 300_000);
            assertThat(cut.ok()).isFalse();
            assertThat(cut.code()).isEqualTo(ErrorCode.OFFLINE);
            assertThat(cut.resumeId()).isEqualTo(cut.transferId());
            assertThat(h.foot.keptReceives()).isEqualTo(1);
            assertThat(h.foot.pendingReceives()).isZero();
            long kept = h.footBytes.get();

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> resumed = second.resume(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();

            TransferResult r = done(resumed);
            assertThat(r.ok()).as(r.toString()).isTrue();
            assertThat(r.hash()).isEqualTo(ResumeHarness.sha256(content));
            assertThat(Files.readAllBytes(h.footProject.resolve("in/f.bin"))).isEqualTo(content);
            TransferResumeResponse answer = second.sentByFoot(TransferResumeResponse.class).get(0);
            assertThat(answer.ok()).isTrue();
            assertThat(answer.offset()).isEqualTo(kept);
            List<TransferChunk> rest = second.chunksSent();
            assertThat(rest.get(0).offset()).as("the first chunk names its offset").isEqualTo(kept);
            assertThat(rest.get(0).seq()).isEqualTo(answer.nextSeq());
            assertThat(rest.stream().skip(1).allMatch(c -> c.offset() == TransferChunk.NO_OFFSET)).isTrue();
            assertThat(rest.stream().mapToLong(c -> c.bytes().length).sum()).as("only the rest is sent")
                    .isEqualTo(SIZE - kept);
            assertThat(h.foot.keptReceives()).isZero();
            assertThat(h.reservedEntries()).as("no staging file or sidecar left").isEmpty();
            h.assertNothingPending();
        }
    }

    @Test
    void aChunkWhoseOffsetIsNotTheReceiversIsRefusedAndNothingIsKept() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 2);
            h.brainFile("f.bin", content);
            TransferResult cut = sendAndCut(h, 200_000);
            long kept = h.footBytes.get();

            ResumeHarness.Link second = h.connect();
            second.brainSilent = true;      // the test plays the Brain
            second.pair.left().send(new TransferResume(cut.resumeId(), "in/f.bin", null, SIZE, ResumeHarness.sha256(content)));
            second.deliverAll();
            TransferResumeResponse answer = second.sentByFoot(TransferResumeResponse.class).get(0);
            assertThat(answer.offset()).isEqualTo(kept);
            second.pair.left().send(new TransferChunk(cut.resumeId(), answer.nextSeq(), new byte[1000], false, null, TransferChunk.RAW,
                    kept + 1000));
            second.deliverAll();

            TransferComplete refusal = second.sentByFoot(TransferComplete.class).get(0);
            assertThat(refusal.ok()).isFalse();
            assertThat(refusal.error()).contains("chunk offset " + (kept + 1000), "receiver's offset " + kept);
            assertThat(Files.exists(h.footProject.resolve("in/f.bin"))).isFalse();
            assertThat(h.reservedEntries()).as("the kept prefix is deleted").isEmpty();
        }
    }

    @Test
    void theFirstChunkAfterAResumeMustNameItsOffset() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 3);
            h.brainFile("f.bin", content);
            TransferResult cut = sendAndCut(h, 200_000);

            ResumeHarness.Link second = h.connect();
            second.brainSilent = true;
            second.pair.left().send(new TransferResume(cut.resumeId(), "in/f.bin", null, SIZE, ResumeHarness.sha256(content)));
            second.deliverAll();
            TransferResumeResponse answer = second.sentByFoot(TransferResumeResponse.class).get(0);
            second.pair.left().send(new TransferChunk(cut.resumeId(), answer.nextSeq(), new byte[1000], false));
            second.deliverAll();

            TransferComplete refusal = second.sentByFoot(TransferComplete.class).get(0);
            assertThat(refusal.ok()).isFalse();
            assertThat(refusal.error()).contains("must name its offset");
            assertThat(h.reservedEntries()).isEmpty();
        }
    }

    @Test
    void aResumeOfAChangedSourceIsRefusedAndTheKeptPrefixDeleted() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            h.brainFile("f.bin", TransferFixture.randomBytes(SIZE, 4));
            TransferResult cut = sendAndCut(h, 200_000);
            h.brainFile("f.bin", TransferFixture.randomBytes(SIZE, 5));

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> resumed = second.resume(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();

            TransferResult r = done(resumed);
            assertThat(r.ok()).isFalse();
            assertThat(r.error()).contains("source changed");
            assertThat(r.code()).as("the receiver's code, carried by transfer_resume_response").isEqualTo(ErrorCode.SOURCE_CHANGED);
            assertThat(r.resumeId()).isNull();
            assertThat(h.reservedEntries()).isEmpty();
            assertThat(h.foot.keptReceives()).isZero();
            h.assertNothingPending();
        }
    }

    @Test
    void aKeptTransferIsDeletedWhenItsRetentionIsOverAndAResumeThenFails() throws Exception {
        TransferSettings settings = TransferSettings.defaults().toBuilder().resumeRetention(Duration.ofMinutes(2)).build();
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false), settings)) {
            h.brainFile("f.bin", TransferFixture.randomBytes(SIZE, 6));
            TransferResult cut = sendAndCut(h, 200_000);
            assertThat(h.reservedEntries()).as("staging file and sidecar kept").hasSize(2);

            h.time.advance(Duration.ofMinutes(2));
            assertThat(h.foot.keptReceives()).isZero();
            assertThat(h.reservedEntries()).isEmpty();

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> resumed = second.resume(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();
            TransferResult r = done(resumed);
            assertThat(r.ok()).isFalse();
            assertThat(r.error()).contains("nothing is kept");
            assertThat(r.code()).isEqualTo(ErrorCode.NOT_FOUND);
            h.assertNothingPending();
        }
    }

    @ParameterizedTest(name = "hash trailer {0}")
    @ValueSource(booleans = {false, true})
    void aRestartedReceiverRebuildsTheTransferFromItsStagingFileAndSidecar(boolean trailer) throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(trailer))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 7);
            h.brainFile("f.bin", content);
            TransferResult cut = sendAndCut(h, 400_000);
            long kept = h.footBytes.get();
            h.restartFoot();
            assertThat(h.foot.keptReceives()).isZero();
            assertThat(h.reservedEntries()).as("the files outlive the process").hasSize(2);

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> resumed = second.resume(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();

            TransferResult r = done(resumed);
            assertThat(r.ok()).as(r.toString()).isTrue();
            assertThat(second.sentByFoot(TransferResumeResponse.class).get(0).offset()).isEqualTo(kept);
            assertThat(Files.readAllBytes(h.footProject.resolve("in/f.bin"))).isEqualTo(content);
            assertThat(h.reservedEntries()).isEmpty();
            h.assertNothingPending();
        }
    }

    @Test
    void aRestartedReceiverWhoseKeptPrefixWasAlteredFailsTheHashCheckAndKeepsNoTarget() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(true))) {
            byte[] content = TransferFixture.randomBytes(SIZE, 8);
            h.brainFile("f.bin", content);
            TransferResult cut = sendAndCut(h, 300_000);
            h.restartFoot();
            Path staging = h.reservedEntries().stream().filter(p -> p.toString().endsWith(".part")).findFirst()
                    .orElseThrow();
            byte[] kept = Files.readAllBytes(staging);
            kept[10] ^= 1;
            Files.write(staging, kept);

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> resumed = second.resume(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();

            TransferResult r = done(resumed);
            assertThat(r.ok()).isFalse();
            assertThat(r.code()).isEqualTo(ErrorCode.HASH_MISMATCH);
            assertThat(Files.exists(h.footProject.resolve("in/f.bin"))).isFalse();
            assertThat(h.reservedEntries()).isEmpty();
        }
    }

    @Test
    void theSweepAtStartDeletesKeptFilesPastTheirRetention() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            h.brainFile("f.bin", TransferFixture.randomBytes(SIZE, 9));
            sendAndCut(h, 200_000);
            h.restartFoot();
            List<Path> kept = h.reservedEntries();
            assertThat(kept).hasSize(2);
            FileTime old = FileTime.from(h.time.now().minus(h.settings.resumeRetention()).minusSeconds(1));
            for (Path p : kept) {
                Files.setLastModifiedTime(p, old);
            }

            h.foot.sweepKept(ResumeHarness.SCOPE, null);

            assertThat(h.reservedEntries()).isEmpty();
        }
    }

    @Test
    void theSweepKeepsKeptFilesWithinTheirRetention() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            h.brainFile("f.bin", TransferFixture.randomBytes(SIZE, 10));
            sendAndCut(h, 200_000);
            h.restartFoot();
            FileTime recent = FileTime.from(h.time.now().minusSeconds(1));
            for (Path p : h.reservedEntries()) {
                Files.setLastModifiedTime(p, recent);
            }

            h.foot.sweepKept(ResumeHarness.SCOPE, null);

            assertThat(h.reservedEntries()).hasSize(2);
        }
    }

    @Test
    void withoutTheCapabilityALostConnectionDeletesTheStagingFileAsTheBaseProtocolDoes() throws Exception {
        try (ResumeHarness h = new ResumeHarness(EnumSet.of(TransferCapability.HASH_TRAILER))) {
            h.brainFile("f.bin", TransferFixture.randomBytes(SIZE, 11));
            TransferResult cut = sendAndCut(h, 200_000);

            assertThat(cut.ok()).isFalse();
            assertThat(cut.code()).isEqualTo(ErrorCode.OFFLINE);
            assertThat(cut.resumeId()).isNull();
            assertThat(h.foot.keptReceives()).isZero();
            assertThat(h.reservedEntries()).isEmpty();

            ResumeHarness.Link second = h.connect();
            TransferResult r = done(second.resume(cut.transferId(), "f.bin", "in/f.bin"));
            assertThat(r.ok()).isFalse();
            assertThat(r.error()).contains("did not negotiate transfer.resume");
            h.assertNothingPending();
        }
    }

    @Test
    void aTransferVerifiedJustBeforeTheCutIsReportedOkByTheResume() throws Exception {
        try (ResumeHarness h = new ResumeHarness(ResumeHarness.caps(false))) {
            byte[] content = TransferFixture.randomBytes(100_000, 12);
            h.brainFile("f.bin", content);
            ResumeHarness.Link first = h.connect();
            CompletableFuture<TransferResult> sent = first.send("f.bin", "in/f.bin");
            // everything to the Foot, nothing back: the Foot verified the file, the Brain never heard it
            while (first.pair.deliverNext(first.pair.left()) || first.sentByBrain.isEmpty()) {
                if (!first.pair.deliverNext(first.pair.left()) && first.sentByFoot(TransferComplete.class).isEmpty()) {
                    first.pair.deliverNext(first.pair.right());
                }
            }
            first.cut();
            TransferResult cut = done(sent);
            assertThat(cut.resumeId()).isNotNull();

            ResumeHarness.Link second = h.connect();
            CompletableFuture<TransferResult> resumed = second.resume(cut.resumeId(), "f.bin", "in/f.bin");
            second.deliverAll();

            assertThat(done(resumed).ok()).isTrue();
            assertThat(Files.readAllBytes(h.footProject.resolve("in/f.bin"))).isEqualTo(content);
            assertThat(second.chunksSent()).as("nothing sent again").isEmpty();
            h.assertNothingPending();
        }
    }
}
