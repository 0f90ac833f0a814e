package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * {@code transfer.resume} across a crash of a real {@code daemon} child JVM, killed with SIGKILL in the
 * middle of a transfer. A download: the daemon is the receiver; a new {@code daemon} process on the same
 * work directory connects, rebuilds the transfer from the staging file and sidecar the dead one left
 * (re-hashing the kept prefix), and the one tool call, which waited for the daemon to come back, ends with
 * the file identical. An upload: the daemon is the sender and the server keeps what arrived; the new
 * process, which knows nothing of the upload, is asked to resume it and sends only the rest.
 */
class DaemonKillResumeTest {
    private static final String TOKEN = "kill-resume-token";
    private static final String TENANT = "acme";
    private static final String PROJECT = "proj";
    private static final String DAEMON = "box";
    private static final String PROCESS = "p-1";
    private static final int SIZE = 16 * 1024 * 1024;

    @TempDir
    Path base;

    private final List<ChildJvm> children = new ArrayList<>();
    private WorkspaceBackend work;
    private ServerTransfers transfers;
    private WorkTargetServer server;
    private WorkTargetDispatcher dispatcher;
    /** The server's sender stops here (its progress listener waits) until the test lets it go on. */
    private final CountDownLatch goOn = new CountDownLatch(1);
    private final CountDownLatch paused = new CountDownLatch(1);

    @AfterEach
    void stop() {
        goOn.countDown();
        children.forEach(ChildJvm::close);
        if (server != null) {
            server.close();
        }
        if (transfers != null) {
            transfers.close();
        }
        if (work != null) {
            work.close();
        }
    }

    /** The server's side of the transfer pauses once a third of the file went through it. */
    private void startServer(TransferListener.Role pausing) throws IOException {
        work = WorkspaceBackend.builder().workspaceRoot(base.resolve("workspace")).build();
        TransferListener pauseAtAThird = new TransferListener() {
            @Override
            public void onProgress(String transferId, Role role, long bytesDone, long totalBytes) {
                if (role == pausing && bytesDone >= SIZE / 3 && paused.getCount() > 0) {
                    paused.countDown();
                    try {
                        goOn.await(ChildJvm.WAIT.toSeconds(), TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        };
        transfers = ServerTransfers.create(
                new RootDirTargetResolver((s, dir) -> work.findRoot(s.tenant(), s.project(), dir)),
                TransferSettings.defaults().toBuilder().reconnectWait(ChildJvm.WAIT).build(), pauseAtAThird);
        server = WorkTargetServer.builder().host("127.0.0.1").port(0)
                .authenticator(TokenAuthenticator.builder()
                        .token(TOKEN, new AuthPrincipal(DAEMON, TENANT, Set.of(PROJECT), null)).build())
                .transfers(transfers).build().start();
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process(PROCESS).tenant(TENANT).project(PROJECT).session("s-1").user("alice").add();
        WorkTargetDispatcher.Builder db = WorkTargetDispatcher.builder().processStore(store).backend(work)
                .peers(server.peers());
        transfers.tools(work.ephemeralDirs()).forEach(db::hostTool);
        dispatcher = db.build();
    }

    private ChildJvm startDaemon(Path workdir, String name) throws IOException {
        ChildJvm daemon = ChildJvm.start(name, base.resolve(name + ".log"), List.of("daemon",
                "--connect", "ws://127.0.0.1:" + server.port() + "/worktarget/v1", "--token", TOKEN,
                "--tenant", TENANT, "--project", PROJECT, "--name", DAEMON, "--workdir", workdir.toString()));
        children.add(daemon);
        DaemonKey key = new DaemonKey(TENANT, PROJECT, DAEMON);
        Await.until(name + " connected", () -> {
            if (!daemon.isAlive()) {
                throw new AssertionError(daemon + " exited before it connected; its log:\n" + daemon.log());
            }
            return TestServer.online(server, key);
        });
        return daemon;
    }

    private static List<Path> kept(Path workdir) throws IOException {
        try (Stream<Path> s = Files.list(workdir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(".wt-r-")).toList();
        }
    }

    private static long keptBytes(Path workdir) throws IOException {
        long n = 0;
        for (Path p : kept(workdir)) {
            if (p.getFileName().toString().endsWith(".part")) {
                n += Files.size(p);
            }
        }
        return n;
    }

    @Test
    void aDaemonKilledMidTransferIsRestartedAndTheDownloadResumesFromWhatItKept() throws Exception {
        startServer(TransferListener.Role.SENDER);
        Path workdir = Files.createDirectories(base.resolve("daemon-workdir"));
        ChildJvm first = startDaemon(workdir, "daemon-1");
        dispatcher.invoke(PROCESS, "work_target_set", Map.of("kind", "DAEMON", "targetName", DAEMON));
        byte[] content = new byte[SIZE];
        new Random(42).nextBytes(content);
        String dirName = (String) dispatcher.invoke(PROCESS, "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Files.write(work.findRoot(TENANT, PROJECT, dirName).orElseThrow().resolve("big.bin"), content);

        CompletableFuture<Map<String, Object>> download = CompletableFuture.supplyAsync(() -> {
            try {
                return dispatcher.invoke(PROCESS, "client_file_download",
                        Map.of("dirName", dirName, "remotePath", "big.bin", "localPath", "in/big.bin"));
            } catch (ToolException e) {
                throw new CompletionException(e);
            }
        });
        assertThat(paused.await(ChildJvm.WAIT.toSeconds(), TimeUnit.SECONDS)).as("the sender reached a third").isTrue();
        Await.until("the daemon wrote part of the file", () -> {
            try {
                return keptBytes(workdir) > 0;
            } catch (IOException e) {
                return false;
            }
        });
        first.kill();
        long keptAtKill = keptBytes(workdir);
        assertThat(kept(workdir)).as("staging file and sidecar outlive the killed daemon").hasSize(2);
        goOn.countDown();

        startDaemon(workdir, "daemon-2");
        Map<String, Object> r = download.get(ChildJvm.WAIT.toSeconds() * 2, TimeUnit.SECONDS);

        assertThat(r).as(r.toString()).containsEntry("ok", true).containsEntry("hash", sha256(content));
        assertThat(keptAtKill).isGreaterThan(0).isLessThan(SIZE);
        assertThat(Files.readAllBytes(workdir.resolve("in/big.bin"))).isEqualTo(content);
        assertThat(kept(workdir)).as("nothing kept after success").isEmpty();
        Await.until("no transfer pending on the server", () -> transfers.endpoint().pendingSends() == 0);
    }

    @Test
    void aDaemonKilledMidUploadIsRestartedAndTheUploadResumesFromWhatTheServerKept() throws Exception {
        startServer(TransferListener.Role.RECEIVER);
        Path workdir = Files.createDirectories(base.resolve("daemon-workdir"));
        ChildJvm first = startDaemon(workdir, "daemon-1");
        dispatcher.invoke(PROCESS, "work_target_set", Map.of("kind", "DAEMON", "targetName", DAEMON));
        byte[] content = new byte[SIZE];
        new Random(43).nextBytes(content);
        Files.write(Files.createDirectories(workdir.resolve("out")).resolve("big.bin"), content);
        String dirName = (String) dispatcher.invoke(PROCESS, "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Path rootDir = work.findRoot(TENANT, PROJECT, dirName).orElseThrow();

        CompletableFuture<Map<String, Object>> upload = CompletableFuture.supplyAsync(() -> {
            try {
                return dispatcher.invoke(PROCESS, "client_file_upload",
                        Map.of("localPath", "out/big.bin", "dirName", dirName, "remotePath", "in/big.bin"));
            } catch (ToolException e) {
                throw new CompletionException(e);
            }
        });
        assertThat(paused.await(ChildJvm.WAIT.toSeconds(), TimeUnit.SECONDS)).as("the server received a third").isTrue();
        first.kill();
        goOn.countDown();
        Await.until("the server kept the upload", () -> transfers.endpoint().keptReceives() == 1);
        long keptAtKill = keptBytes(rootDir);
        assertThat(kept(rootDir)).as("staging file and sidecar in the RootDir").hasSize(2);

        startDaemon(workdir, "daemon-2");
        Map<String, Object> r = upload.get(ChildJvm.WAIT.toSeconds() * 2, TimeUnit.SECONDS);

        assertThat(r).as(r.toString()).containsEntry("ok", true).containsEntry("hash", sha256(content));
        assertThat(keptAtKill).isGreaterThanOrEqualTo(SIZE / 3).isLessThan(SIZE);
        assertThat(Files.readAllBytes(rootDir.resolve("in/big.bin"))).isEqualTo(content);
        assertThat(kept(rootDir)).as("nothing kept after success").isEmpty();
        Await.until("no transfer pending on the server", () -> transfers.endpoint().pendingReceives() == 0
                && transfers.endpoint().keptReceives() == 0);
    }

    private static String sha256(byte[] b) throws Exception {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }
}
