package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferEndpoint;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferSide;
import org.vancetope.worktarget.core.transfer.UploadRequest;
import org.vancetope.worktarget.testkit.InMemoryFramePair;
import org.vancetope.worktarget.testfixtures.ManualTime;
import org.vancetope.worktarget.testkit.ManualTransferScheduler;

class TransferEndpointTest {

    @Test
    void buildWithoutAResolverSaysWhichOneToUse() {
        assertThatThrownBy(() -> TransferEndpoint.builder(TransferSide.FOOT).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("FootTargetResolver");
    }

    @Test
    void closingTheEndpointAbortsItsTransfersAndDeletesStaging() throws Exception {
        try (TransferFixture fx = new TransferFixture()) {
            fx.footSilent = false;
            Path src = fx.brainFile("reports", "a.bin", new byte[200_000]);
            CompletableFuture<TransferResult> f = fx.send(src, "a.bin", null, null);
            fx.pair.deliverNext(fx.pair.left());
            fx.pair.deliverNext(fx.pair.right());
            fx.pair.deliverNext(fx.pair.left());
            assertThat(fx.stagingFiles()).hasSize(1);
            fx.foot.close();
            fx.brain.close();
            assertThat(TransferFixture.done(f).error()).isEqualTo("transfer endpoint closed");
            assertThat(fx.stagingFiles()).isEmpty();
            assertThat(fx.foot.pendingReceives()).isZero();
            assertThat(fx.brain.pendingSends()).isZero();
            assertThat(fx.send(src, "b.bin", null, null).join().error()).isEqualTo("transfer endpoint is closed");
        }
    }

    @Test
    void aThrowingListenerDoesNotDisturbTheTransfer() throws Exception {
        try (FileSystem fs = Jimfs.newFileSystem(Configuration.unix())) {
            ManualTime time = new ManualTime();
            Path root = fs.getPath("/foot");
            Files.createDirectories(root.resolve("acme/proj"));
            TransferListener bad = new TransferListener() {
                @Override
                public void onProgress(String transferId, Role role, long bytesDone, long totalBytes) {
                    throw new IllegalStateException("listener bug");
                }

                @Override
                public void onFinished(Role role, TransferResult result) {
                    throw new IllegalStateException("listener bug");
                }
            };
            try (TransferEndpoint foot = TransferEndpoint.builder(TransferSide.FOOT).resolver(FootTargetResolver.at(root))
                    .clock(time.clock()).scheduler(ManualTransferScheduler.on(time)).listener(bad).build()) {
                InMemoryFramePair<TransferFrame> pair = InMemoryFramePair.<TransferFrame>builder().build();
                var conn = foot.attach(pair.right(), TransferFixture.SCOPE);
                byte[] d = "abc".getBytes();
                String hash = org.vancetope.worktarget.core.internal.transfer.Sha256.format(
                        java.security.MessageDigest.getInstance("SHA-256").digest(d));
                conn.onFrame(new TransferInit("l", null, "x.txt", null, 3, hash, null));
                conn.onFrame(new TransferChunk("l", 0, d, true));
                assertThat(Files.readString(root.resolve("acme/proj/x.txt"))).isEqualTo("abc");
                pair.close();
            }
        }
    }

    @Test
    void brainIgnoresAnUploadRequestAddressedToIt() throws Exception {
        try (TransferFixture fx = new TransferFixture()) {
            fx.pair.right().send(new UploadRequest("u", "/etc/passwd", "uploads", "p", null));
            fx.deliverAll();
            assertThat(fx.sentByBrain).isEmpty();
            fx.assertClean();
        }
    }
}
