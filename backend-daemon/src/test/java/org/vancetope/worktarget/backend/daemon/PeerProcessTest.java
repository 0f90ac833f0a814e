package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.internal.path.Reserved;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TargetResolver;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.core.InMemoryProcessStore;

/**
 * The command line's peers as real processes: a {@code daemon} or a {@code serve} child JVM
 * ({@link ChildJvm}), connected over loopback WebSocket to its counterpart in this JVM, on the real
 * disk of a {@link TempDir}.
 *
 * <p>It covers "one root per peer" end to end — a file downloaded to a daemon is where the same
 * daemon's {@code file_read} looks, a file its {@code file_write} wrote is uploaded by the same path,
 * a job's {@code stdoutPath} is readable with its {@code file_read}, and {@code --transfer-root} keeps
 * the separate {@code <tenant>/<project>} layout — and what a {@code kill -9} of the receiving peer
 * in the middle of a transfer leaves: the staged {@code .part} file stays on disk under its reserved
 * name, is never listed, and is swept when the peer starts again (the daemon at start, {@code serve}
 * when the RootDir is first used).
 *
 * <p>To kill a receiver while a transfer is surely running, whatever the machine's speed, the sender
 * in this JVM is held by a {@link SenderGate} once it has sent a few MiB, until the receiver is dead.
 */
class PeerProcessTest {
    private static final String TENANT = "acme";
    private static final String PROJECT = "proj";
    private static final String DAEMON = "box";
    private static final String PROCESS = "p-1";
    private static final String DAEMON_TOKEN = "daemon-token-peer-process-test";
    private static final String ADMIN_TOKEN = "admin-token-peer-process-test";
    private static final int BIG = 32 * 1024 * 1024;
    private static final long HOLD_AFTER = 4L * 1024 * 1024;
    private static final Duration WAIT = ChildJvm.WAIT;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern WS_PORT = Pattern.compile("listening on ws://127\\.0\\.0\\.1:(\\d+)/worktarget/v1");
    private static final Pattern ADMIN_PORT = Pattern.compile("Admin API on http://127\\.0\\.0\\.1:(\\d+)/admin/v1/");

    @TempDir
    Path base;

    private final List<ChildJvm> children = new ArrayList<>();
    private final List<SenderGate> gates = new ArrayList<>();
    private final ExecutorService background = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "peer-process-test-call");
        t.setDaemon(true);
        return t;
    });
    private final Set<String> seenDaemonConnections = new HashSet<>();

    // the in-test server (tests with a daemon child)
    private WorkspaceBackend work;
    private ServerTransfers transfers;
    private WorkTargetServer server;
    private WorkTargetDispatcher dispatcher;

    // the in-test daemon (the test with a serve child)
    private LocalBackend local;
    private ClientTransfers clientTransfers;
    private WorkTargetClient daemonClient;

    @AfterEach
    void stop() {
        gates.forEach(SenderGate::release);
        children.forEach(ChildJvm::close);
        if (daemonClient != null) {
            daemonClient.close();
        }
        if (clientTransfers != null) {
            clientTransfers.close();
        }
        if (local != null) {
            local.close();
        }
        if (server != null) {
            server.close();
        }
        if (transfers != null) {
            transfers.close();
        }
        if (work != null) {
            work.close();
        }
        background.shutdownNow();
    }

    // ============================================================================ in-test server

    private void startServer(TransferListener listener) throws IOException {
        work = WorkspaceBackend.builder().workspaceRoot(base.resolve("workspace")).build();
        transfers = ServerTransfers.create(
                new RootDirTargetResolver((s, dir) -> work.findRoot(s.tenant(), s.project(), dir)),
                // the base protocol's behaviour on a lost connection (transfer.resume keeps the transfer instead;
                // see TransferResumeOverSocketsTest and DaemonKillResumeTest)
                TransferSettings.defaults().toBuilder().capabilities(withoutResume()).build(), listener);
        server = WorkTargetServer.builder().host("127.0.0.1").port(0)
                .authenticator(TokenAuthenticator.builder()
                        .token(DAEMON_TOKEN, new AuthPrincipal(DAEMON, TENANT, Set.of(PROJECT), null)).build())
                .transfers(transfers).build().start();
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process(PROCESS).tenant(TENANT).project(PROJECT).session("s-1").user("alice").add();
        WorkTargetDispatcher.Builder db = WorkTargetDispatcher.builder().processStore(store)
                .backend(work)
                .peers(server.peers());
        transfers.tools(work.ephemeralDirs()).forEach(db::hostTool);
        dispatcher = db.build();
    }

    /** Starts {@code daemon} as a child JVM and waits until a new connection of it is online. */
    private ChildJvm startDaemon(String logName, Path workdir, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("daemon",
                "--connect", "ws://127.0.0.1:" + server.port() + "/worktarget/v1", "--token", DAEMON_TOKEN,
                "--tenant", TENANT, "--project", PROJECT, "--name", DAEMON, "--workdir", workdir.toString()));
        args.addAll(List.of(extra));
        ChildJvm daemon = ChildJvm.start("daemon", base.resolve(logName), args);
        children.add(daemon);
        DaemonKey key = new DaemonKey(TENANT, PROJECT, DAEMON);
        long end = System.nanoTime() + WAIT.toNanos();
        while (true) {
            Optional<ConnectionInfo> fresh = server.connections().stream()
                    .filter(c -> DAEMON.equals(c.daemonName()) && !seenDaemonConnections.contains(c.connectionId()))
                    .findFirst();
            if (fresh.isPresent() && TestServer.online(server, key)) {
                seenDaemonConnections.add(fresh.get().connectionId());
                return daemon;
            }
            if (!daemon.isAlive()) {
                throw new AssertionError(daemon + " exited before it connected; its log:\n" + daemon.log());
            }
            if (System.nanoTime() > end) {
                throw new AssertionError(daemon + " did not connect within " + WAIT + "; its log:\n" + daemon.log());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    private Map<String, Object> call(String tool, Map<String, Object> params) throws ToolException {
        return dispatcher.invoke(PROCESS, tool, params);
    }

    private void targetDaemon() throws ToolException {
        call("work_target_set", Map.of("kind", "DAEMON", "targetName", DAEMON));
    }

    /** An ephemeral RootDir with one file, written by {@code file_write} on the WORK target. */
    private String ephemeralDirWith(String path, String content) throws ToolException {
        String dirName = (String) call("workspace_create_ephemeral_dir", Map.of()).get("dirName");
        call("work_target_set", Map.of("kind", "WORK", "targetName", dirName));
        call("file_write", Map.of("path", path, "content", content));
        return dirName;
    }

    private Path rootDir(String dirName) {
        return work.findRoot(TENANT, PROJECT, dirName).orElseThrow();
    }

    // ============================================================================ helpers

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        new Random(7).nextBytes(b);
        return b;
    }

    /** The reserved entries directly in a directory (where staged files live). */
    private static List<Path> reservedIn(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> Reserved.isReserved(p.getFileName().toString())).toList();
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long sizeOrZero(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * Polls the top of a root until a staged {@code .part} file of the receiver has more than 0 bytes;
     * fails at once when the transfer call ended first.
     */
    private static Path awaitGrowingStagedFile(Path dir, ChildJvm receiver, Future<?> transfer) throws Exception {
        long end = System.nanoTime() + WAIT.toNanos();
        while (true) {
            for (Path p : reservedIn(dir)) {
                if (p.getFileName().toString().endsWith(Reserved.FILE) && sizeOrZero(p) > 0) {
                    return p;
                }
            }
            if (transfer.isDone()) {
                throw new AssertionError("The transfer call ended before a staged file appeared in " + dir + ": "
                        + transfer.get() + "; the receiver's log:\n" + receiver.log());
            }
            if (!receiver.isAlive()) {
                throw new AssertionError(receiver + " exited before a staged file appeared; its log:\n"
                        + receiver.log());
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("No staged .part file with bytes appeared in " + dir + " within " + WAIT
                        + " (reserved entries: " + reservedIn(dir) + "); the receiver's log:\n" + receiver.log());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> entries(Map<String, Object> fileListResult) {
        return (List<String>) fileListResult.get("entries");
    }

    private SenderGate gate() {
        SenderGate g = new SenderGate(HOLD_AFTER);
        gates.add(g);
        return g;
    }

    private static <T> T within(Future<T> f, String what) throws Exception {
        try {
            return f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(what + " did not end within " + WAIT, e);
        }
    }

    // ============================================================================ one root per daemon

    @Test
    void aFileDownloadedToTheDaemonIsReadByTheSameDaemonsFileRead() throws Exception {
        startServer(TransferListener.NONE);
        Path workdir = Files.createDirectories(base.resolve("daemon-workdir"));
        startDaemon("daemon.log", workdir);
        String dirName = ephemeralDirWith("r.txt", "quarterly numbers\nline two\n");
        targetDaemon();

        Map<String, Object> down = call("client_file_download",
                Map.of("dirName", dirName, "remotePath", "r.txt", "localPath", "reports/r.txt"));
        Map<String, Object> read = call("file_read", Map.of("path", "reports/r.txt"));

        assertThat(down).as("download result").containsEntry("ok", true);
        assertThat(read).containsEntry("content", "quarterly numbers\nline two\n");
        assertThat(workdir.resolve("reports/r.txt")).hasContent("quarterly numbers\nline two\n");
    }

    @Test
    void aFileTheDaemonsToolsWroteIsUploadedByTheSamePath() throws Exception {
        startServer(TransferListener.NONE);
        Path workdir = Files.createDirectories(base.resolve("daemon-workdir"));
        startDaemon("daemon.log", workdir);
        String dirName = (String) call("workspace_create_ephemeral_dir", Map.of()).get("dirName");
        targetDaemon();
        call("file_write", Map.of("path", "out/made-by-tools.txt", "content", "written on the daemon\n"));

        Map<String, Object> up = call("client_file_upload",
                Map.of("localPath", "out/made-by-tools.txt", "dirName", dirName, "remotePath", "got.txt"));

        assertThat(up).as("upload result").containsEntry("ok", true);
        assertThat(rootDir(dirName).resolve("got.txt")).hasContent("written on the daemon\n");
    }

    @Test
    void aDaemonJobsStdoutPathIsReadableWithTheDaemonsFileRead() throws Exception {
        startServer(TransferListener.NONE);
        Path workdir = Files.createDirectories(base.resolve("daemon-workdir"));
        startDaemon("daemon.log", workdir);
        targetDaemon();

        Map<String, Object> job = call("exec_run", Map.of("command", "echo marker-123"));
        assertThat(job).as("exec_run result").containsEntry("status", "exited");
        String stdoutPath = (String) job.get("stdoutPath");
        Map<String, Object> read = call("file_read", Map.of("path", stdoutPath));

        assertThat(stdoutPath).startsWith(".worktarget/exec/").endsWith(".stdout");
        assertThat(read).containsEntry("content", "marker-123\n");
    }

    @Test
    void transferRootOptionKeepsTheSeparateTenantProjectLayout() throws Exception {
        startServer(TransferListener.NONE);
        Path workdir = Files.createDirectories(base.resolve("daemon-workdir"));
        Path transferRoot = base.resolve("transfers");
        startDaemon("daemon.log", workdir, "--transfer-root", transferRoot.toString());
        String dirName = ephemeralDirWith("r.txt", "kept apart\n");
        targetDaemon();

        Map<String, Object> down = call("client_file_download",
                Map.of("dirName", dirName, "remotePath", "r.txt", "localPath", "reports/r.txt"));

        assertThat(down).as("download result").containsEntry("ok", true);
        assertThat(transferRoot.resolve(TENANT + "/" + PROJECT + "/reports/r.txt")).hasContent("kept apart\n");
        assertThat(workdir.resolve("reports")).doesNotExist();
    }

    // ============================================================================ kill -9 mid-transfer

    @Test
    void aDaemonKilledMidDownloadLeavesNoVisibleStagingFileAndItsRestartSweepsIt() throws Exception {
        SenderGate gate = gate();
        startServer(gate);
        Path workdir = Files.createDirectories(base.resolve("daemon-workdir"));
        ChildJvm daemon = startDaemon("daemon-1.log", workdir);
        String dirName = (String) call("workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Files.write(rootDir(dirName).resolve("big.bin"), randomBytes(BIG));
        targetDaemon();

        Future<Map<String, Object>> download = background.submit(() -> call("client_file_download",
                Map.of("dirName", dirName, "remotePath", "big.bin", "localPath", "downloads/big.bin")));
        Path staged = awaitGrowingStagedFile(workdir, daemon, download);
        assertThat(entries(call("file_list", Map.of("path", "."))))
                .as("the live daemon's listing while the download runs").noneMatch(e -> e.startsWith(Reserved.PREFIX));
        daemon.kill();

        assertThat(staged).as("the staged file the crash left").exists();
        assertThat(staged.getFileName().toString()).as("owned by the killed daemon").contains("." + daemon.pid() + ".");
        assertThat(workdir.resolve("downloads/big.bin")).doesNotExist();
        gate.release();
        assertThat(within(download, "client_file_download to the killed daemon")).containsEntry("ok", false);

        startDaemon("daemon-2.log", workdir);

        assertThat(staged).as("the staged file after the restart's sweep").doesNotExist();
        assertThat(reservedIn(workdir)).isEmpty();
        List<String> listed = entries(call("file_list", Map.of("path", ".")));
        assertThat(listed).noneMatch(e -> e.startsWith(Reserved.PREFIX)).doesNotContain(".worktarget", ".worktarget/");
    }

    @Test
    void aServeKilledMidUploadLeavesNoVisibleStagingFileAndItsRestartSweepsIt() throws Exception {
        Path workspace = Files.createDirectories(base.resolve("workspace"));
        Path tokens = base.resolve("tokens.json");
        Files.writeString(tokens, JSON.writeValueAsString(Map.of("tokens", List.of(Map.of("token", DAEMON_TOKEN,
                "subject", DAEMON, "tenant", TENANT, "projects", List.of(PROJECT))))), StandardCharsets.UTF_8);
        ChildJvm serve = startServe("serve-1.log", workspace, tokens);
        int wsPort = Integer.parseInt(serve.awaitLog(WS_PORT));
        int adminPort = Integer.parseInt(serve.awaitLog(ADMIN_PORT));

        SenderGate gate = gate();
        Path localWorkdir = Files.createDirectories(base.resolve("local-workdir"));
        Files.write(localWorkdir.resolve("big.bin"), randomBytes(BIG));
        local = LocalBackend.builder().workDirectory(localWorkdir).build();
        // without transfer.resume: the upload is staged as in version 1, under a name of the serve process, so
        // that its restart sweeps it (a resumable upload is kept for resumeRetention instead, UploadResumeTest)
        Set<TransferCapability> noResume = EnumSet.complementOf(EnumSet.of(TransferCapability.RESUME));
        clientTransfers = ClientTransfers.create(TargetResolver.at(local.workDirectory()),
                new TransferScope(TENANT, PROJECT), TransferSettings.defaults().toBuilder().capabilities(noResume).build(),
                gate);
        daemonClient = WorkTargetClient.builder().uri(URI.create("ws://127.0.0.1:" + wsPort + "/worktarget/v1"))
                .token(DAEMON_TOKEN).daemon(TENANT, PROJECT, DAEMON).tools(local.tools())
                .frameExtension(clientTransfers.extension()).build().start();
        assertThat(daemonClient.awaitConnected(WAIT)).as("the in-test daemon connected to serve").isTrue();

        HttpClient http = HttpClient.newHttpClient();
        awaitDaemonListed(http, adminPort, serve);
        Map<String, Object> created = admin(http, adminPort, "WORK", "workspace_create_ephemeral_dir", Map.of());
        assertThat(created).as("workspace_create_ephemeral_dir").containsEntry("ok", true);
        String dirName = (String) result(created).get("dirName");
        Path root = workspace.resolve(TENANT + "/" + PROJECT + "/" + dirName);
        assertThat(root).as("the RootDir on disk").isDirectory();

        Future<Map<String, Object>> upload = background.submit(() -> admin(http, adminPort, "DAEMON:" + DAEMON,
                "client_file_upload", Map.of("localPath", "big.bin", "dirName", dirName, "remotePath", "up/big.bin")));
        Path staged = awaitGrowingStagedFile(root, serve, upload);
        assertThat(entries(result(admin(http, adminPort, "WORK:" + dirName, "file_list", Map.of("path", ".")))))
                .as("the live serve's listing while the upload runs").noneMatch(e -> e.startsWith(Reserved.PREFIX));
        serve.kill();

        assertThat(staged).as("the staged file the crash left").exists();
        assertThat(staged.getFileName().toString()).as("owned by the killed serve").contains("." + serve.pid() + ".");
        assertThat(root.resolve("up/big.bin")).doesNotExist();
        gate.release();
        assertThatThrownBy(() -> within(upload, "the admin call of the killed serve"))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IOException.class);

        // The restarted serve needs no daemon for a WORK call: it binds fresh ports.
        ChildJvm again = startServe("serve-2.log", workspace, tokens);
        int adminPortAgain = Integer.parseInt(again.awaitLog(ADMIN_PORT));
        Map<String, Object> listed = admin(http, adminPortAgain, "WORK:" + dirName, "file_list", Map.of("path", "."));

        assertThat(listed).as("file_list on the RootDir after the restart").containsEntry("ok", true);
        assertThat(entries(result(listed))).noneMatch(e -> e.startsWith(Reserved.PREFIX))
                .doesNotContain(".worktarget", ".worktarget/");
        assertThat(staged).as("the staged file after the RootDir's first use since the restart").doesNotExist();
        assertThat(reservedIn(root)).isEmpty();
    }

    private ChildJvm startServe(String logName, Path workspace, Path tokens) throws IOException {
        ChildJvm serve = ChildJvm.start("serve", base.resolve(logName), List.of("serve",
                "--workspace", workspace.toString(), "--tokens", tokens.toString(),
                "--port", "0", "--admin-port", "0", "--admin-token", ADMIN_TOKEN));
        children.add(serve);
        return serve;
    }

    /** Waits until serve's {@code GET /admin/v1/connections} lists the in-test daemon. */
    private static void awaitDaemonListed(HttpClient http, int adminPort, ChildJvm serve) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/admin/v1/connections"))
                .timeout(WAIT).header("Authorization", "Bearer " + ADMIN_TOKEN).build();
        long end = System.nanoTime() + WAIT.toNanos();
        while (true) {
            String body = http.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).body();
            if (body.contains("\"name\":\"" + DAEMON + "\"")) {
                return;
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("serve does not list daemon " + DAEMON + " within " + WAIT + ": " + body
                        + "; its log:\n" + serve.log());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /** {@code POST /admin/v1/call}; the answer is {@code {ok, result}} or {@code {ok: false, error}}. */
    private static Map<String, Object> admin(HttpClient http, int port, String target, String tool,
                                             Map<String, Object> params) throws IOException, InterruptedException {
        // one process for all calls: a one-shot process (no processId) would take its ephemeral RootDir with it
        String body = JSON.writeValueAsString(Map.of("tenant", TENANT, "project", PROJECT, "processId", "peer-test",
                "target", target, "tool", tool, "params", params));
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/admin/v1/call"))
                .timeout(WAIT)
                .header("Authorization", "Bearer " + ADMIN_TOKEN)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build();
        HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        assertThat(res.statusCode()).as("HTTP status of %s: %s", tool, res.body()).isEqualTo(200);
        return JSON.readValue(res.body(), new TypeReference<Map<String, Object>>() { });
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> result(Map<String, Object> adminAnswer) {
        assertThat(adminAnswer).as("admin call answer").containsEntry("ok", true);
        return (Map<String, Object>) adminAnswer.get("result");
    }

    /**
     * Holds the sender in this JVM, once it has handed {@code holdAfter} bytes to the channel, until
     * {@link #release()}: the receiver then has a staged file with bytes and the transfer cannot end
     * before the receiver is killed. It blocks a thread of the transfer pool (where the sender pumps),
     * never an I/O thread; a listener should be fast, which is exactly what this one is not, on purpose.
     */
    private static final class SenderGate implements TransferListener {
        private final long holdAfter;
        private final CountDownLatch released = new CountDownLatch(1);

        SenderGate(long holdAfter) {
            this.holdAfter = holdAfter;
        }

        @Override
        public void onProgress(String transferId, Role role, long bytesDone, long totalBytes) {
            if (role == Role.SENDER && bytesDone >= holdAfter) {
                try {
                    released.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        void release() {
            released.countDown();
        }
    }

    private static java.util.Set<org.vancetope.worktarget.core.transfer.TransferCapability> withoutResume() {
        java.util.Set<org.vancetope.worktarget.core.transfer.TransferCapability> caps =
                java.util.EnumSet.allOf(org.vancetope.worktarget.core.transfer.TransferCapability.class);
        caps.remove(org.vancetope.worktarget.core.transfer.TransferCapability.RESUME);
        return caps;
    }
}
