package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import java.nio.file.Files;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferSettings;

/**
 * A receiver on a full disk says {@code disk_full}, whether it knows before the first chunk or finds
 * out in the middle, and keeps nothing of the partial file. On a size-limited Jimfs.
 */
class ReceiverDiskFullTest {
    private static final int DISK = 512 * 1024;

    private static TransferFixture fixture() throws Exception {
        return new TransferFixture(Configuration.unix().toBuilder().setMaxSize(DISK).setBlockSize(1024).build(),
                TransferSettings.defaults(), 1_000);
    }

    @Test
    void aReceiverWithoutSpaceForTheFileRefusesItAtInitWithDiskFull() throws Exception {
        try (TransferFixture fx = fixture()) {
            byte[] big = TransferFixture.randomBytes(100_000, 1);
            java.nio.file.Path src = fx.brainFile("uploads", "big.bin", big);
            // fill the disk so that the 100 kB no longer fit
            Files.write(fx.footProject.resolve("filler.bin"), new byte[DISK - 100_000 - 60 * 1024]);
            CompletableFuture<TransferResult> f = fx.send(src, "got.bin", null, null);
            fx.deliverAll();
            TransferResult r = TransferFixture.done(f);
            assertThat(r.ok()).isFalse();
            assertThat(r.error()).startsWith("disk_full:").contains("free space");
            fx.assertClean();
            assertThat(fx.footProject.resolve("got.bin")).doesNotExist();
        }
    }

    @Test
    void aReceiverWhoseDiskFillsUpMidTransferFailsItWithDiskFullAndKeepsNothing() throws Exception {
        try (TransferFixture fx = fixture()) {
            byte[] data = TransferFixture.randomBytes(120_000, 2);
            java.nio.file.Path src = fx.brainFile("uploads", "d.bin", data);
            Files.writeString(fx.footProject.resolve("got.bin"), "old");
            CompletableFuture<TransferResult> f = fx.send(src, "got.bin", null, null);
            fx.pair.deliverNext(fx.pair.left());   // transfer_init reaches the client, which has room for it
            // ...then something else takes the space before the chunks arrive
            Files.write(fx.footProject.resolve("filler.bin"), new byte[DISK - 120_000 - 60 * 1024]);
            fx.deliverAll();
            TransferResult r = TransferFixture.done(f);
            assertThat(r.ok()).isFalse();
            assertThat(r.error()).startsWith("disk_full:").contains("free space");
            assertThat(Files.readString(fx.footProject.resolve("got.bin"))).isEqualTo("old");
            fx.assertClean();
        }
    }
}
