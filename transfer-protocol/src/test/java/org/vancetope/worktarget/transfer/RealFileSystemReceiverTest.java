package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.internal.transfer.Sha256;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferAttrs;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferConnection;
import org.vancetope.worktarget.core.transfer.TransferEndpoint;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.TransferSide;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.testkit.InMemoryFramePair;
import org.vancetope.worktarget.testfixtures.ManualTime;
import org.vancetope.worktarget.testkit.ManualTransferScheduler;

/** The Foot receiver on the real file system (directory-relative staging, rename and delete). */
class RealFileSystemReceiverTest {
    @TempDir
    Path tmp;
    private Path project;
    private TransferEndpoint foot;
    private InMemoryFramePair<TransferFrame> pair;
    private TransferConnection conn;
    private final List<TransferFrame> answers = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        project = Files.createDirectories(tmp.resolve("foot/acme/proj"));
        ManualTime time = new ManualTime();
        foot = TransferEndpoint.builder(TransferSide.FOOT).resolver(FootTargetResolver.at(tmp.resolve("foot")))
                .clock(time.clock()).scheduler(ManualTransferScheduler.on(time)).build();
        pair = InMemoryFramePair.<TransferFrame>builder().build();
        pair.left().onReceive(answers::add);
        conn = foot.attach(pair.right(), TransferFixture.SCOPE);
    }

    @AfterEach
    void tearDown() {
        pair.close();
        foot.close();
    }

    private static String sha(byte[] d) throws Exception {
        return Sha256.format(MessageDigest.getInstance("SHA-256").digest(d));
    }

    private void feed(TransferFrame... frames) {
        for (TransferFrame f : frames) {
            conn.onFrame(f);
        }
        pair.deliverAll();
    }

    private List<Path> leftovers() throws Exception {
        try (Stream<Path> s = Files.walk(tmp)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".part")).toList();
        }
    }

    @Test
    void verifiedFileReplacesTheExistingTargetWithMaskedMode() throws Exception {
        Files.writeString(project.resolve("a.sh"), "old");
        byte[] d = "#!/bin/sh\necho new\n".getBytes();
        feed(new TransferInit("r1", null, "a.sh", null, d.length, sha(d), new TransferAttrs("0777", null)),
                new TransferChunk("r1", 0, d, true), new TransferFinish("r1", true, null));
        assertThat(answers).last().isInstanceOfSatisfying(TransferComplete.class, c -> assertThat(c.ok()).isTrue());
        assertThat(Files.readAllBytes(project.resolve("a.sh"))).isEqualTo(d);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(project.resolve("a.sh"))))
                .isEqualTo("rwxr-xr-x");
        assertThat(leftovers()).isEmpty();
        assertThat(foot.pendingReceives()).isZero();
    }

    @Test
    void hashMismatchLeavesTheExistingTargetAndNoStagingFile() throws Exception {
        Files.writeString(project.resolve("a.txt"), "old");
        feed(new TransferInit("r2", null, "a.txt", null, 3, sha("xyz".getBytes()), null),
                new TransferChunk("r2", 0, "abc".getBytes(), true), new TransferFinish("r2", false, null));
        assertThat(answers).last().isInstanceOfSatisfying(TransferComplete.class,
                c -> assertThat(c.error()).isEqualTo("hash mismatch"));
        assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("old");
        assertThat(leftovers()).isEmpty();
    }

    @Test
    void aTargetDirectoryDeletedWhileTheFileArrivesFailsNotFoundAndLeavesNoStagingFile() throws Exception {
        Files.createDirectories(project.resolve("sub"));
        byte[] d = "0123456789".getBytes();
        feed(new TransferInit("r4", null, "sub/a.txt", null, d.length, sha(d), null),
                new TransferChunk("r4", 0, Arrays.copyOf(d, 5), false));
        Files.delete(project.resolve("sub"));       // a job, or the RootDir's deletion, takes it meanwhile

        feed(new TransferChunk("r4", 1, Arrays.copyOfRange(d, 5, 10), true),
                new TransferFinish("r4", true, null));

        assertThat(answers).last().isInstanceOfSatisfying(TransferComplete.class, c -> {
            assertThat(c.ok()).isFalse();
            assertThat(c.code()).isEqualTo(ErrorCode.NOT_FOUND);
            assertThat(c.error()).contains("directory was deleted while the file was being received", "send the file "
                    + "again");
        });
        assertThat(project.resolve("sub")).doesNotExist();
        assertThat(leftovers()).isEmpty();
        assertThat(foot.pendingReceives()).isZero();
    }

    @Test
    void jailbreakThroughARealSymlinkIsRefused() throws Exception {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.createSymbolicLink(project.resolve("link"), outside);
        feed(new TransferInit("r3", null, "link/x.txt", null, 1, sha(new byte[1]), null));
        assertThat(answers).singleElement().isInstanceOfSatisfying(TransferInitResponse.class,
                r -> assertThat(r.error()).contains("leads outside"));
        try (Stream<Path> s = Files.list(outside)) {
            assertThat(s.toList()).isEmpty();
        }
    }
}
