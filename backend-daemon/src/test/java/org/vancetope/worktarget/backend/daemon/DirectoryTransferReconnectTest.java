package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
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

/**
 * {@code client_dir_download} and {@code client_dir_upload} over real loopback connections whose daemon
 * connection is dropped in the middle of the tree's second file. When the daemon comes back within
 * {@code reconnectWait}, the call resumes that file on the new connection from what its receiver kept and
 * sends the rest there: the tree arrives identical, in one tool call. When it stays away, the call fails
 * {@code offline} for the files not in place and nothing of the interrupted file is kept. Without
 * {@code transfer.resume} the drop fails the remaining files as the base protocol does.
 */
class DirectoryTransferReconnectTest {
    /** The second file of the tree, the one the drop interrupts: large against loopback buffers. */
    private static final int BIG = 32 * 1024 * 1024;
    /** Where the drop comes: after this many bytes of the second file went through the daemon. */
    private static final int CUT = BIG / 8;
    /** The files of the tree, in the order the manifest lists (and the transfer sends) them. */
    private static final List<String> FILES = List.of("a.bin", "b.bin", "c.bin", "sub/d.bin");
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
    /** The files as the daemon saw them go, by transfer id, in order; the drop comes in the second one. */
    private final List<String> daemonFiles = new ArrayList<>();
    private final AtomicBoolean cutDone = new AtomicBoolean();
    private volatile String cutFile;
    /** What each receiver had written of each file, event by event, by transfer id (both sides). */
    private final Map<String, List<Long>> received = new ConcurrentHashMap<>();
    /** The server's progress over the whole tree: bytes done, event by event, and the last files done/total. */
    private final List<Long> treeBytes = new ArrayList<>();
    private volatile int treeFilesDone = -1;
    private volatile int treeFilesTotal = -1;

    /** Server and daemon; the daemon reconnects after {@code reconnectAfter} when its connection drops. */
    private void start(Set<TransferCapability> daemonOffers, Duration reconnectWait, Duration reconnectAfter)
            throws Exception {
        server = new TransferServerFixture(base, TransferSettings.defaults().toBuilder().reconnectWait(reconnectWait)
                .build(), recorder(true));
        work = server.work;
        transfers = server.transfers;
        t = server.t;
        dispatcher = server.dispatcher;
        footRoot = Files.createDirectories(base.resolve("foot"));
        clientTransfers = ClientTransfers.create(FootTargetResolver.at(footRoot), new TransferScope("acme", "proj"),
                TransferSettings.builder().capabilities(daemonOffers).build(), recorder(false));
        daemon = t.started(t.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                .reconnectBackoff(reconnectAfter, reconnectAfter.multipliedBy(2))
                .frameExtension(clientTransfers.extension()));
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
    }

    /**
     * Records what receivers wrote and the server's progress over the tree; on the daemon's side also drops
     * the daemon's connection (from the server's end) once {@link #CUT} bytes of the second file went through.
     */
    private TransferListener recorder(boolean serverSide) {
        return new TransferListener() {
            @Override
            public void onProgress(String transferId, Role role, long bytesDone, long totalBytes) {
                if (role == Role.RECEIVER) {
                    received.computeIfAbsent(transferId, id -> new ArrayList<>());
                    List<Long> seen = received.get(transferId);
                    synchronized (seen) {
                        seen.add(bytesDone);
                    }
                }
                if (serverSide) {
                    return;
                }
                int index;
                synchronized (daemonFiles) {
                    if (!daemonFiles.contains(transferId)) {
                        daemonFiles.add(transferId);
                    }
                    index = daemonFiles.indexOf(transferId);
                }
                if (index == 1 && bytesDone >= CUT && cutDone.compareAndSet(false, true)) {
                    cutFile = transferId;
                    ((ServerConnection) t.server.peers().find(BOX).orElseThrow()).frames().channel().close();
                }
            }

            @Override
            public void onDirectoryProgress(String transferId, Role role, int filesDone, int filesTotal,
                                            long bytesDone, long totalBytes) {
                if (serverSide) {
                    synchronized (treeBytes) {
                        treeBytes.add(bytesDone);
                    }
                    treeFilesDone = filesDone;
                    treeFilesTotal = filesTotal;
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

    /** The tree: three small files around a large second one, and a sub-directory. */
    private static Map<String, byte[]> tree(Path top) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        files.put("a.bin", bytes(64 * 1024, 1));
        files.put("b.bin", bytes(BIG, 2));
        files.put("c.bin", bytes(200 * 1024, 3));
        files.put("sub/d.bin", bytes(50 * 1024, 4));
        for (Map.Entry<String, byte[]> e : files.entrySet()) {
            Path p = top.resolve(e.getKey());
            Files.createDirectories(p.getParent());
            Files.write(p, e.getValue());
        }
        return files;
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    /** Every regular file below a directory, relative and '/'-separated, with the SHA-256 of its content. */
    private static Map<String, String> listing(Path dir) throws Exception {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                out.put(dir.relativize(p).toString().replace('\\', '/'), sha256(Files.readAllBytes(p)));
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

    private static List<Path> reservedEntries(Path under) throws IOException {
        try (Stream<Path> s = Files.walk(under)) {
            return s.filter(p -> p.getFileName().toString().startsWith(".wt-")).toList();
        }
    }

    private String emptyRootDir() throws Exception {
        return (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
    }

    private Path rootDir(String dirName) {
        return work.findRoot("acme", "proj", dirName).orElseThrow();
    }

    private Path daemonProject() throws IOException {
        return Files.createDirectories(footRoot.resolve("acme/proj"));
    }

    /** The status of every entry of a directory tool result, by path. */
    @SuppressWarnings("unchecked")
    private static Map<String, String> statuses(Map<String, Object> result) {
        return ((List<Map<String, Object>>) result.get("entries")).stream().collect(Collectors.toMap(
                e -> (String) e.get("path"), e -> e.get("status") + (e.get("code") == null ? "" : " " + e.get("code")),
                (x, y) -> x, TreeMap::new));
    }

    /** Nothing pending or kept on either side: no file transfer, no directory transfer, no kept staging. */
    private void assertNothingPending() {
        Await.until("nothing pending", () -> transfers.endpoint().pendingSends() == 0
                && transfers.endpoint().pendingReceives() == 0 && transfers.endpoint().keptReceives() == 0
                && transfers.endpoint().pendingDirectories() == 0
                && clientTransfers.endpoint().pendingSends() == 0 && clientTransfers.endpoint().pendingReceives() == 0
                && clientTransfers.endpoint().keptReceives() == 0);
    }

    /**
     * The interrupted file was taken up where it was cut: what its receiver held never went back (a file
     * sent again from its start would have started over from its first chunk), and the drop came within it.
     */
    private void assertResumedWhereItWasCut() {
        assertThat(cutDone).as("the connection was dropped").isTrue();
        List<Long> seen = received.get(cutFile);
        assertThat(seen).as("the interrupted file's receiver progress").isNotNull();
        synchronized (seen) {
            assertThat(seen).isSorted();
            assertThat(seen.get(seen.size() - 1)).isEqualTo(BIG);
        }
    }

    /**
     * The server's progress over the tree went on over the whole set, through the drop, to its end (a sender's
     * count may step back by what was in flight when the connection dropped, so it is not checked for order).
     */
    private void assertTreeProgressWentOn(long total) {
        synchronized (treeBytes) {
            assertThat(treeBytes.get(treeBytes.size() - 1)).isEqualTo(total);
        }
        assertThat(treeFilesDone).isEqualTo(FILES.size());
        assertThat(treeFilesTotal).isEqualTo(FILES.size());
    }

    private static long total(Map<String, byte[]> files) {
        return files.values().stream().mapToLong(b -> b.length).sum();
    }

    @Test
    void aDownloadCutInItsSecondFileIsBridgedAndTheTreeArrivesIdentical() throws Exception {
        start(EnumSet.allOf(TransferCapability.class), Duration.ofSeconds(30), Duration.ofMillis(20));
        String dirName = emptyRootDir();
        Map<String, byte[]> files = tree(rootDir(dirName).resolve("tree"));

        Map<String, Object> r = dispatcher.invoke("p-1", "client_dir_download",
                Map.of("dirName", dirName, "remotePath", "tree", "localPath", "got"));

        assertThat(r).as(r.toString()).containsEntry("ok", true).containsEntry("filesWritten", FILES.size())
                .containsEntry("bytesWritten", total(files)).doesNotContainKey("code");
        assertThat(listing(daemonProject().resolve("got"))).isEqualTo(hashes(files, FILES));
        assertResumedWhereItWasCut();
        assertTreeProgressWentOn(total(files));
        assertThat(reservedEntries(footRoot)).isEmpty();
        assertNothingPending();
    }

    @Test
    void anUploadCutInItsSecondFileIsBridgedAndTheTreeArrivesIdentical() throws Exception {
        start(EnumSet.allOf(TransferCapability.class), Duration.ofSeconds(30), Duration.ofMillis(20));
        Map<String, byte[]> files = tree(daemonProject().resolve("out"));
        String dirName = emptyRootDir();

        Map<String, Object> r = dispatcher.invoke("p-1", "client_dir_upload",
                Map.of("localPath", "out", "dirName", dirName, "remotePath", "in"));

        assertThat(r).as(r.toString()).containsEntry("ok", true).containsEntry("filesWritten", FILES.size())
                .containsEntry("bytesWritten", total(files)).doesNotContainKey("code");
        assertThat(listing(rootDir(dirName).resolve("in"))).isEqualTo(hashes(files, FILES));
        assertResumedWhereItWasCut();
        assertTreeProgressWentOn(total(files));
        assertThat(reservedEntries(rootDir(dirName))).isEmpty();
        assertNothingPending();
    }

    @Test
    void aDownloadWhoseDaemonStaysAwayFailsTheRestOfflineAndTheDaemonDropsWhatItKeptWhenItIsBack() throws Exception {
        // the daemon would reconnect only after an hour, far beyond the wait
        start(EnumSet.allOf(TransferCapability.class), Duration.ofMillis(300), Duration.ofHours(1));
        String dirName = emptyRootDir();
        Map<String, byte[]> files = tree(rootDir(dirName).resolve("tree"));

        Map<String, Object> r = dispatcher.invoke("p-1", "client_dir_download",
                Map.of("dirName", dirName, "remotePath", "tree", "localPath", "got"));

        assertThat(r).as(r.toString()).containsEntry("ok", false).containsEntry("filesWritten", 1)
                .doesNotContainKey("resumeId");
        assertThat(statuses(r)).isEqualTo(Map.of("a.bin", "written", "b.bin", "failed offline",
                "c.bin", "failed offline", "sub", "created", "sub/d.bin", "failed offline"));
        assertThat(listing(daemonProject().resolve("got"))).isEqualTo(hashes(files, List.of("a.bin")));
        assertThat(cutDone).isTrue();
        Await.until("the daemon kept the interrupted file", () -> clientTransfers.endpoint().keptReceives() == 1);

        daemon.close();     // the same daemon process comes back, after the call gave up
        daemon = t.started(t.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                .frameExtension(clientTransfers.extension()));

        Await.until("the daemon dropped what it kept", () -> clientTransfers.endpoint().keptReceives() == 0);
        assertThat(reservedEntries(footRoot)).isEmpty();
        assertThat(listing(daemonProject().resolve("got"))).isEqualTo(hashes(files, List.of("a.bin")));
        assertNothingPending();
    }

    @Test
    void anUploadWhoseDaemonStaysAwayFailsTheRestOfflineAndTheServerKeepsNothing() throws Exception {
        start(EnumSet.allOf(TransferCapability.class), Duration.ofMillis(300), Duration.ofHours(1));
        Map<String, byte[]> files = tree(daemonProject().resolve("out"));
        String dirName = emptyRootDir();

        Map<String, Object> r = dispatcher.invoke("p-1", "client_dir_upload",
                Map.of("localPath", "out", "dirName", dirName, "remotePath", "in"));

        assertThat(r).as(r.toString()).containsEntry("ok", false).containsEntry("filesWritten", 1)
                .doesNotContainKey("resumeId");
        assertThat(statuses(r)).isEqualTo(Map.of("a.bin", "written", "b.bin", "failed offline",
                "c.bin", "failed offline", "sub", "created", "sub/d.bin", "failed offline"));
        assertThat(cutDone).isTrue();
        assertThat(transfers.endpoint().keptReceives()).as("kept uploads on the server").isZero();
        assertThat(reservedEntries(rootDir(dirName))).isEmpty();
        assertThat(listing(rootDir(dirName).resolve("in"))).isEqualTo(hashes(files, List.of("a.bin")));
        assertNothingPending();
    }

    @Test
    void withoutResumeADroppedDownloadFailsTheRestOfflineAndNothingIsKept() throws Exception {
        start(EnumSet.complementOf(EnumSet.of(TransferCapability.RESUME)), Duration.ofSeconds(30), Duration.ofMillis(20));
        String dirName = emptyRootDir();
        Map<String, byte[]> files = tree(rootDir(dirName).resolve("tree"));

        Map<String, Object> r = dispatcher.invoke("p-1", "client_dir_download",
                Map.of("dirName", dirName, "remotePath", "tree", "localPath", "got"));

        assertThat(r).as(r.toString()).containsEntry("ok", false).containsEntry("filesWritten", 1);
        assertThat(statuses(r)).isEqualTo(Map.of("a.bin", "written", "b.bin", "failed offline",
                "c.bin", "failed offline", "sub", "created", "sub/d.bin", "failed offline"));
        assertThat(cutDone).isTrue();
        assertNothingPending();
        assertThat(reservedEntries(footRoot)).isEmpty();
        assertThat(listing(daemonProject().resolve("got"))).isEqualTo(hashes(files, List.of("a.bin")));
    }

    @Test
    void withoutResumeADroppedUploadFailsTheRestOfflineAndNothingIsKept() throws Exception {
        start(EnumSet.complementOf(EnumSet.of(TransferCapability.RESUME)), Duration.ofSeconds(30), Duration.ofMillis(20));
        Map<String, byte[]> files = tree(daemonProject().resolve("out"));
        String dirName = emptyRootDir();

        Map<String, Object> r = dispatcher.invoke("p-1", "client_dir_upload",
                Map.of("localPath", "out", "dirName", dirName, "remotePath", "in"));

        assertThat(r).as(r.toString()).containsEntry("ok", false).containsEntry("filesWritten", 1);
        assertThat(statuses(r)).isEqualTo(Map.of("a.bin", "written", "b.bin", "failed offline",
                "c.bin", "failed offline", "sub", "created", "sub/d.bin", "failed offline"));
        assertThat(cutDone).isTrue();
        assertNothingPending();
        assertThat(reservedEntries(rootDir(dirName))).isEmpty();
        assertThat(listing(rootDir(dirName).resolve("in"))).isEqualTo(hashes(files, List.of("a.bin")));
    }
}
