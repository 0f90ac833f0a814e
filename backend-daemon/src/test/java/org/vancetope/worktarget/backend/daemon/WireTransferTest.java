package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.testfixtures.Await;

/** client_file_upload / client_file_download over real loopback WebSockets, to a daemon and to a foot. */
class WireTransferTest {
    @TempDir
    Path base;

    private TransferServerFixture server;
    private WorkspaceBackend work;
    private ServerTransfers transfers;
    private TestServer t;
    private WorkTargetDispatcher dispatcher;
    private Path footRoot;
    private ClientTransfers clientTransfers;
    private final AtomicReference<Runnable> onFirstServerProgress = new AtomicReference<>();

    @BeforeEach
    void start() throws Exception {
        TransferListener listener = new TransferListener() {
            @Override
            public void onProgress(String transferId, Role role, long bytesDone, long totalBytes) {
                Runnable r = onFirstServerProgress.getAndSet(null);
                if (r != null) {
                    r.run();
                }
            }
        };
        // the base protocol's behaviour on a lost connection (transfer.resume keeps the transfer instead;
        // see TransferResumeOverSocketsTest and DaemonKillResumeTest)
        server = new TransferServerFixture(base, TransferSettings.defaults().toBuilder().capabilities(withoutResume()).build(),
                listener);
        work = server.work;
        transfers = server.transfers;
        t = server.t;
        dispatcher = server.dispatcher;
        footRoot = Files.createDirectories(base.resolve("foot"));
        clientTransfers = ClientTransfers.create(FootTargetResolver.at(footRoot), new TransferScope("acme", "proj"),
                TransferSettings.defaults(), TransferListener.NONE);
    }

    @AfterEach
    void stop() {
        server.close();
        clientTransfers.close();
    }

    private WorkTargetClient daemon() throws InterruptedException {
        return t.started(t.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                .frameExtension(clientTransfers.extension()));
    }

    private String ephemeralDirWith(String name, byte[] content) throws Exception {
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Files.write(work.findRoot("acme", "proj", dirName).orElseThrow().resolve(name), content);
        return dirName;
    }

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        new Random(42).nextBytes(b);
        return b;
    }

    private static String sha256(byte[] b) throws Exception {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    private List<Path> filesUnder(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).toList();
        }
    }

    @Test
    void aDownloadToTheDaemonLandsUnderItsFootRootWithTheSameHash() throws Exception {
        daemon();
        byte[] content = bytes(300_000);
        String dirName = ephemeralDirWith("report.bin", content);
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
        Map<String, Object> r = dispatcher.invoke("p-1", "client_file_download",
                Map.of("dirName", dirName, "remotePath", "report.bin", "localPath", "in/report.bin"));
        assertThat(r).containsEntry("ok", true).containsEntry("bytesWritten", 300_000)
                .containsEntry("hash", sha256(content));
        assertThat(Files.readAllBytes(footRoot.resolve("acme/proj/in/report.bin"))).isEqualTo(content);
    }

    @Test
    void anUploadFromTheDaemonLandsInTheRootDir() throws Exception {
        daemon();
        byte[] content = bytes(200_000);
        Files.createDirectories(footRoot.resolve("acme/proj"));
        Files.write(footRoot.resolve("acme/proj/local.bin"), content);
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
        Map<String, Object> r = dispatcher.invoke("p-1", "client_file_upload",
                Map.of("localPath", "local.bin", "dirName", dirName, "remotePath", "up/local.bin"));
        assertThat(r).containsEntry("ok", true).containsEntry("hash", sha256(content));
        assertThat(Files.readAllBytes(work.findRoot("acme", "proj", dirName).orElseThrow().resolve("up/local.bin")))
                .isEqualTo(content);
    }

    @Test
    void anUploadOfAMissingLocalFileFailsWithoutLeavingAnything() throws Exception {
        daemon();
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
        Map<String, Object> r = dispatcher.invoke("p-1", "client_file_upload",
                Map.of("localPath", "nope.bin", "dirName", dirName, "remotePath", "x.bin"));
        assertThat(r).containsEntry("ok", false);
        assertThat(filesUnder(work.findRoot("acme", "proj", dirName).orElseThrow())).isEmpty();
    }

    @Test
    void aMissingDirNameFailsBeforeAnythingIsSent() throws Exception {
        daemon();
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
        Map<String, Object> r = dispatcher.invoke("p-1", "client_file_download",
                Map.of("dirName", "no-such-dir", "remotePath", "a", "localPath", "a"));
        assertThat(r).containsEntry("ok", false);
        assertThat((String) r.get("error")).startsWith("dirName not found: 'no-such-dir'");
        assertThat(filesUnder(footRoot)).isEmpty();
    }

    @Test
    void aDownloadOverTheSessionsFootWorksForTheClientTarget() throws Exception {
        t.started(WorkTargetClient.builder().uri(t.uri()).token(TestServer.FOOT_TOKEN).foot("acme", "proj", "s-1")
                .tools(List.of(TestServer.echoRead("foot"))).frameExtension(clientTransfers.extension()));
        byte[] content = bytes(10_000);
        String dirName = ephemeralDirWith("a.bin", content);
        Map<String, Object> r = dispatcher.invoke("p-1", "client_file_download",
                Map.of("dirName", dirName, "remotePath", "a.bin", "localPath", "a.bin"));
        assertThat(r).containsEntry("ok", true);
        assertThat(Files.readAllBytes(footRoot.resolve("acme/proj/a.bin"))).isEqualTo(content);
    }

    @Test
    void aConnectionClosingMidTransferAbortsBothSidesAtOnceAndLeavesNoStagingFile() throws Exception {
        WorkTargetClient daemon = daemon();
        byte[] content = bytes(30_000_000);
        String dirName = ephemeralDirWith("big.bin", content);
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
        AtomicBoolean started = new AtomicBoolean();
        onFirstServerProgress.set(() -> {
            started.set(true);
            new Thread(daemon::close).start();
        });
        Map<String, Object> r = dispatcher.invoke("p-1", "client_file_download",
                Map.of("dirName", dirName, "remotePath", "big.bin", "localPath", "big.bin"));
        assertThat(started).isTrue();
        assertThat(r).containsEntry("ok", false);
        Await.until("no staging file is left on the daemon side", () -> {
            try {
                return filesUnder(footRoot).isEmpty();
            } catch (IOException | java.io.UncheckedIOException e) {
                return false;   // a staging file vanished while the walk looked at it: look again
            }
        });
    }

    @Test
    void aConnectionClosingMidUploadLeavesNoStagingFileInTheRootDir() throws Exception {
        WorkTargetClient daemon = daemon();
        Files.createDirectories(footRoot.resolve("acme/proj"));
        Files.write(footRoot.resolve("acme/proj/big.bin"), bytes(30_000_000));
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Path root = work.findRoot("acme", "proj", dirName).orElseThrow();
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
        onFirstServerProgress.set(() -> new Thread(daemon::close).start());
        Map<String, Object> r = dispatcher.invoke("p-1", "client_file_upload",
                Map.of("localPath", "big.bin", "dirName", dirName, "remotePath", "big.bin"));
        assertThat(r).containsEntry("ok", false);
        Await.until("no staging file is left in the RootDir", () -> {
            try {
                return filesUnder(root).isEmpty();
            } catch (IOException e) {
                return false;
            }
        });
    }

    private static java.util.Set<org.vancetope.worktarget.core.transfer.TransferCapability> withoutResume() {
        java.util.Set<org.vancetope.worktarget.core.transfer.TransferCapability> caps =
                java.util.EnumSet.allOf(org.vancetope.worktarget.core.transfer.TransferCapability.class);
        caps.remove(org.vancetope.worktarget.core.transfer.TransferCapability.RESUME);
        return caps;
    }
}
