package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferSettings;

/** Each phase timeout of a transfer and the cleanup sweep, by moving a manual clock. */
class TransferTimeoutTest {
    private static final Duration JUST_BEFORE = Duration.ofMillis(29_999);
    private static final Duration PAST = Duration.ofMillis(2);
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
    void senderFailsWithInitTimeoutWhenNoInitResponseComes() throws Exception {
        fx.footSilent = true;
        Path src = fx.brainFile("reports", "a.bin", new byte[10]);
        CompletableFuture<TransferResult> f = fx.send(src, "a.bin", null, null);
        fx.deliverAll();
        fx.advance(JUST_BEFORE);
        assertThat(f).isNotDone();
        fx.advance(PAST);
        assertThat(TransferFixture.done(f).error()).isEqualTo("init timeout");
        assertThat(fx.framesOf(fx.sentByBrain, TransferFinish.class)).singleElement()
                .extracting(TransferFinish::ok).isEqualTo(false);
        fx.assertClean();
    }

    @Test
    void receiverSendsChunkTimeoutAndDeletesThePartialFile() throws Exception {
        fx.brainSilent = true;
        fx.footFile("a.bin", "old".getBytes());
        fx.pair.left().send(new TransferInit("c", null, "a.bin", null, 10, "sha256:" + "0".repeat(64), null));
        fx.pair.left().send(new org.vancetope.worktarget.core.transfer.TransferChunk("c", 0, new byte[4], false));
        fx.deliverAll();
        fx.advance(Duration.ofSeconds(20));
        fx.pair.left().send(new org.vancetope.worktarget.core.transfer.TransferChunk("c", 1, new byte[4], false));
        fx.deliverAll();
        fx.advance(Duration.ofSeconds(20));   // 40 s since init, 20 s since the last chunk: still alive
        assertThat(fx.framesOf(fx.sentByFoot, TransferComplete.class)).isEmpty();
        fx.advance(Duration.ofSeconds(11));
        assertThat(fx.framesOf(fx.sentByFoot, TransferComplete.class)).singleElement()
                .satisfies(c -> {
                    assertThat(c.ok()).isFalse();
                    assertThat(c.error()).isEqualTo("chunk timeout");
                    assertThat(c.bytesWritten()).isEqualTo(8);
                });
        assertThat(fx.stagingFiles()).isEmpty();
        assertThat(Files.readString(fx.footProject.resolve("a.bin"))).isEqualTo("old");
        assertThat(fx.foot.pendingReceives()).isEqualTo(1);   // waiting for transfer_finish
        fx.advance(Duration.ofSeconds(31));
        fx.assertClean();
    }

    @Test
    void firstChunkMustArriveWithinThePhaseTimeout() throws Exception {
        fx.brainSilent = true;
        fx.pair.left().send(new TransferInit("c", null, "a.bin", null, 10, "sha256:" + "0".repeat(64), null));
        fx.deliverAll();
        fx.advance(Duration.ofSeconds(31));
        assertThat(fx.framesOf(fx.sentByFoot, TransferComplete.class)).singleElement()
                .extracting(TransferComplete::error).isEqualTo("chunk timeout");
        fx.advance(Duration.ofSeconds(31));
        fx.assertClean();
    }

    @Test
    void senderFailsWithCompleteTimeoutWhenTheVerdictIsLost() throws Exception {
        Path src = fx.brainFile("reports", "a.bin", new byte[10]);
        CompletableFuture<TransferResult> f = fx.send(src, "a.bin", null, null);
        fx.pair.deliverNext(fx.pair.left());   // init
        fx.pair.deliverNext(fx.pair.right());  // response
        fx.pair.deliverNext(fx.pair.left());   // last chunk
        assertThat(fx.pair.dropNext(fx.pair.right())).isInstanceOf(TransferComplete.class);
        fx.advance(JUST_BEFORE);
        assertThat(f).isNotDone();
        fx.advance(PAST);
        TransferResult r = TransferFixture.done(f);
        assertThat(r.ok()).isFalse();
        assertThat(r.error()).isEqualTo("complete timeout");
        // The Foot verified the file and, having got transfer_finish{ok:false}, keeps it: it is complete.
        assertThat(Files.size(fx.footProject.resolve("a.bin"))).isEqualTo(10);
        fx.assertClean();
    }

    @Test
    void receiverForgetsAVerifiedTransferWhenFinishNeverComesAndKeepsTheFile() throws Exception {
        Path src = fx.brainFile("reports", "a.bin", "keep me".getBytes());
        CompletableFuture<TransferResult> f = fx.send(src, "a.bin", null, null);
        fx.pair.deliverNext(fx.pair.left());
        fx.pair.deliverNext(fx.pair.right());
        fx.pair.deliverNext(fx.pair.left());
        fx.pair.deliverNext(fx.pair.right());  // complete -> sender done, sends finish
        assertThat(fx.pair.dropNext(fx.pair.left())).isInstanceOf(TransferFinish.class);
        assertThat(TransferFixture.done(f).ok()).isTrue();
        assertThat(fx.foot.pendingReceives()).isEqualTo(1);
        fx.advance(Duration.ofSeconds(31));
        assertThat(Files.readString(fx.footProject.resolve("a.bin"))).isEqualTo("keep me");
        fx.assertClean();
    }

    @Test
    void brainFailsTheUploadWithInitTimeoutWhenTheClientNeverAnswers() throws Exception {
        fx.footSilent = true;
        CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "a.wav", "uploads",
                "a.wav", null);
        fx.deliverAll();
        fx.advance(JUST_BEFORE);
        assertThat(f).isNotDone();
        fx.advance(PAST);
        assertThat(TransferFixture.done(f).error()).isEqualTo("init timeout");
        fx.assertClean();
    }

    @Test
    void lateFramesAfterATimeoutAreDropped() throws Exception {
        fx.footSilent = true;
        Path src = fx.brainFile("reports", "a.bin", new byte[10]);
        CompletableFuture<TransferResult> f = fx.send(src, "a.bin", null, null);
        fx.deliverAll();
        fx.advance(Duration.ofSeconds(31));
        String id = TransferFixture.done(f).transferId();
        fx.pair.right().send(new TransferInitResponse(id, true, null));
        fx.deliverAll();
        assertThat(fx.framesOf(fx.sentByBrain, org.vancetope.worktarget.core.transfer.TransferChunk.class)).isEmpty();
        fx.assertClean();
    }

    @Test
    void sweepFailsASenderStalledByBackPressure() throws Exception {
        fx.close();
        fx = new TransferFixture(TransferSettings.builder().phaseTimeout(Duration.ofMinutes(30)).build());
        Path src = fx.brainFile("reports", "a.bin", new byte[300_000]);
        CompletableFuture<TransferResult> f = fx.send(src, "a.bin", null, null);
        fx.pair.deliverNext(fx.pair.left());
        fx.pair.left().pauseWritable(true);
        fx.deliverAll();
        assertThat(f).isNotDone();
        fx.advance(Duration.ofMinutes(4));
        assertThat(f).isNotDone();
        fx.advance(Duration.ofMinutes(2));
        assertThat(TransferFixture.done(f).error()).startsWith("transfer expired");
        fx.advance(Duration.ofMinutes(6));
        fx.assertClean();
    }

    @Test
    void sweepNeverDeletesAVerifiedFile() throws Exception {
        fx.close();
        fx = new TransferFixture(TransferSettings.builder().phaseTimeout(Duration.ofMinutes(30)).build());
        Path src = fx.brainFile("reports", "a.bin", "verified".getBytes());
        fx.send(src, "a.bin", null, null);
        fx.pair.deliverNext(fx.pair.left());
        fx.pair.deliverNext(fx.pair.right());
        fx.pair.deliverNext(fx.pair.left());
        fx.pair.deliverNext(fx.pair.right());
        fx.pair.dropNext(fx.pair.left());  // the closing transfer_finish is lost
        fx.advance(Duration.ofMinutes(11));
        assertThat(Files.readString(fx.footProject.resolve("a.bin"))).isEqualTo("verified");
        fx.assertClean();
    }

    @Test
    void sweepAbortsAStalledReceiverAndDeletesItsStagingFile() throws Exception {
        fx.close();
        fx = new TransferFixture(TransferSettings.builder().phaseTimeout(Duration.ofMinutes(30)).build());
        fx.brainSilent = true;
        fx.pair.left().send(new TransferInit("s", null, "a.bin", null, 10, "sha256:" + "0".repeat(64), null));
        fx.deliverAll();
        assertThat(fx.stagingFiles()).hasSize(1);
        fx.advance(Duration.ofMinutes(11));
        assertThat(fx.framesOf(fx.sentByFoot, TransferComplete.class)).singleElement()
                .extracting(TransferComplete::error).asString().startsWith("transfer expired");
        fx.assertClean();
    }
}
