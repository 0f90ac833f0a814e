package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.internal.transfer.Sha256;
import org.vancetope.worktarget.core.transfer.TransferAttrs;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferInitResponse;
import org.vancetope.worktarget.core.transfer.TransferSettings;

/**
 * Every guard of the receiver, with the test playing a (misbehaving) sender on the Brain's end of the
 * pair and a real Foot endpoint receiving. An existing target file is present in each failure case
 * and must survive untouched.
 */
class ReceiverGuardsTest {
    private static final byte[] OLD = "old content".getBytes();
    private TransferFixture fx;

    @BeforeEach
    void setUp() throws Exception {
        start(new TransferFixture(TransferSettings.builder().chunkSize(1024).build()));
    }

    private void start(TransferFixture fixture) throws Exception {
        fx = fixture;
        fx.brainSilent = true;
        fx.footFile("t.bin", OLD);
    }

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    private static String sha(byte[] data) throws Exception {
        return Sha256.format(MessageDigest.getInstance("SHA-256").digest(data));
    }

    private void send(Object... frames) {
        for (Object f : frames) {
            fx.pair.left().send((org.vancetope.worktarget.core.transfer.TransferFrame) f);
        }
        fx.deliverAll();
    }

    private TransferInitResponse initResponse() {
        List<TransferInitResponse> l = fx.framesOf(fx.sentByFoot, TransferInitResponse.class);
        assertThat(l).hasSize(1);
        return l.get(0);
    }

    private TransferComplete complete() {
        List<TransferComplete> l = fx.framesOf(fx.sentByFoot, TransferComplete.class);
        assertThat(l).hasSize(1);
        return l.get(0);
    }

    private void assertTargetUntouchedAndClean() throws Exception {
        assertThat(Files.readAllBytes(fx.footProject.resolve("t.bin"))).isEqualTo(OLD);
        fx.advance(java.time.Duration.ofMinutes(1));
        fx.assertClean();
    }

    private void refusedAtInit(TransferInit init, String errorStart) throws Exception {
        send(init);
        TransferInitResponse r = initResponse();
        assertThat(r.ok()).isFalse();
        assertThat(r.error()).startsWith(errorStart);
        assertThat(fx.stagingFiles()).isEmpty();
        send(new TransferFinish(init.transferId(), false, null));
        assertTargetUntouchedAndClean();
    }

    @Test
    void hashMismatchDeletesTheStagingFileAndKeepsTheExistingTarget() throws Exception {
        byte[] data = "new content".getBytes();
        send(new TransferInit("h", null, "t.bin", null, data.length, sha("something else".getBytes()), null),
                new TransferChunk("h", 0, data, true));
        assertThat(initResponse().ok()).isTrue();
        TransferComplete c = complete();
        assertThat(c.ok()).isFalse();
        assertThat(c.error()).isEqualTo("hash mismatch");
        assertThat(c.hashCheck()).isEqualTo(TransferComplete.HASH_MISMATCH);
        send(new TransferFinish("h", false, null));
        assertTargetUntouchedAndClean();
    }

    @Test
    void missingHashFormatIsRefused() throws Exception {
        refusedAtInit(new TransferInit("x", null, "t.bin", null, 1, "md5:abc", null), "hash must be");
    }

    @Test
    void shortHexHashIsRefused() throws Exception {
        refusedAtInit(new TransferInit("x", null, "t.bin", null, 1, "sha256:abcd", null), "hash must be");
    }

    @Test
    void jailbreakDotDotOutOfTheProjectIsRefused() throws Exception {
        refusedAtInit(new TransferInit("x", null, "../other/t.bin", null, 1, sha(new byte[1]), null),
                "Path '../other/t.bin' leads outside the work directory");
        assertThat(fx.footRoot.resolve("acme/other")).doesNotExist();
    }

    @Test
    void jailbreakDotDotInTheMiddleIsRefused() throws Exception {
        refusedAtInit(new TransferInit("x", null, "a/../../../../etc/passwd", null, 1, sha(new byte[1]), null),
                "Path 'a/../../../../etc/passwd' leads outside the work directory");
    }

    @Test
    void jailbreakAbsolutePathIsRefused() throws Exception {
        refusedAtInit(new TransferInit("x", null, "/etc/passwd", null, 1, sha(new byte[1]), null),
                "Path '/etc/passwd' is absolute");
    }

    @Test
    void jailbreakThroughASymlinkedDirectoryIsRefused() throws Exception {
        Path outside = Files.createDirectories(fx.fs.getPath("/outside"));
        Files.createSymbolicLink(fx.footProject.resolve("link"), outside);
        refusedAtInit(new TransferInit("x", null, "link/t.bin", null, 1, sha(new byte[1]), null),
                "Path 'link/t.bin' leads outside the work directory");
        assertThat(outside.resolve("t.bin")).doesNotExist();
    }

    @Test
    void jailbreakOntoASymlinkTargetIsRefused() throws Exception {
        Path outside = Files.write(fx.fs.getPath("/secret"), "s".getBytes());
        Files.createSymbolicLink(fx.footProject.resolve("s.lnk"), outside);
        refusedAtInit(new TransferInit("x", null, "s.lnk", null, 1, sha(new byte[1]), null),
                "Path 's.lnk' leads outside the work directory");
        assertThat(Files.readString(outside)).isEqualTo("s");
    }

    @Test
    void jailbreakRefusalReadsTheSameWhetherTheOutsideFileExists() throws Exception {
        Files.write(fx.fs.getPath("/home/u/.vancetope/foot/acme/exists.txt"), "x".getBytes());
        send(new TransferInit("a", null, "../exists.txt", null, 1, sha(new byte[1]), null),
                new TransferInit("b", null, "../missing.txt", null, 1, sha(new byte[1]), null));
        List<TransferInitResponse> r = fx.framesOf(fx.sentByFoot, TransferInitResponse.class);
        assertThat(r).extracting(TransferInitResponse::error).doesNotContainNull();
        assertThat(r.get(0).error().replace("'../exists.txt'", "P")).isEqualTo(r.get(1).error().replace("'../missing.txt'", "P"))
                .contains("leads outside");
    }

    @Test
    void targetThatIsADirectoryIsRefused() throws Exception {
        Files.createDirectories(fx.footProject.resolve("dir"));
        refusedAtInit(new TransferInit("x", null, "dir", null, 1, sha(new byte[1]), null), "Path 'dir' is a directory");
    }

    @Test
    void fileOverTheDownloadLimitIsRefused() throws Exception {
        fx.close();
        start(new TransferFixture(TransferSettings.builder().maxDownloadSize(100).build()));
        refusedAtInit(new TransferInit("x", null, "t.bin", null, 101, sha(new byte[1]), null), "exceeds size limit");
    }

    @Test
    void fileLargerThanTheUsableSpaceIsRefused() throws Exception {
        fx.close();
        start(new TransferFixture(Configuration.unix().toBuilder().setMaxSize(1024 * 1024).build(),
                TransferSettings.defaults(), 16));
        refusedAtInit(new TransferInit("x", null, "t.bin", null, 2 * 1024 * 1024, sha(new byte[1]), null),
                "disk_full: the receiving disk has ");
    }

    @Test
    void refusedTransferCreatesNoDirectories() throws Exception {
        fx.close();
        start(new TransferFixture(Configuration.unix().toBuilder().setMaxSize(1024 * 1024).build(),
                TransferSettings.defaults(), 16));
        refusedAtInit(new TransferInit("x", null, "new/deep/t.bin", null, 2 * 1024 * 1024, sha(new byte[1]), null),
                "disk_full: the receiving disk has ");
        assertThat(fx.footProject.resolve("new")).doesNotExist();
    }

    @Test
    void invalidModeIsRefused() throws Exception {
        refusedAtInit(new TransferInit("x", null, "t.bin", null, 1, sha(new byte[1]), new TransferAttrs("rwx", null)),
                "invalid attrs");
    }

    @Test
    void invalidMtimeIsRefused() throws Exception {
        refusedAtInit(new TransferInit("x", null, "t.bin", null, 1, sha(new byte[1]),
                new TransferAttrs(null, "yesterday")), "invalid attrs");
    }

    private void failsMidStream(String errorStart, TransferInit init, TransferChunk... chunks) throws Exception {
        send(init);
        assertThat(initResponse().ok()).isTrue();
        assertThat(fx.stagingFiles()).hasSize(1);
        send((Object[]) chunks);
        TransferComplete c = complete();
        assertThat(c.ok()).isFalse();
        assertThat(c.error()).startsWith(errorStart);
        assertThat(fx.stagingFiles()).isEmpty();
        send(new TransferFinish(init.transferId(), false, null));
        assertTargetUntouchedAndClean();
    }

    @Test
    void chunkWithASkippedSeqFailsTheTransfer() throws Exception {
        byte[] d = new byte[2000];
        failsMidStream("chunk out of order", new TransferInit("s", null, "t.bin", null, 2000, sha(d), null),
                new TransferChunk("s", 0, new byte[1000], false), new TransferChunk("s", 2, new byte[1000], true));
    }

    @Test
    void chunkWithARepeatedSeqFailsTheTransfer() throws Exception {
        byte[] d = new byte[2000];
        failsMidStream("chunk out of order", new TransferInit("s", null, "t.bin", null, 2000, sha(d), null),
                new TransferChunk("s", 0, new byte[1000], false), new TransferChunk("s", 0, new byte[1000], false));
    }

    @Test
    void chunkLargerThanTheChunkSizeFailsTheTransfer() throws Exception {
        byte[] d = new byte[1025];
        failsMidStream("chunk of 1025 bytes exceeds", new TransferInit("s", null, "t.bin", null, 1025, sha(d), null),
                new TransferChunk("s", 0, d, true));
    }

    @Test
    void moreBytesThanTheTotalSizeFailsTheTransfer() throws Exception {
        failsMidStream("more bytes than", new TransferInit("s", null, "t.bin", null, 10, sha(new byte[10]), null),
                new TransferChunk("s", 0, new byte[8], false), new TransferChunk("s", 1, new byte[8], false));
    }

    @Test
    void lastChunkBeforeTheTotalSizeFailsTheTransfer() throws Exception {
        failsMidStream("last chunk arrived after 8 of 10", new TransferInit("s", null, "t.bin", null, 10,
                sha(new byte[10]), null), new TransferChunk("s", 0, new byte[8], true));
    }

    @Test
    void diskFullMidStreamFailsEarlyAndDeletesThePartialFile() throws Exception {
        fx.close();
        start(new TransferFixture(Configuration.unix().toBuilder().setMaxSize(1024 * 1024).setBlockSize(4096).build(),
                TransferSettings.builder().chunkSize(64 * 1024).build(), 16));
        byte[] data = TransferFixture.randomBytes(400 * 1024, 9);
        send(new TransferInit("full", null, "t.bin", null, data.length, sha(data), null));
        assertThat(initResponse().ok()).isTrue();
        // Another writer fills the disk after the space check.
        long free = Files.getFileStore(fx.footProject).getUsableSpace();
        Files.write(fx.fs.getPath("/filler"), new byte[(int) (free - 100 * 1024)]);
        for (int i = 0; i < 7; i++) {
            int from = i * 64 * 1024;
            int to = Math.min(data.length, from + 64 * 1024);
            fx.pair.left().send(new TransferChunk("full", i, Arrays.copyOfRange(data, from, to), to == data.length));
        }
        fx.deliverAll();
        TransferComplete c = complete();
        assertThat(c.ok()).isFalse();
        assertThat(c.error()).startsWith("disk_full: the receiving disk is full after ");
        assertThat(c.bytesWritten()).isLessThan(data.length);
        assertThat(fx.stagingFiles()).isEmpty();
        send(new TransferFinish("full", false, null));
        assertTargetUntouchedAndClean();
    }

    @Test
    void finishWhileReceivingAbortsAndDeletesTheStagingFile() throws Exception {
        send(new TransferInit("a", null, "t.bin", null, 10, sha(new byte[10]), null),
                new TransferChunk("a", 0, new byte[5], false));
        assertThat(fx.stagingFiles()).hasSize(1);
        send(new TransferFinish("a", false, null));
        assertThat(fx.stagingFiles()).isEmpty();
        assertTargetUntouchedAndClean();
    }

    @Test
    void missingParentDirectoriesAreCreated() throws Exception {
        byte[] d = "x".getBytes();
        send(new TransferInit("p", null, "deep/er/x.txt", null, 1, sha(d), null), new TransferChunk("p", 0, d, true),
                new TransferFinish("p", true, null));
        assertThat(Files.readString(fx.footProject.resolve("deep/er/x.txt"))).isEqualTo("x");
        fx.assertClean();
    }
}
