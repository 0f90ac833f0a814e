package org.vancetope.worktarget.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.DirectoryEntryResult;
import org.vancetope.worktarget.core.transfer.DirectoryTransferResult;
import org.vancetope.worktarget.core.transfer.FileTransferTools;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferChunk;
import org.vancetope.worktarget.core.transfer.TransferComplete;
import org.vancetope.worktarget.core.transfer.TransferFinish;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferInit;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.FileTrees;

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
    /** How long a pump goes on while nothing moves and its condition does not hold: a hang fails the test. */
    private static final long PUMP_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(60);

    /**
     * A harness whose Brain runs the directory tools on the Foot's latest connection: the call runs on its own
     * thread on a {@link #first} connection, which the test cuts; the Foot may connect again ({@link #second}).
     */
    private static final class Setup implements AutoCloseable {
        final ResumeHarness h;
        final AtomicReference<ResumeHarness.Link> current = new AtomicReference<>();
        final FileTransferTools tools;
        Map<String, byte[]> files;
        /** Where the tree goes: {@code got} on the Foot for a download, {@code in} of the RootDir for an upload. */
        Path landedIn;
        ResumeHarness.Link first;
        ResumeHarness.Link second;
        CompletableFuture<DirectoryTransferResult> call;
        /** The thread the tool call runs on. */
        Thread caller;

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

        /** Starts {@code client_dir_download} of the tree (in the RootDir's {@code tree}) to {@code got}. */
        Setup download() throws IOException {
            files = tree(h.brainDir.resolve("tree"));
            landedIn = h.footProject.resolve("got");
            return start(() -> tools.downloadDirectory(CTX, ResumeHarness.UPLOAD_DIR, "tree", "got", false));
        }

        /** Starts {@code client_dir_upload} of the tree (the Foot's {@code out}) to {@code in} of the RootDir. */
        Setup upload() throws IOException {
            files = tree(h.footProject.resolve("out"));
            landedIn = h.brainDir.resolve("in");
            return start(() -> tools.uploadDirectory(CTX, "out", ResumeHarness.UPLOAD_DIR, "in", false));
        }

        private Setup start(ToolCall c) {
            first = connect();
            call = new CompletableFuture<>();
            caller = new Thread(() -> {
                try {
                    call.complete(c.run());
                } catch (ToolException | RuntimeException e) {
                    call.completeExceptionally(e);
                }
            }, "tool-call");
            caller.start();
            return this;
        }

        /** Moves the first connection's frames until the condition holds, then cuts it. */
        Setup cutWhen(BooleanSupplier condition) {
            pump(first, condition);
            first.cut();
            return this;
        }

        /** The Foot connects again; the call ends on the new connection. */
        DirectoryTransferResult reconnect() {
            second = connect();
            pump(second, call::isDone);
            second.deliverAll();    // the last transfer_finish
            assertThat(call).as("the tool call ended").isDone();
            return call.join();
        }

        /** The SHA-256 listing of where the tree goes. */
        Map<String, String> landed() throws IOException {
            return FileTrees.sha256Listing(landedIn);
        }

        /** The SHA-256 listing the tree has when the given files of it landed. */
        Map<String, String> listingOf(List<String> names) {
            Map<String, String> out = new TreeMap<>();
            names.forEach(n -> out.put(n, FileTrees.sha256(files.get(n))));
            return out;
        }

        /** Every entry's outcome is that of an uninterrupted transfer, and the tree arrived identical. */
        void assertWhole(DirectoryTransferResult r) throws IOException {
            assertThat(r.ok()).as(r.toString()).isTrue();
            assertThat(r.filesWritten()).isEqualTo(ORDER.size());
            assertThat(r.bytesWritten()).isEqualTo(files.values().stream().mapToLong(b -> b.length).sum());
            assertThat(landed()).isEqualTo(listingOf(ORDER));
        }

        /** The cut failed c.bin and the files after it; a.bin and b.bin landed. */
        void assertTheRestFailed(DirectoryTransferResult r) throws IOException {
            assertThat(r.ok()).isFalse();
            assertThat(statuses(r)).isEqualTo(Map.of("a.bin", "written", "b.bin", "written",
                    "c.bin", "failed offline", "sub", "created", "sub/d.bin", "failed offline"));
            assertThat(landed()).isEqualTo(listingOf(List.of("a.bin", "b.bin")));
        }

        /** Nothing pending, kept, staged or waiting for its peer on either side. */
        void assertNothingLeft() throws IOException {
            h.assertNothingPending();
            assertThat(h.brain.pendingDirectories()).as("brain directory transfers").isZero();
            assertThat(h.brain.keptReceives()).as("brain kept").isZero();
            assertThat(h.foot.keptReceives()).as("foot kept").isZero();
            assertThat(h.reservedEntries()).as("reserved entries on the Foot").isEmpty();
            assertThat(h.brainReservedEntries()).as("reserved entries on the Brain").isEmpty();
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

    /** The tree, written under {@code top}: two small files, a larger one, a small one in a sub-directory. */
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

    private static Map<String, String> statuses(DirectoryTransferResult r) {
        return r.entries().stream().collect(Collectors.toMap(DirectoryEntryResult::path,
                e -> e.status().wire() + (e.code() == null ? "" : " " + e.code().wire()), (x, y) -> x, TreeMap::new));
    }

    /** The transfer id of the file whose {@code transfer_init} names a target, on a connection. */
    private static String idOf(List<TransferInit> inits, String target) {
        return inits.stream().filter(i -> i.target().equals(target)).findFirst().orElseThrow().transferId();
    }

    /** The bytes of a file's chunks. */
    private static long bytesOf(List<TransferChunk> chunks, String transferId) {
        return chunks.stream().filter(c -> c.transferId().equals(transferId)).mapToLong(c -> c.bytes().length).sum();
    }

    @Test
    void aDownloadCutInItsThirdFileResumesItOnTheNewConnectionAndTheTreeArrivesIdentical() throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofSeconds(30))) {
            s.download().cutWhen(() -> s.h.footBytes.get() >= CUT);
            long kept = s.h.footBytes.get();

            DirectoryTransferResult r = s.reconnect();

            s.assertWhole(r);
            String cId = idOf(s.first.sentByBrain(TransferInit.class), "got/c.bin");
            assertThat(bytesOf(s.second.chunksSent(), cId)).as("only the rest of c.bin is sent again")
                    .isEqualTo(SIZES.get("c.bin") - kept);
            assertThat(s.second.sentByBrain(TransferInit.class)).extracting(TransferInit::target)
                    .as("the files after it start on the new connection").containsExactly("got/sub/d.bin");
            s.assertNothingLeft();
        }
    }

    @Test
    void anUploadCutInItsThirdFileResumesItOnTheNewConnectionAndTheTreeArrivesIdentical() throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofSeconds(30))) {
            s.upload().cutWhen(() -> s.h.brainBytes.get() >= CUT);
            long kept = s.h.brainBytes.get();

            DirectoryTransferResult r = s.reconnect();

            s.assertWhole(r);
            String cId = idOf(s.first.sentByFoot(TransferInit.class), "in/c.bin");
            assertThat(bytesOf(s.second.sentByFoot(TransferChunk.class), cId)).as("only the rest of c.bin is sent again")
                    .isEqualTo(SIZES.get("c.bin") - kept);
            s.assertNothingLeft();
        }
    }

    @Test
    void aDownloadCutBeforeItsNextFileGotGoingSendsThatFileWholeOnTheNewConnection() throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofSeconds(30))) {
            // a.bin's transfer_complete reached the Brain: b.bin's transfer_init is on its way, not delivered
            s.download().cutWhen(() -> s.first.sentByFoot(TransferComplete.class).size() == 1);

            DirectoryTransferResult r = s.reconnect();

            s.assertWhole(r);
            assertThat(s.second.sentByBrain(TransferInit.class)).extracting(TransferInit::target)
                    .as("nothing of b.bin was kept: it is sent whole, then the rest")
                    .containsExactly("got/b.bin", "got/c.bin", "got/sub/d.bin");
            s.assertNothingLeft();
        }
    }

    @Test
    void anUploadCutBeforeItsNextFileGotGoingRequestsThatFileAgainOnTheNewConnection() throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofSeconds(30))) {
            // a.bin's transfer_finish reached the Brain: the request of b.bin is on its way, not delivered
            s.upload().cutWhen(() -> s.first.sentByFoot(TransferFinish.class).size() == 1);

            DirectoryTransferResult r = s.reconnect();

            s.assertWhole(r);
            assertThat(s.second.sentByFoot(TransferInit.class)).extracting(TransferInit::target)
                    .containsExactly("in/b.bin", "in/c.bin", "in/sub/d.bin");
            s.assertNothingLeft();
        }
    }

    @Test
    void aDownloadWhoseFootStaysAwayFailsTheRestOfflineAndTheFootDropsWhatItKeptOnItsNextConnection()
            throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofMillis(200))) {
            s.download().cutWhen(() -> s.h.footBytes.get() >= CUT);

            DirectoryTransferResult r = s.call.join();     // nobody connects: the wait ends

            s.assertTheRestFailed(r);
            assertThat(r.entries()).allSatisfy(e -> assertThat(String.valueOf(e.error())).doesNotContain("resumeId"));
            assertThat(s.h.foot.keptReceives()).as("the Foot kept c.bin until it hears of it").isEqualTo(1);
            ResumeHarness.Link later = s.connect();
            later.deliverAll();
            assertThat(later.sentByBrain(TransferFinish.class)).filteredOn(f -> !f.ok())
                    .extracting(TransferFinish::transferId).as("c.bin is given up")
                    .containsExactly(idOf(s.first.sentByBrain(TransferInit.class), "got/c.bin"));
            assertThat(s.landed()).isEqualTo(s.listingOf(List.of("a.bin", "b.bin")));
            s.assertNothingLeft();
        }
    }

    @Test
    void aFootRestartedWhileAwayDeletesTheKeptFilesOfAGivenUpDownloadOnItsNextConnection() throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofMillis(200))) {
            s.download().cutWhen(() -> s.h.footBytes.get() >= CUT);
            s.assertTheRestFailed(s.call.join());
            s.h.restartFoot();
            assertThat(s.h.reservedEntries()).as("staging file and sidecar on disk").hasSize(2);

            s.connect().deliverAll();

            s.assertNothingLeft();
        }
    }

    @Test
    void anUploadWhoseFootStaysAwayFailsTheRestOfflineAndTheBrainKeepsNothing() throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofMillis(200))) {
            s.upload().cutWhen(() -> s.h.brainBytes.get() >= CUT);

            DirectoryTransferResult r = s.call.join();

            s.assertTheRestFailed(r);
            s.assertNothingLeft();
        }
    }

    @Test
    void aCallInterruptedWhileItWaitsForTheFootStopsWaitingTheRestFailsOfflineAndTheBrainKeepsNothing()
            throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofSeconds(30))) {
            s.upload().cutWhen(() -> s.h.brainBytes.get() >= CUT);
            pump(s.first, () -> s.h.brain.pendingDirectories() == 1);     // the run waits for the Foot

            s.caller.interrupt();     // e.g. the server shuts down: the call answers what it knows now

            s.assertTheRestFailed(s.call.get(30, TimeUnit.SECONDS));
            assertThat(s.landed()).isEqualTo(s.listingOf(List.of("a.bin", "b.bin")));
            s.assertNothingLeft();
        }
    }

    @Test
    void anUploadWhoseEndpointClosesWhileItWaitsForTheFootSaysWhatLandedNotThatItIsUnknown() throws Exception {
        try (Setup s = new Setup(CAPS, Duration.ofSeconds(30))) {
            s.upload().cutWhen(() -> s.h.brainBytes.get() >= CUT);
            pump(s.first, () -> s.h.brain.pendingDirectories() == 1);     // the run waits for the Foot

            s.h.brain.close();          // the server shuts down: its transfers close first
            s.caller.interrupt();       // then the calls still waiting are interrupted

            DirectoryTransferResult r = s.call.get(30, TimeUnit.SECONDS);
            assertThat(r.code()).as(r.toString()).isNotEqualTo(ErrorCode.NOT_FOUND);
            s.assertTheRestFailed(r);
            assertThat(s.landed()).isEqualTo(s.listingOf(List.of("a.bin", "b.bin")));
        }
    }

    @Test
    void withoutResumeACutDownloadFailsTheRestOfflineEvenWhenTheFootComesBackAndNothingIsKept() throws Exception {
        try (Setup s = new Setup(EnumSet.of(TransferCapability.DIRECTORY), Duration.ofSeconds(30))) {
            s.download().cutWhen(() -> s.h.footBytes.get() >= CUT);

            DirectoryTransferResult r = s.reconnect();     // back at once: still nothing is taken up on it

            s.assertTheRestFailed(r);
            assertThat(s.second.sentByBrain(TransferFrame.class)).as("nothing sent on the new connection").isEmpty();
            s.assertNothingLeft();
        }
    }
}
