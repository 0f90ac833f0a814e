package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.FrameChannel;

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

    /**
     * The channel reports not writable once, with nothing of the transfer left unwritten, and is writable
     * again by the time the sender asks to be told (so the callback runs at once, inside that call): the
     * sender must go on from the callback, although no write completion will ever wake it.
     */
    @Test
    void senderGoesOnWhenTheChannelIsWritableAgainBeforeItRegisters() throws Exception {
        AtomicInteger unwritableAt = new AtomicInteger(3);   // the 3rd writability check after the init
        fx = new TransferFixture(com.google.common.jimfs.Configuration.unix(),
                TransferSettings.builder().chunkSize(1024).maxChunksInFlight(1).build(), 16, false, Set.of(),
                left -> new FrameChannel<>() {
                    @Override
                    public String id() {
                        return left.id();
                    }

                    @Override
                    public boolean isOpen() {
                        return left.isOpen();
                    }

                    @Override
                    public CompletionStage<Void> send(TransferFrame frame) {
                        return left.send(frame);
                    }

                    @Override
                    public boolean isWritable() {
                        return unwritableAt.decrementAndGet() != 0 && left.isWritable();
                    }

                    @Override
                    public void whenWritable(Runnable callback) {
                        left.whenWritable(callback);
                    }
                });
        byte[] data = TransferFixture.randomBytes(10 * 1024, 13);
        Path src = fx.brainFile("reports", "big.bin", data);
        CompletableFuture<TransferResult> f = fx.send(src, "big.bin", null, null);
        fx.deliverAll();
        assertThat(unwritableAt.get()).as("the flicker happened").isNegative();
        assertThat(TransferFixture.done(f).ok()).isTrue();
        assertThat(Files.readAllBytes(fx.footProject.resolve("big.bin"))).isEqualTo(data);
        fx.assertClean();
    }

    /**
     * Senders on a pool of threads, the channel delivering (and so completing writes and turning writable)
     * on a thread of its own, with a high-water mark of 2 frames so that writability flips at nearly every
     * chunk: every transfer completes. (The pump's requests race here as on a server; a race lost in a
     * window of a few instructions does not show in every run, so this is a net for the paths, not proof.)
     */
    @Test
    void sendersOnAPoolNeverStallWhileWritabilityFlips() throws Exception {
        ExecutorService pool = Executors.newCachedThreadPool();
        try {
            fx = new TransferFixture(com.google.common.jimfs.Configuration.unix(),
                    TransferSettings.builder().chunkSize(512).maxChunksInFlight(64).build(), 2, true, Set.of(),
                    UnaryOperator.identity(), pool);
            for (int i = 0; i < 150; i++) {
                byte[] data = TransferFixture.randomBytes(24 * 1024 + i, i);
                Path src = fx.brainFile("reports", "f" + i + ".bin", data);
                // not a speed limit: a stalled sender never finishes, and this ends the test instead of hanging
                TransferResult r = fx.send(src, "f" + i + ".bin", null, null).get(2, TimeUnit.MINUTES);
                assertThat(r.ok()).as("transfer %d: %s", i, r).isTrue();
                assertThat(Files.readAllBytes(fx.footProject.resolve("f" + i + ".bin"))).isEqualTo(data);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
