package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.DirectoryEntryResult;
import org.vancetope.worktarget.core.transfer.DirectoryTransferResult;
import org.vancetope.worktarget.core.transfer.FileTransferTools;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferConnection;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * {@code client_dir_download} and {@code client_dir_upload} ({@link FileTransferTools}) over manual in-memory
 * connections that the test cuts at a chosen frame: the call bridges the cut when the Foot connects again
 * within {@code reconnectWait} (the file in flight resumed from what its receiver kept, or sent whole when
 * nothing of it was kept), gives the run up when it does not (the rest failed {@code offline}, nothing of
 * the interrupted file kept on either side), and fails as before without {@code transfer.resume}. The tool
 * call runs on its own thread; the test thread moves the frames.
 */
class DirectoryReconnectTest {
    private static final ToolContext CTX = new ToolContext("p1", "s1", "acme", "proj", "alice");
    private static final Set<TransferCapability> CAPS = EnumSet.of(TransferCapability.DIRECTORY,
            TransferCapability.RESUME, TransferCapability.HASH_TRAILER);
    /**
     * The files of the tree in the order the manifest lists them, and their sizes: only the third is larger
     * than {@link #CUT}, so a receiver holding that many bytes of a file is in the middle of the third.
     */
    private static final Map<String, Integer> SIZES = Map.of("a.bin", 100_000, "b.bin", 100_000,
            "c.bin", 1_000_000, "sub/d.bin", 50_000);
    /** Where the cuts in the middle of a file come: after the receiver wrote this many bytes of c.bin. */
    private static final int CUT = 300_000;
    private static final List<String> ORDER = List.of("a.bin", "b.bin", "c.bin", "sub/d.bin");
    /** Longer than any run of these tests: only the test ends a wait by connecting or by giving up. */
    private static final long PUMP_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    /** A harness whose Brain runs the directory tools on the Foot's latest connection. */
    private static final class Setup implements AutoCloseable {
        final ResumeHarness h;
        final AtomicReference<ResumeHarness.Link> current = new AtomicReference<>();
        final FileTransferTools tools;

        Setup(Set<TransferCapability> caps, Duration reconnectWait) throws IOException {
            h = new ResumeHarness(caps, TransferSettings.defaults().toBuilder().reconnectWait(reconnectWait).build());
            tools = new FileTransferTools(new RootDirTargetResolver((scope, dir) -> Optional.of(h.brainDir)),
                    ctx -> Optional.ofNullable(current.get()).filter(l -> !l.pair.isClosed()).map(l -> l.brainConn));
        }

        ResumeHarness.Link connect() {
            ResumeHarness.Link l = h.connect();
            current.set(l);
            return l;
        }

        CompletableFuture<DirectoryTransferResult> download() {
            return CompletableFuture.supplyAsync(() -> call(() -> tools.downloadDirectory(CTX,
                    ResumeHarness.UPLOAD_DIR, "tree", "got", false)));
        }

        CompletableFuture<DirectoryTransferResult> upload() {
            return CompletableFuture.supplyAsync(() -> call(() -> tools.uploadDirectory(CTX, "out",
                    ResumeHarness.UPLOAD_DIR, "in", false)));
        }

        @Override
        public void close() throws IOException {
            h.close();
        }
    }

    @FunctionalInterface
    private interface ToolCall {
        DirectoryTransferResult run() throws ToolException;
    }

    private static DirectoryTransferResult call(ToolCall c) {
        try {
            return c.run();
        } catch (ToolException e) {
            throw new CompletionException(e);
        }
    }

    /** Moves frames both ways, one at a time, until the condition holds (waiting while the call thread works). */
    private static void pump(ResumeHarness.Link l, BooleanSupplier until) {
        long limit = System.nanoTime() + PUMP_LIMIT_NANOS;
        while (!until.getAsBoolean()) {
            if (!l.pair.deliverNext(l.pair.left()) && !l.pair.deliverNext(l.pair.right())) {
                assertThat(System.nanoTime() - limit).as("nothing moved and the condition never held").isNegative();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
    }

    /** The tree, written under {@code top}: a small file, two larger ones, a small one in a sub-directory. */
    private static Map<String, byte[]> tree(Path top) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        int seed = 1;
        for (String name : ORDER) {
            byte[] b = TransferFixture.randomBytes(SIZES.get(name), seed++);
            Path p = top.resolve(name);
            Files.createDirectories(p.getParent());
            Files.write(p, b);
            files.put(name, b);
        }
        return files;
    }

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    /** Every regular file below a directory (relative, '/'-separated) with the SHA-256 of its content. */
    private static Map<String, String> listing(Path dir) throws Exception {
        Map<String, String> out = new TreeMap<>();
        if (!Files.exists(dir)) {
            return out;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                out.put(dir.relativize(p).toString(), sha256(Files.readAllBytes(p)));
            }
        }
        return out;
    }

    private static Map<String, String> hashes(Map<String, byte[]> files, List<String> names) throws Exception {
        Map<String, String> out = new TreeMap<>();
        for (String n : names) {
            out.put(n, sha256(files.get(n)));
        }
        return out;
    }

    private static Map<String, String> statuses(DirectoryTransferResult r) {
        return r.entries().stream().collect(Collectors.toMap(DirectoryEntryResult::path,
                e -> e.status().wire() + (e.code() == null ? "" : " " + e.code().wire()), (x, y) -> x, TreeMap::new));
    }

    private static DirectoryTransferResult finished(CompletableFuture<DirectoryTransferResult> call) {
        assertThat(call).as("the tool call ended").isDone();
        return call.join();
    }

    private static void assertWhole(DirectoryTransferResult r, Map<String, byte[]> files) {
        assertThat(r.ok()).as(r.toString()).isTrue();
        assertThat(r.filesWritten()).isEqualTo(ORDER.size());
        assertThat(r.bytesWritten()).isEqualTo(files.values().stream().mapToLong(b -> b.length).sum());
    }

    /** Nothing pending, kept or waiting for its peer on either side. */
    private static void assertNothingLeft(ResumeHarness h) {
        h.assertNothingPending();
        assertThat(h.brain.pendingDirectories()).as("brain directory transfers").isZero();
        assertThat(h.brain.keptReceives()).as("brain kept").isZero();
        assertThat(h.foot.keptReceives()).as("foot kept").isZero();
    }

    /** The transfer id of the file whose {@code transfer_init} names a target. */
    private static String idOf(ResumeHarness.Link l, String target) {
        return l.sentByBrain(TransferInit.class).stream().filter(i -> i.target().equals(target)).findFirst()
                .orElseThrow().transferId();
    }

    @Test
    void aDownloadCutInItsThirdFileResumesItOnTheNewConnectionAndTheTreeArrivesIdentical() throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofSeconds(30))) {
            Map<String, byte[]> files = tree(s.h.brainDir.resolve("tree"));
            ResumeHarness.Link first = s.connect();
            CompletableFuture<DirectoryTransferResult> call = s.download();
            pump(first, () -> s.h.footBytes.get() >= CUT);
            String cId = idOf(first, "got/c.bin");
            long kept = s.h.footBytes.get();
            first.cut();

            ResumeHarness.Link second = s.connect();
            pump(second, call::isDone);
            second.deliverAll();    // the last transfer_finish

            DirectoryTransferResult r = finished(call);
            assertWhole(r, files);
            assertThat(listing(s.h.footProject.resolve("got"))).isEqualTo(hashes(files, ORDER));
            long resent = second.chunksSent().stream().filter(c -> c.transferId().equals(cId))
                    .mapToLong(c -> c.bytes().length).sum();
            assertThat(resent).as("only the rest of c.bin is sent again").isEqualTo(SIZES.get("c.bin") - kept);
            assertThat(second.sentByBrain(TransferInit.class)).extracting(TransferInit::target)
                    .as("the files after it start on the new connection").containsExactly("got/sub/d.bin");
            assertThat(s.h.reservedEntries()).isEmpty();
            assertNothingLeft(s.h);
        }
    }

    @Test
    void anUploadCutInItsThirdFileResumesItOnTheNewConnectionAndTheTreeArrivesIdentical() throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofSeconds(30))) {
            Map<String, byte[]> files = tree(s.h.footProject.resolve("out"));
            ResumeHarness.Link first = s.connect();
            CompletableFuture<DirectoryTransferResult> call = s.upload();
            pump(first, () -> s.h.brainBytes.get() >= CUT);
            String cId = first.sentByFoot(TransferInit.class).stream().filter(i -> i.target().equals("in/c.bin"))
                    .findFirst().orElseThrow().transferId();
            long kept = s.h.brainBytes.get();
            first.cut();

            ResumeHarness.Link second = s.connect();
            pump(second, call::isDone);
            second.deliverAll();    // the last transfer_finish

            DirectoryTransferResult r = finished(call);
            assertWhole(r, files);
            assertThat(listing(s.h.brainDir.resolve("in"))).isEqualTo(hashes(files, ORDER));
            long resent = second.sentByFoot(TransferChunk.class).stream().filter(c -> c.transferId().equals(cId))
                    .mapToLong(c -> c.bytes().length).sum();
            assertThat(resent).as("only the rest of c.bin is sent again").isEqualTo(SIZES.get("c.bin") - kept);
            assertThat(s.h.brainReservedEntries()).isEmpty();
            assertThat(s.h.reservedEntries()).isEmpty();
            assertNothingLeft(s.h);
        }
    }

    @Test
    void aDownloadCutBeforeItsNextFileGotGoingSendsThatFileWholeOnTheNewConnection() throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofSeconds(30))) {
            Map<String, byte[]> files = tree(s.h.brainDir.resolve("tree"));
            ResumeHarness.Link first = s.connect();
            CompletableFuture<DirectoryTransferResult> call = s.download();
            // a.bin's transfer_complete reached the Brain: b.bin's transfer_init is on its way, not delivered
            pump(first, () -> first.sentByFoot(TransferComplete.class).size() == 1);
            first.cut();

            ResumeHarness.Link second = s.connect();
            pump(second, call::isDone);
            second.deliverAll();    // the last transfer_finish

            DirectoryTransferResult r = finished(call);
            assertWhole(r, files);
            assertThat(listing(s.h.footProject.resolve("got"))).isEqualTo(hashes(files, ORDER));
            assertThat(second.sentByBrain(TransferInit.class)).extracting(TransferInit::target)
                    .as("nothing of b.bin was kept: it is sent whole, then the rest")
                    .containsExactly("got/b.bin", "got/c.bin", "got/sub/d.bin");
            assertThat(s.h.reservedEntries()).isEmpty();
            assertNothingLeft(s.h);
        }
    }

    @Test
    void anUploadCutBeforeItsNextFileGotGoingRequestsThatFileAgainOnTheNewConnection() throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofSeconds(30))) {
            Map<String, byte[]> files = tree(s.h.footProject.resolve("out"));
            ResumeHarness.Link first = s.connect();
            CompletableFuture<DirectoryTransferResult> call = s.upload();
            // a.bin's transfer_finish reached the Brain: the request of b.bin is on its way, not delivered
            pump(first, () -> first.sentByFoot(TransferFinish.class).size() == 1);
            first.cut();

            ResumeHarness.Link second = s.connect();
            pump(second, call::isDone);
            second.deliverAll();    // the last transfer_finish

            DirectoryTransferResult r = finished(call);
            assertWhole(r, files);
            assertThat(listing(s.h.brainDir.resolve("in"))).isEqualTo(hashes(files, ORDER));
            assertThat(second.sentByFoot(TransferInit.class)).extracting(TransferInit::target)
                    .containsExactly("in/b.bin", "in/c.bin", "in/sub/d.bin");
            assertThat(s.h.brainReservedEntries()).isEmpty();
            assertNothingLeft(s.h);
        }
    }

    @Test
    void aDownloadWhoseFootStaysAwayFailsTheRestOfflineAndTheFootDropsWhatItKeptOnItsNextConnection()
            throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofMillis(200))) {
            Map<String, byte[]> files = tree(s.h.brainDir.resolve("tree"));
            ResumeHarness.Link first = s.connect();
            CompletableFuture<DirectoryTransferResult> call = s.download();
            pump(first, () -> s.h.footBytes.get() >= CUT);
            String cId = idOf(first, "got/c.bin");
            first.cut();

            DirectoryTransferResult r = call.join();     // nobody connects: the wait ends
            assertThat(r.ok()).isFalse();
            assertThat(statuses(r)).isEqualTo(Map.of("a.bin", "written", "b.bin", "written",
                    "c.bin", "failed offline", "sub", "created", "sub/d.bin", "failed offline"));
            assertThat(r.entries()).allSatisfy(e -> assertThat(String.valueOf(e.error())).doesNotContain("resumeId"));
            assertThat(s.h.foot.keptReceives()).as("the Foot kept c.bin until it hears of it").isEqualTo(1);

            ResumeHarness.Link later = s.connect();
            later.deliverAll();

            assertThat(later.sentByBrain(TransferFinish.class)).filteredOn(f -> !f.ok())
                    .extracting(TransferFinish::transferId).as("c.bin is given up").containsExactly(cId);
            assertThat(s.h.reservedEntries()).as("nothing of c.bin left on the Foot").isEmpty();
            assertThat(listing(s.h.footProject.resolve("got"))).isEqualTo(hashes(files, List.of("a.bin", "b.bin")));
            assertNothingLeft(s.h);
        }
    }

    @Test
    void aFootRestartedWhileAwayDeletesTheKeptFilesOfAGivenUpDownloadOnItsNextConnection() throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofMillis(200))) {
            tree(s.h.brainDir.resolve("tree"));
            ResumeHarness.Link first = s.connect();
            CompletableFuture<DirectoryTransferResult> call = s.download();
            pump(first, () -> s.h.footBytes.get() >= CUT);
            first.cut();
            assertThat(call.join().ok()).isFalse();
            s.h.restartFoot();
            assertThat(s.h.reservedEntries()).as("staging file and sidecar on disk").hasSize(2);

            ResumeHarness.Link later = s.connect();
            later.deliverAll();

            assertThat(s.h.reservedEntries()).isEmpty();
            assertNothingLeft(s.h);
        }
    }

    @Test
    void anUploadWhoseFootStaysAwayFailsTheRestOfflineAndTheBrainKeepsNothing() throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofMillis(200))) {
            Map<String, byte[]> files = tree(s.h.footProject.resolve("out"));
            ResumeHarness.Link first = s.connect();
            CompletableFuture<DirectoryTransferResult> call = s.upload();
            pump(first, () -> s.h.brainBytes.get() >= CUT);
            first.cut();

            DirectoryTransferResult r = call.join();

            assertThat(r.ok()).isFalse();
            assertThat(statuses(r)).isEqualTo(Map.of("a.bin", "written", "b.bin", "written",
                    "c.bin", "failed offline", "sub", "created", "sub/d.bin", "failed offline"));
            assertThat(s.h.brainReservedEntries()).as("nothing of c.bin kept on the Brain").isEmpty();
            assertThat(listing(s.h.brainDir.resolve("in"))).isEqualTo(hashes(files, List.of("a.bin", "b.bin")));
            assertNothingLeft(s.h);
        }
    }

    @Test
    void withoutResumeACutDownloadFailsTheRestOfflineEvenWhenTheFootComesBackAndNothingIsKept() throws Exception {
        try (Setup s = new Setup(EnumSet.of(TransferCapability.DIRECTORY), Duration.ofSeconds(30))) {
            Map<String, byte[]> files = tree(s.h.brainDir.resolve("tree"));
            ResumeHarness.Link first = s.connect();
            CompletableFuture<DirectoryTransferResult> call = s.download();
            pump(first, () -> s.h.footBytes.get() >= CUT);
            first.cut();
            ResumeHarness.Link second = s.connect();     // back at once: still nothing is taken up on it
            pump(second, call::isDone);
            second.deliverAll();    // the last transfer_finish

            DirectoryTransferResult r = finished(call);
            assertThat(second.sentByBrain(TransferFrame.class)).as("nothing sent on the new connection").isEmpty();

            assertThat(statuses(r)).isEqualTo(Map.of("a.bin", "written", "b.bin", "written",
                    "c.bin", "failed offline", "sub", "created", "sub/d.bin", "failed offline"));
            assertThat(r.entries()).filteredOn(e -> e.code() != null).extracting(DirectoryEntryResult::code)
                    .containsOnly(ErrorCode.OFFLINE);
            assertThat(s.h.reservedEntries()).isEmpty();
            assertThat(listing(s.h.footProject.resolve("got"))).isEqualTo(hashes(files, List.of("a.bin", "b.bin")));
            assertNothingLeft(s.h);
        }
    }
}
