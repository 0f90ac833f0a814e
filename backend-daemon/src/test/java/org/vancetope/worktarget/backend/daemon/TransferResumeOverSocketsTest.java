package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
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
 * {@code transfer.resume} over real loopback connections: the daemon's connection is dropped in the middle
 * of a {@code client_file_download} or a {@code client_file_upload}; the daemon reconnects, the call takes
 * the transfer up on the new connection and the file arrives identical, in one tool call. When the daemon does not come back within
 * the wait, the call fails {@code offline} with a {@code resumeId}, and a later call with it completes the
 * file. Without the capability the drop fails the call as the base protocol does, nothing kept.
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

    private void start(Set<TransferCapability> daemonOffers, Duration reconnectWait) throws Exception {
        start(daemonOffers, reconnectWait, Duration.ofMillis(20));
    }

    /** Server and daemon; the daemon reconnects after {@code reconnectAfter} when its connection drops. */
    private void start(Set<TransferCapability> daemonOffers, Duration reconnectWait, Duration reconnectAfter)
            throws Exception {
        server = new TransferServerFixture(base, TransferSettings.defaults().toBuilder().reconnectWait(reconnectWait).build(),
                TransferListener.NONE);
        work = server.work;
        transfers = server.transfers;
        t = server.t;
        dispatcher = server.dispatcher;
        footRoot = Files.createDirectories(base.resolve("foot"));
        TransferListener cutter = new TransferListener() {
            @Override
            public void onProgress(String transferId, Role role, long bytesDone, long totalBytes) {
                if (cutAt.get() >= 0 && bytesDone >= cutAt.get() && cutDone.compareAndSet(false, true)) {
                    ((ServerConnection) t.server.peers().find(BOX).orElseThrow()).frames().channel().close();
                }
            }
        };
        clientTransfers = ClientTransfers.create(FootTargetResolver.at(footRoot), new TransferScope("acme", "proj"),
                TransferSettings.builder().capabilities(daemonOffers).build(), cutter);
        daemon = t.started(t.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                .reconnectBackoff(reconnectAfter, reconnectAfter.multipliedBy(2))
                .frameExtension(clientTransfers.extension()));
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
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
}
