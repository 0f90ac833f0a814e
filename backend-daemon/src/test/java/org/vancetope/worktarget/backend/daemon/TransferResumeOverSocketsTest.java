package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.daemon.internal.ServerConnection;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.testfixtures.Await;
import org.vancetope.worktarget.testfixtures.FileTrees;

/**
 * {@code transfer.resume} over real loopback connections: the daemon's connection is dropped in the middle
 * of a {@code client_file_download} or a {@code client_file_upload}; the daemon reconnects, the call takes
 * the transfer up on the new connection and the file arrives identical, in one tool call. When the daemon does not come back within
 * the wait, the call fails {@code offline} with a {@code resumeId}, and a later call with it completes the
 * file. Without the capability the drop fails the call as the base protocol does, nothing kept.
 *
 * <p>The same for {@code client_dir_download} and {@code client_dir_upload}, the drop in the middle of the
 * tree's second file: the call resumes that file on the new connection and sends the rest there, the tree
 * arrives identical; when the daemon stays away, the files not in place fail {@code offline} and nothing of
 * the interrupted one is kept (the daemon drops what it kept of a download when it is back).
 */
class TransferResumeOverSocketsTest {
    /**
     * Large against what loopback buffers between the two ends (socket buffers of a few MiB each way, and
     * the receiver's bounded queue of frames): at a cut after {@link #CUT}, most of the file is still unsent,
     * so the cut always interrupts the transfer, however slowly the receiving side runs.
     */
    private static final int SIZE = 32 * 1024 * 1024;
    /** Where the cut comes: after the receiver wrote this many bytes. */
    private static final int CUT = SIZE / 8;
    private static final DaemonKey BOX = new DaemonKey("acme", "proj", "box");

    @TempDir
    Path base;

    private TransferServerFixture server;
    private WorkspaceBackend work;
    private ServerTransfers transfers;
    private ClientTransfers clientTransfers;
    private TestServer t;
    private WorkTargetDispatcher dispatcher;
    private Path footRoot;
    private WorkTargetClient daemon;
    /** The bytes the daemon holds at which the server drops its connection, once; -1 for never. */
    private final AtomicLong cutAt = new AtomicLong(-1);
    private final AtomicBoolean cutDone = new AtomicBoolean();
    /** The transfer the drop interrupted. */
    private volatile String cutFile;
    /** What each receiver had written of each file, event by event, by transfer id (both sides). */
    private final Map<String, List<Long>> received = new ConcurrentHashMap<>();
    /** The server's progress over a directory: bytes done, event by event, and the last files done. */
    private final List<Long> treeBytes = Collections.synchronizedList(new ArrayList<>());
    private volatile int treeFilesDone = -1;

    private void start(Set<TransferCapability> daemonOffers, Duration reconnectWait) throws Exception {
        start(daemonOffers, reconnectWait, Duration.ofMillis(20));
    }

    /** Server and daemon; the daemon reconnects after {@code reconnectAfter} when its connection drops. */
    private void start(Set<TransferCapability> daemonOffers, Duration reconnectWait, Duration reconnectAfter)
            throws Exception {
        server = new TransferServerFixture(base, TransferSettings.defaults().toBuilder().reconnectWait(reconnectWait).build(),
                recorder(null));
        work = server.work;
        transfers = server.transfers;
        t = server.t;
        dispatcher = server.dispatcher;
        footRoot = Files.createDirectories(base.resolve("foot"));
        TransferListener cutter = recorder((transferId, bytesDone) -> {
            if (cutAt.get() >= 0 && bytesDone >= cutAt.get() && cutDone.compareAndSet(false, true)) {
                cutFile = transferId;
                ((ServerConnection) t.server.peers().find(BOX).orElseThrow()).frames().channel().close();
            }
        });
        clientTransfers = ClientTransfers.create(FootTargetResolver.at(footRoot), new TransferScope("acme", "proj"),
                TransferSettings.builder().capabilities(daemonOffers).build(), cutter);
        daemon = t.started(t.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                .reconnectBackoff(reconnectAfter, reconnectAfter.multipliedBy(2))
                .frameExtension(clientTransfers.extension()));
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
    }

    /**
     * Records what receivers wrote and, on the server ({@code onProgress} null), its progress over a
     * directory; on the daemon, {@code onProgress} sees every progress event (it drops the connection).
     */
    private TransferListener recorder(BiConsumer<String, Long> onProgress) {
        return new TransferListener() {
            @Override
            public void onProgress(String transferId, Role role, long bytesDone, long totalBytes) {
                if (role == Role.RECEIVER) {
                    received.computeIfAbsent(transferId, id -> Collections.synchronizedList(new ArrayList<>()))
                            .add(bytesDone);
                }
                if (onProgress != null) {
                    onProgress.accept(transferId, bytesDone);
                }
            }

            @Override
            public void onDirectoryProgress(String transferId, Role role, int filesDone, int filesTotal,
                                            long bytesDone, long totalBytes) {
                if (onProgress == null) {
                    treeBytes.add(bytesDone);
                    treeFilesDone = filesDone;
                }
            }
        };
    }

    @AfterEach
    void stop() {
        if (t != null) {
            server.close();
            clientTransfers.close();
        }
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static String sha256(byte[] b) throws Exception {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    private String dirWith(String name, byte[] content) throws Exception {
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Files.write(work.findRoot("acme", "proj", dirName).orElseThrow().resolve(name), content);
        return dirName;
    }

    private List<Path> reservedEntries() throws Exception {
        return reservedEntries(footRoot);
    }

    private static List<Path> reservedEntries(Path under) throws Exception {
        try (Stream<Path> s = Files.walk(under)) {
            return s.filter(p -> p.getFileName().toString().startsWith(".wt-")).toList();
        }
    }

    /** An empty RootDir to upload into. */
    private String uploadDir() throws Exception {
        return (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
    }

    private Path rootDir(String dirName) {
        return work.findRoot("acme", "proj", dirName).orElseThrow();
    }

    /** A file in the daemon's workspace, where uploads are read from. */
    private void daemonFile(String name, byte[] content) throws Exception {
        Path p = footRoot.resolve("acme/proj").resolve(name);
        Files.createDirectories(p.getParent());
        Files.write(p, content);
    }

    private void assertNothingPendingOnTheServer() {
        Await.until("no upload pending", () -> transfers.endpoint().pendingReceives() == 0
                && transfers.endpoint().keptReceives() == 0 && clientTransfers.endpoint().pendingSends() == 0);
    }

    private void assertNothingPending() {
        Await.until("no transfer pending", () -> transfers.endpoint().pendingSends() == 0
                && clientTransfers.endpoint().pendingReceives() == 0 && clientTransfers.endpoint().keptReceives() == 0);
    }

    @Test
    void aDropInTheMiddleIsBridgedWithinTheCallAndTheFileArrivesIdentical() throws Exception {
        start(EnumSet.allOf(TransferCapability.class), Duration.ofSeconds(30));
        byte[] content = bytes(SIZE, 1);
        String dirName = dirWith("big.bin", content);
        cutAt.set(CUT);

        Map<String, Object> r = dispatcher.invoke("p-1", "client_file_download",
                Map.of("dirName", dirName, "remotePath", "big.bin", "localPath", "in/big.bin"));

        assertThat(r).as(r.toString()).containsEntry("ok", true).containsEntry("hash", sha256(content));
        assertThat(cutDone).as("the connection was dropped").isTrue();
        assertThat(Files.readAllBytes(footRoot.resolve("acme/proj/in/big.bin"))).isEqualTo(content);
        assertThat(reservedEntries()).isEmpty();
        assertNothingPending();
    }

    @Test
    void aDaemonThatStaysAwayFailsTheCallWithAResumeIdThatALaterCallCompletes() throws Exception {
        // the daemon stays away after the cut: it would reconnect only after an hour, far beyond the wait
        start(EnumSet.allOf(TransferCapability.class), Duration.ofMillis(300), Duration.ofHours(1));
        byte[] content = bytes(SIZE, 2);
        String dirName = dirWith("big.bin", content);
        cutAt.set(CUT);

        Map<String, Object> failed = dispatcher.invoke("p-1", "client_file_download",
                Map.of("dirName", dirName, "remotePath", "big.bin", "localPath", "in/big.bin"));

        assertThat(failed).containsEntry("ok", false).containsEntry("code", "offline").containsKey("resumeId");
        Await.until("the daemon kept the transfer", () -> clientTransfers.endpoint().keptReceives() == 1);
        assertThat(Files.exists(footRoot.resolve("acme/proj/in/big.bin"))).isFalse();

        daemon.close();     // the same daemon process starts its connection again
        daemon = t.started(t.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                .frameExtension(clientTransfers.extension()));
        Map<String, Object> resumed = dispatcher.invoke("p-1", "client_file_download", Map.of("dirName", dirName,
                "remotePath", "big.bin", "localPath", "in/big.bin", "resumeId", failed.get("resumeId")));

        assertThat(resumed).as(resumed.toString()).containsEntry("ok", true).containsEntry("hash", sha256(content));
        assertThat(Files.readAllBytes(footRoot.resolve("acme/proj/in/big.bin"))).isEqualTo(content);
        assertThat(reservedEntries()).isEmpty();
        assertNothingPending();
    }

    @Test
    void aDropInTheMiddleOfAnUploadIsBridgedWithinTheCallAndTheFileArrivesIdentical() throws Exception {
        start(EnumSet.allOf(TransferCapability.class), Duration.ofSeconds(30));
        byte[] content = bytes(SIZE, 4);
        daemonFile("out/big.bin", content);
        String dirName = uploadDir();
        cutAt.set(CUT);

        Map<String, Object> r = dispatcher.invoke("p-1", "client_file_upload",
                Map.of("localPath", "out/big.bin", "dirName", dirName, "remotePath", "in/big.bin"));

        assertThat(r).as(r.toString()).containsEntry("ok", true).containsEntry("hash", sha256(content));
        assertThat(cutDone).as("the connection was dropped").isTrue();
        assertThat(Files.readAllBytes(rootDir(dirName).resolve("in/big.bin"))).isEqualTo(content);
        assertThat(reservedEntries(rootDir(dirName))).isEmpty();
        assertNothingPendingOnTheServer();
    }

    @Test
    void aDaemonThatStaysAwayFailsTheUploadWithAResumeIdThatALaterCallCompletes() throws Exception {
        start(EnumSet.allOf(TransferCapability.class), Duration.ofMillis(300), Duration.ofHours(1));
        byte[] content = bytes(SIZE, 5);
        daemonFile("out/big.bin", content);
        String dirName = uploadDir();
        cutAt.set(CUT);

        Map<String, Object> failed = dispatcher.invoke("p-1", "client_file_upload",
                Map.of("localPath", "out/big.bin", "dirName", dirName, "remotePath", "in/big.bin"));

        assertThat(failed).as(failed.toString()).containsEntry("ok", false).containsEntry("code", "offline")
                .containsKey("resumeId");
        assertThat(transfers.endpoint().keptReceives()).as("the server kept the upload").isEqualTo(1);
        assertThat(reservedEntries(rootDir(dirName))).as("staging file and sidecar").hasSize(2);
        assertThat(Files.exists(rootDir(dirName).resolve("in/big.bin"))).isFalse();

        daemon.close();     // the same daemon process starts its connection again
        daemon = t.started(t.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                .frameExtension(clientTransfers.extension()));
        Map<String, Object> resumed = dispatcher.invoke("p-1", "client_file_upload", Map.of("localPath", "out/big.bin",
                "dirName", dirName, "remotePath", "in/big.bin", "resumeId", failed.get("resumeId")));

        assertThat(resumed).as(resumed.toString()).containsEntry("ok", true).containsEntry("hash", sha256(content));
        assertThat(Files.readAllBytes(rootDir(dirName).resolve("in/big.bin"))).isEqualTo(content);
        assertThat(reservedEntries(rootDir(dirName))).isEmpty();
        assertNothingPendingOnTheServer();
    }

    @Test
    void anUploadResumeIdTheServerDoesNotHoldFailsTheCallNotFound() throws Exception {
        start(EnumSet.allOf(TransferCapability.class), Duration.ofSeconds(30));
        daemonFile("out/small.bin", bytes(1000, 6));
        String dirName = uploadDir();

        Map<String, Object> r = dispatcher.invoke("p-1", "client_file_upload", Map.of("localPath", "out/small.bin",
                "dirName", dirName, "remotePath", "in/small.bin", "resumeId", "no-such-upload"));

        assertThat(r).as(r.toString()).containsEntry("ok", false).containsEntry("code", "not_found")
                .doesNotContainKey("resumeId");
        assertThat(Files.exists(rootDir(dirName).resolve("in/small.bin"))).isFalse();
        assertNothingPendingOnTheServer();
    }

    @Test
    void withoutTheCapabilityADroppedUploadFailsTheCallAndTheServerKeepsNothing() throws Exception {
        start(EnumSet.of(TransferCapability.BINARY, TransferCapability.HASH_TRAILER), Duration.ofSeconds(30));
        byte[] content = bytes(SIZE, 7);
        daemonFile("out/big.bin", content);
        String dirName = uploadDir();
        cutAt.set(CUT);

        Map<String, Object> r = dispatcher.invoke("p-1", "client_file_upload",
                Map.of("localPath", "out/big.bin", "dirName", dirName, "remotePath", "in/big.bin"));

        assertThat(r).as(r.toString()).containsEntry("ok", false).containsEntry("code", "offline")
                .doesNotContainKey("resumeId");
        assertNothingPendingOnTheServer();
        assertThat(reservedEntries(rootDir(dirName))).isEmpty();
        assertThat(Files.exists(rootDir(dirName).resolve("in/big.bin"))).isFalse();
    }

    @Test
    void withoutTheCapabilityADropFailsTheCallAndNothingIsKept() throws Exception {
        start(EnumSet.of(TransferCapability.BINARY, TransferCapability.HASH_TRAILER), Duration.ofSeconds(30));
        byte[] content = bytes(SIZE, 3);
        String dirName = dirWith("big.bin", content);
        cutAt.set(CUT);

        Map<String, Object> r = dispatcher.invoke("p-1", "client_file_download",
                Map.of("dirName", dirName, "remotePath", "big.bin", "localPath", "in/big.bin"));

        assertThat(r).containsEntry("ok", false).containsEntry("code", "offline").doesNotContainKey("resumeId");
        Await.until("the daemon's end of the connection handled", () -> clientTransfers.endpoint().pendingReceives() == 0);
        assertThat(clientTransfers.endpoint().keptReceives()).isZero();
        assertThat(reservedEntries()).isEmpty();
        assertThat(Files.exists(footRoot.resolve("acme/proj/in/big.bin"))).isFalse();
    }

    // ---------------------------------------------------------------- directories

    /** The files of the directory tests in the order the transfer sends them; only the second one is large. */
    private static final List<String> TREE = List.of("a.bin", "b.bin", "c.bin", "sub/d.bin");
    /** Every entry's status when the drop came in b.bin and the files after it could not be sent. */
    private static final Map<String, String> ONLY_A_LANDED = Map.of("a.bin", "written", "b.bin", "failed offline",
            "c.bin", "failed offline", "sub", "created", "sub/d.bin", "failed offline");

    /** The tree below {@code top}: a small file, a large second one ({@link #SIZE}), two small ones. */
    private static Map<String, byte[]> tree(Path top) throws Exception {
        Map<String, byte[]> files = Map.of("a.bin", bytes(64 * 1024, 11), "b.bin", bytes(SIZE, 12),
                "c.bin", bytes(200 * 1024, 13), "sub/d.bin", bytes(50 * 1024, 14));
        for (Map.Entry<String, byte[]> e : files.entrySet()) {
            Files.createDirectories(top.resolve(e.getKey()).getParent());
            Files.write(top.resolve(e.getKey()), e.getValue());
        }
        return files;
    }

    /** The SHA-256 listing the tree has when the given files of it landed. */
    private static Map<String, String> listingOf(Map<String, byte[]> files, List<String> landed) {
        Map<String, String> out = new TreeMap<>();
        landed.forEach(n -> out.put(n, FileTrees.sha256(files.get(n))));
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> statuses(Map<String, Object> result) {
        return ((List<Map<String, Object>>) result.get("entries")).stream().collect(Collectors.toMap(
                e -> (String) e.get("path"), e -> e.get("status") + (e.get("code") == null ? "" : " " + e.get("code")),
                (x, y) -> x, TreeMap::new));
    }

    /** A directory call whose connection was dropped in b.bin: its result, the tree, where the tree went. */
    private record Dropped(Map<String, Object> result, Map<String, byte[]> files, Path landedIn) {
    }

    /** {@code client_dir_download} of {@code tree} in a new RootDir to {@code got} on the daemon, dropped in b.bin. */
    private Dropped dirDownloadDropped() throws Exception {
        String dirName = uploadDir();
        Map<String, byte[]> files = tree(rootDir(dirName).resolve("tree"));
        cutAt.set(CUT);
        return new Dropped(dispatcher.invoke("p-1", "client_dir_download",
                Map.of("dirName", dirName, "remotePath", "tree", "localPath", "got")), files,
                footRoot.resolve("acme/proj/got"));
    }

    /** {@code client_dir_upload} of the daemon's {@code out} to {@code in} of a RootDir, dropped in b.bin. */
    private Dropped dirUploadDropped(String dirName) throws Exception {
        Map<String, byte[]> files = tree(footRoot.resolve("acme/proj/out"));
        cutAt.set(CUT);
        return new Dropped(dispatcher.invoke("p-1", "client_dir_upload",
                Map.of("localPath", "out", "dirName", dirName, "remotePath", "in")), files,
                rootDir(dirName).resolve("in"));
    }

    /**
     * The call bridged the drop: every file landed identical, the interrupted one taken up where it was cut
     * (what its receiver held never went back, as it would for a file sent again from its start), and the
     * server's progress over the tree went on to its end through the drop.
     */
    private void assertBridged(Dropped d) throws Exception {
        Map<String, Object> r = d.result();
        Map<String, byte[]> files = d.files();
        int total = files.values().stream().mapToInt(b -> b.length).sum();     // results hold an Integer when it fits
        assertThat(r).as(r.toString()).containsEntry("ok", true).containsEntry("filesWritten", TREE.size())
                .containsEntry("bytesWritten", total).doesNotContainKey("code");
        assertThat(FileTrees.sha256Listing(d.landedIn())).isEqualTo(listingOf(files, TREE));
        assertThat(cutDone).as("the connection was dropped").isTrue();
        List<Long> seen = received.get(cutFile);
        synchronized (seen) {
            assertThat(seen).as("what the interrupted file's receiver held").isSorted().last().isEqualTo((long) SIZE);
        }
        assertThat(treeBytes.get(treeBytes.size() - 1)).isEqualTo(total);
        assertThat(treeFilesDone).isEqualTo(TREE.size());
    }

    /** The drop failed the files not in place: only a.bin landed, and no resume id is handed out. */
    private static void assertOnlyTheFirstLanded(Dropped d) throws Exception {
        Map<String, Object> r = d.result();
        assertThat(r).as(r.toString()).containsEntry("ok", false).containsEntry("filesWritten", 1)
                .doesNotContainKey("resumeId");
        assertThat(statuses(r)).isEqualTo(ONLY_A_LANDED);
        assertThat(FileTrees.sha256Listing(d.landedIn())).isEqualTo(listingOf(d.files(), List.of("a.bin")));
    }

    /** Nothing pending, kept or waiting for its peer, on either side. */
    private void assertNothingPendingAnywhere() {
        Await.until("nothing pending", () -> transfers.endpoint().pendingSends() == 0
                && transfers.endpoint().pendingReceives() == 0 && transfers.endpoint().keptReceives() == 0
                && transfers.endpoint().pendingDirectories() == 0 && clientTransfers.endpoint().pendingSends() == 0
                && clientTransfers.endpoint().pendingReceives() == 0 && clientTransfers.endpoint().keptReceives() == 0);
    }

    @Test
    void aDirectoryDownloadDroppedInItsSecondFileIsBridgedAndTheTreeArrivesIdentical() throws Exception {
        start(EnumSet.allOf(TransferCapability.class), Duration.ofSeconds(30));
        Dropped d = dirDownloadDropped();

        assertBridged(d);
        assertThat(reservedEntries()).isEmpty();
        assertNothingPendingAnywhere();
    }

    @Test
    void aDirectoryUploadDroppedInItsSecondFileIsBridgedAndTheTreeArrivesIdentical() throws Exception {
        start(EnumSet.allOf(TransferCapability.class), Duration.ofSeconds(30));
        String dirName = uploadDir();

        Dropped d = dirUploadDropped(dirName);

        assertBridged(d);
        assertThat(reservedEntries(rootDir(dirName))).isEmpty();
        assertNothingPendingAnywhere();
    }

    @Test
    void aDirectoryDownloadWhoseDaemonStaysAwayFailsTheRestOfflineAndTheDaemonDropsWhatItKeptWhenItIsBack()
            throws Exception {
        start(EnumSet.allOf(TransferCapability.class), Duration.ofMillis(300), Duration.ofHours(1));
        Dropped d = dirDownloadDropped();

        assertOnlyTheFirstLanded(d);
        Await.until("the daemon kept the interrupted file", () -> clientTransfers.endpoint().keptReceives() == 1);
        daemon.close();     // the same daemon process comes back, after the call gave up
        daemon = t.started(t.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                .frameExtension(clientTransfers.extension()));
        Await.until("the daemon dropped what it kept", () -> clientTransfers.endpoint().keptReceives() == 0);
        assertThat(reservedEntries()).isEmpty();
        assertThat(FileTrees.sha256Listing(d.landedIn())).isEqualTo(listingOf(d.files(), List.of("a.bin")));
        assertNothingPendingAnywhere();
    }

    @Test
    void aDirectoryUploadWhoseDaemonStaysAwayFailsTheRestOfflineAndTheServerKeepsNothing() throws Exception {
        start(EnumSet.allOf(TransferCapability.class), Duration.ofMillis(300), Duration.ofHours(1));
        String dirName = uploadDir();

        Dropped d = dirUploadDropped(dirName);

        assertOnlyTheFirstLanded(d);
        assertThat(transfers.endpoint().keptReceives()).as("kept uploads on the server").isZero();
        assertThat(reservedEntries(rootDir(dirName))).isEmpty();
        assertNothingPendingAnywhere();
    }

    @Test
    void withoutTheCapabilityADroppedDirectoryDownloadFailsTheRestOfflineAndNothingIsKept() throws Exception {
        start(EnumSet.of(TransferCapability.BINARY, TransferCapability.HASH_TRAILER, TransferCapability.DIRECTORY),
                Duration.ofSeconds(30));
        Dropped d = dirDownloadDropped();

        assertOnlyTheFirstLanded(d);
        assertNothingPendingAnywhere();
        assertThat(reservedEntries()).isEmpty();
    }

    @Test
    void withoutTheCapabilityADroppedDirectoryUploadFailsTheRestOfflineAndNothingIsKept() throws Exception {
        start(EnumSet.of(TransferCapability.BINARY, TransferCapability.HASH_TRAILER, TransferCapability.DIRECTORY),
                Duration.ofSeconds(30));
        String dirName = uploadDir();

        Dropped d = dirUploadDropped(dirName);

        assertOnlyTheFirstLanded(d);
        assertNothingPendingAnywhere();
        assertThat(reservedEntries(rootDir(dirName))).isEmpty();
    }
}
