package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.internal.transfer.Sha256;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.UploadRequest;

/**
 * A receiver that has decided a transfer failed acts on it at once: a chunk that could not be decoded
 * fails its transfer without waiting for the chunk timeout, and the Brain's upload call gets the failure
 * when the Brain decides it, not when the client's {@code transfer_finish} (or a timeout) comes. The
 * clock never moves unless a test says so.
 */
class ReceiverFailsAtOnceTest {
    private static final byte[] DATA = "twelve bytes".getBytes();
    private static final String BAD_BASE64 = "Field 'bytes' is not valid base64 (standard alphabet, with padding).";
    private TransferFixture fx;

    @BeforeEach
    void setUp() throws Exception {
        fx = new TransferFixture();
    }

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    private static String sha(byte[] data) throws Exception {
        return Sha256.format(MessageDigest.getInstance("SHA-256").digest(data));
    }

    /** The test plays the Brain's sender; the Foot receives "c" into t.bin, where an old file exists. */
    private void footReceiving() throws Exception {
        fx.brainSilent = true;
        fx.footFile("t.bin", "old".getBytes());
        fx.pair.left().send(new TransferInit("c", null, "t.bin", null, DATA.length, sha(DATA), null));
        fx.pair.left().send(new TransferChunk("c", 0, new byte[4], false));
        fx.deliverAll();
        assertThat(fx.stagingFiles()).hasSize(1);
    }

    /** The Brain asked for an upload; the test plays the Foot and answers with a matching init. */
    private CompletableFuture<TransferResult> brainReceivingAnUpload(boolean matchingInit) throws Exception {
        fx.footSilent = true;
        CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "a.bin", "uploads",
                "a.bin", null);
        fx.deliverAll();
        String id = uploadId();
        fx.pair.right().send(new TransferInit(id, null, matchingInit ? "a.bin" : "../x.bin", "uploads", DATA.length,
                sha(DATA), null));
        fx.deliverAll();
        return f;
    }

    private String uploadId() {
        return fx.framesOf(fx.sentByBrain, UploadRequest.class).get(0).transferId();
    }

    @Test
    void anUndecodableChunkFailsItsTransferAtOnceAndDeletesTheStagingFile() throws Exception {
        footReceiving();
        fx.footConn.onUndecodable("c", TransferChunk.TYPE, BAD_BASE64);
        fx.deliverAll();
        assertThat(fx.framesOf(fx.sentByFoot, TransferComplete.class)).singleElement().satisfies(c -> {
            assertThat(c.ok()).isFalse();
            assertThat(c.error()).contains("chunk 1 could not be decoded", BAD_BASE64, "send the file again");
            assertThat(c.bytesWritten()).isEqualTo(4);
        });
        assertThat(fx.stagingFiles()).isEmpty();
        assertThat(Files.readString(fx.footProject.resolve("t.bin"))).isEqualTo("old");
        fx.pair.left().send(new TransferFinish("c", false, null));
        fx.deliverAll();
        fx.assertClean();
    }

    @Test
    void chunksAfterAnUndecodableOneAreDropped() throws Exception {
        footReceiving();
        fx.footConn.onUndecodable("c", TransferChunk.TYPE, BAD_BASE64);
        fx.pair.left().send(new TransferChunk("c", 2, new byte[8], true));
        fx.deliverAll();
        assertThat(fx.framesOf(fx.sentByFoot, TransferComplete.class)).hasSize(1);
        assertThat(fx.footProject.resolve("t.bin")).hasContent("old");
        fx.advance(Duration.ofMinutes(1));
        fx.assertClean();
    }

    @Test
    void anUndecodableChunkOfAnUnknownTransferChangesNothing() throws Exception {
        footReceiving();
        fx.footConn.onUndecodable("ghost", TransferChunk.TYPE, BAD_BASE64);
        fx.deliverAll();
        assertThat(fx.framesOf(fx.sentByFoot, TransferComplete.class)).isEmpty();
        assertThat(fx.foot.pendingReceives()).isEqualTo(1);
        assertThat(fx.stagingFiles()).hasSize(1);
    }

    @Test
    void anUndecodableChunkArrivingOnAnotherChannelIsIgnored() throws Exception {
        footReceiving();
        var other = org.vancetope.worktarget.testkit.InMemoryFramePair.<org.vancetope.worktarget.core.transfer.TransferFrame>
                builder().name("other").build();
        fx.foot.attach(other.right(), TransferFixture.SCOPE).onUndecodable("c", TransferChunk.TYPE, BAD_BASE64);
        fx.deliverAll();
        assertThat(fx.framesOf(fx.sentByFoot, TransferComplete.class)).isEmpty();
        assertThat(fx.stagingFiles()).hasSize(1);
        other.close();
    }

    @Test
    void anUndecodableChunkBeforeTheUploadsInitChangesNothing() throws Exception {
        fx.footSilent = true;
        CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "a.bin", "uploads",
                "a.bin", null);
        fx.deliverAll();
        fx.brainConn.onUndecodable(uploadId(), TransferChunk.TYPE, BAD_BASE64);
        fx.deliverAll();
        assertThat(f).isNotDone();
        assertThat(fx.framesOf(fx.sentByBrain, TransferComplete.class)).isEmpty();
        assertThat(fx.brain.pendingReceives()).isEqualTo(1);
    }

    @Test
    void anUndecodableInitOfARequestedUploadFailsTheCallAtOnceAndTellsTheSender() throws Exception {
        fx.footSilent = true;
        CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "a.bin", "uploads",
                "a.bin", null);
        fx.deliverAll();

        fx.brainConn.onUndecodable(uploadId(), TransferInit.TYPE, "The field 'totalSize' must be an integer.");
        fx.deliverAll();

        assertThat(f).as("failed at once, not at the init timeout").isDone();
        TransferResult r = TransferFixture.done(f);
        assertThat(r.code()).isEqualTo(org.vancetope.worktarget.spi.ErrorCode.BAD_FRAME);
        assertThat(r.error()).contains("transfer_init could not be decoded", "'totalSize' must be an integer");
        assertThat(fx.framesOf(fx.sentByBrain, TransferInitResponse.class)).singleElement().satisfies(a -> {
            assertThat(a.ok()).isFalse();
            assertThat(a.code()).isEqualTo(org.vancetope.worktarget.spi.ErrorCode.BAD_FRAME);
        });
        assertThat(fx.brain.pendingReceives()).isZero();
        assertThat(fx.stagingFiles()).isEmpty();
    }

    @Test
    void anUndecodableInitOfAnUnaskedUploadChangesNothingOnTheBrain() throws Exception {
        fx.brainConn.onUndecodable("ghost", TransferInit.TYPE, "The field 'totalSize' must be an integer.");
        fx.deliverAll();
        assertThat(fx.sentByBrain).isEmpty();
        fx.assertClean();
    }

    @Test
    void anUndecodableInitOfADownloadIsRefusedToItsSenderByTheClientAtOnce() throws Exception {
        fx.brainSilent = true;
        fx.footConn.onUndecodable("d-1", TransferInit.TYPE, "The field 'totalSize' must be an integer.");
        fx.deliverAll();
        assertThat(fx.framesOf(fx.sentByFoot, TransferInitResponse.class)).singleElement().satisfies(a -> {
            assertThat(a.transferId()).isEqualTo("d-1");
            assertThat(a.ok()).isFalse();
            assertThat(a.error()).contains("could not be decoded", "send the file again");
        });
        fx.assertClean();
    }

    @Test
    void aSenderThatAbortsAnUploadUnderWaySaysSoInsteadOfNotStarted() throws Exception {
        CompletableFuture<TransferResult> f = brainReceivingAnUpload(true);
        String id = uploadId();
        fx.pair.right().send(new TransferChunk(id, 0, new byte[4], false));
        fx.pair.right().send(new TransferFinish(id, false, null));
        fx.deliverAll();
        TransferResult r = TransferFixture.done(f);
        assertThat(r.error()).isEqualTo("the sender aborted the transfer after 4 of 12 bytes; nothing was kept");
        assertThat(fx.stagingFiles()).isEmpty();
    }

    @Test
    void aSenderThatAbortsBeforeItsInitSaysTheClientDidNotStartTheUpload() throws Exception {
        fx.footSilent = true;
        CompletableFuture<TransferResult> f = fx.brainConn.requestUpload(TransferFixture.SCOPE, "a.bin", "uploads",
                "a.bin", null);
        fx.deliverAll();
        fx.pair.right().send(new TransferFinish(uploadId(), false, null));
        fx.deliverAll();
        assertThat(TransferFixture.done(f).error()).isEqualTo("the client did not start the upload");
    }

    @Test
    void anUploadReturnsItsFailureWhenTheBrainFailsItWithoutWaitingForTransferFinish() throws Exception {
        CompletableFuture<TransferResult> f = brainReceivingAnUpload(true);
        String id = uploadId();
        fx.brainConn.onUndecodable(id, TransferChunk.TYPE, BAD_BASE64);
        fx.deliverAll();
        assertThat(fx.framesOf(fx.sentByBrain, TransferComplete.class)).singleElement()
                .satisfies(c -> assertThat(c.ok()).isFalse());
        TransferResult r = TransferFixture.done(f);
        assertThat(r.ok()).isFalse();
        assertThat(r.error()).contains("could not be decoded");
        assertThat(fx.brain.pendingReceives()).as("still waiting for transfer_finish").isEqualTo(1);
        fx.pair.right().send(new TransferFinish(id, false, null));
        fx.deliverAll();
        assertThat(TransferFixture.done(f)).isEqualTo(r);
        fx.assertClean();
    }

    @Test
    void anUploadReturnsTheChunkOrderFailureWithoutWaitingForTransferFinish() throws Exception {
        CompletableFuture<TransferResult> f = brainReceivingAnUpload(true);
        fx.pair.right().send(new TransferChunk(uploadId(), 1, new byte[4], false));
        fx.deliverAll();
        assertThat(TransferFixture.done(f).error()).startsWith("chunk out of order");
        assertThat(fx.stagingFiles()).isEmpty();
    }

    @Test
    void anUploadReturnsARefusedInitWithoutWaitingForTransferFinish() throws Exception {
        CompletableFuture<TransferResult> f = brainReceivingAnUpload(false);
        assertThat(fx.framesOf(fx.sentByBrain, TransferInitResponse.class)).singleElement()
                .satisfies(r -> assertThat(r.ok()).isFalse());
        assertThat(TransferFixture.done(f).error()).contains("does not match the upload request");
    }

    @Test
    void anUploadReturnsAHashMismatchWithoutWaitingForTransferFinish() throws Exception {
        CompletableFuture<TransferResult> f = brainReceivingAnUpload(true);
        fx.pair.right().send(new TransferChunk(uploadId(), 0, "twelve bytez".getBytes(), true));
        fx.deliverAll();
        assertThat(TransferFixture.done(f).error()).isEqualTo("hash mismatch");
        assertThat(fx.rootDirs.get("uploads").resolve("a.bin")).doesNotExist();
    }

    @Test
    void aFailedUploadIsForgottenAtTheTimeoutWhenTransferFinishNeverComes() throws Exception {
        CompletableFuture<TransferResult> f = brainReceivingAnUpload(true);
        fx.brainConn.onUndecodable(uploadId(), TransferChunk.TYPE, BAD_BASE64);
        fx.deliverAll();
        assertThat(f).isDone();
        assertThat(fx.brain.pendingReceives()).isEqualTo(1);
        fx.advance(Duration.ofSeconds(31));
        fx.assertClean();
    }

    @Test
    void aSuccessfulUploadStillWaitsForTransferFinish() throws Exception {
        CompletableFuture<TransferResult> f = brainReceivingAnUpload(true);
        fx.pair.right().send(new TransferChunk(uploadId(), 0, DATA, true));
        fx.deliverAll();
        assertThat(fx.framesOf(fx.sentByBrain, TransferComplete.class)).singleElement()
                .satisfies(c -> assertThat(c.ok()).isTrue());
        assertThat(f).isNotDone();
        fx.pair.right().send(new TransferFinish(uploadId(), true, null));
        fx.deliverAll();
        assertThat(TransferFixture.done(f).ok()).isTrue();
        fx.assertClean();
    }
}
