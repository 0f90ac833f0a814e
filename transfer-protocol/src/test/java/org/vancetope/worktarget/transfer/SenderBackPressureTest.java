package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferSettings;

/** The sender never queues more than a few chunks, whatever the size of the file. */
class SenderBackPressureTest {
    private TransferFixture fx;

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    @Test
    void stalledReceiverBoundsTheChunksInFlight() throws Exception {
        fx = new TransferFixture(com.google.common.jimfs.Configuration.unix(),
                TransferSettings.builder().chunkSize(1024).maxChunksInFlight(3).build(), 100);
        byte[] data = TransferFixture.randomBytes(100 * 1024, 11);
        Path src = fx.brainFile("reports", "big.bin", data);
        CompletableFuture<TransferResult> f = fx.send(src, "big.bin", null, null);
        fx.pair.deliverNext(fx.pair.left());
        fx.pair.deliverNext(fx.pair.right());   // init accepted -> the sender starts streaming
        fx.pair.left().stall(true);
        assertThat(fx.pair.left().queued()).isEqualTo(3);
        fx.pair.left().stall(false);
        fx.deliverAll();
        assertThat(TransferFixture.done(f).ok()).isTrue();
        assertThat(Files.readAllBytes(fx.footProject.resolve("big.bin"))).isEqualTo(data);
        fx.assertClean();
    }

    @Test
    void notWritableChannelPausesTheSenderUntilItDrains() throws Exception {
        fx = new TransferFixture(com.google.common.jimfs.Configuration.unix(),
                TransferSettings.builder().chunkSize(1024).maxChunksInFlight(64).build(), 4);
        byte[] data = TransferFixture.randomBytes(50 * 1024, 12);
        Path src = fx.brainFile("reports", "big.bin", data);
        CompletableFuture<TransferResult> f = fx.send(src, "big.bin", null, null);
        fx.pair.deliverNext(fx.pair.left());
        fx.pair.deliverNext(fx.pair.right());
        assertThat(fx.pair.left().queued()).isEqualTo(4);   // the high-water mark, not 64
        for (int i = 0; i < 200 && !f.isDone(); i++) {
            fx.pair.deliverNext(fx.pair.left());
            assertThat(fx.pair.left().queued()).isLessThanOrEqualTo(4);
            while (fx.pair.deliverNext(fx.pair.right())) {
                // drain the other direction
            }
        }
        assertThat(TransferFixture.done(f).ok()).isTrue();
        fx.deliverAll();   // the closing transfer_finish
        assertThat(Files.readAllBytes(fx.footProject.resolve("big.bin"))).isEqualTo(data);
        fx.assertClean();
    }
}
