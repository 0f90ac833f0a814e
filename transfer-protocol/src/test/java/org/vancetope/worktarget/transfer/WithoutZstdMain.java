package org.vancetope.worktarget.transfer;

import com.google.common.jimfs.Configuration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import org.vancetope.worktarget.core.internal.transfer.ChunkCompression;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferSettings;

/**
 * Run by {@link ZstdAbsentTest} in a child JVM whose class path lacks zstd-jni: prints, one
 * {@code key=value} a line, what this side offers and how its transfers go.
 */
public final class WithoutZstdMain {
    private WithoutZstdMain() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("available=" + ChunkCompression.available());
        System.out.println("reason=" + ChunkCompression.availability().reason());
        TransferSettings all = TransferSettings.builder().capabilities(EnumSet.allOf(TransferCapability.class))
                .chunkSize(4096).build();
        System.out.println("offered=" + all.capabilities());
        System.out.println("defaults=" + TransferSettings.defaults().capabilities());
        byte[] text = "a line of text that would compress well\n".repeat(2000).getBytes(StandardCharsets.US_ASCII);
        // a connection with every capability both ends offer here
        try (TransferFixture fx = new TransferFixture(Configuration.unix(), all, 64, false, all.capabilities())) {
            Path src = fx.brainFile("reports", "src.txt", text);
            CompletableFuture<TransferResult> f = fx.send(src, "t.txt", null, null);
            fx.deliverAll();
            TransferResult r = TransferFixture.done(f);
            System.out.println("transfer=" + r.ok() + "," + Arrays.equals(Files.readAllBytes(fx.footProject.resolve("t.txt")),
                    text));
            fx.assertClean();
            System.out.println("clean=true");
        }
        // a peer that claims zstd although this side cannot decompress: the init is refused, nothing stays behind
        try (TransferFixture fx = new TransferFixture(Configuration.unix(), all, 64, false,
                EnumSet.allOf(TransferCapability.class))) {
            fx.brainSilent = true;
            fx.pair.left().send(new TransferInit("t1", null, "t.txt", null, 3, "sha256:" + "00".repeat(32), null,
                    TransferInit.ZSTD));
            fx.deliverAll();
            TransferInitResponse resp = fx.framesOf(fx.sentByFoot, TransferInitResponse.class).get(0);
            System.out.println("zstdInit=" + resp.ok() + "," + resp.error());
            fx.advance(java.time.Duration.ofMinutes(1));
            fx.assertClean();
            System.out.println("refusedClean=true");
        }
    }
}
