package org.vancetope.worktarget.backend.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.daemon.ChildJvm;
import org.vancetope.worktarget.backend.daemon.ServerRefusedException;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * {@code serve} and {@code daemon} as real child JVMs ({@link ChildJvm}): what they log for an operator, the
 * admin token file, the order of the binds, and exit code 0 on SIGTERM.
 */
class CliProcessTest {
    private static final String DAEMON_TOKEN = "daemon-token-for-process-test";

    @TempDir
    Path dir;
    private final List<ChildJvm> children = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        children.forEach(ChildJvm::close);
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    private ChildJvm child(String name, String... args) throws Exception {
        ChildJvm c = ChildJvm.start(name, dir.resolve(name + ".log"), List.of(args));
        children.add(c);
        return c;
    }

    private Path tokens() throws Exception {
        return Files.writeString(dir.resolve("tokens.json"), "{\"tokens\":[{\"token\":\"" + DAEMON_TOKEN
                + "\",\"subject\":\"box\",\"tenant\":\"acme\",\"projects\":[\"proj\"]}]}");
    }

    @Test
    void serveLogsRefusalsAndCallsKeepsItsTokenInAnOwnerOnlyFileAndExitsZeroOnSigterm() throws Exception {
        Path workspace = Files.createDirectories(dir.resolve("workspace"));
        Path tokenFile = dir.resolve("admin-token");
        ChildJvm serve = child("serve", "serve", "--workspace", workspace.toString(), "--tokens", tokens().toString(),
                "--port", "0", "--admin-port", "0", "--admin-token-file", tokenFile.toString());
        int port = Integer.parseInt(serve.awaitLog(Pattern.compile("listening on ws://127\\.0\\.0\\.1:(\\d+)/worktarget/v1")));
        int adminPort = Integer.parseInt(serve.awaitLog(Pattern.compile("Admin API on http://127\\.0\\.0\\.1:(\\d+)/")));
        String token = Files.readString(tokenFile).strip();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile))).isEqualTo("rw-------");
        assertThat(serve.log()).contains("generated admin token in " + tokenFile + ", readable only by this user")
                .doesNotContain(token);

        // a daemon whose token lacks the project: 4403 for it, a WARN naming the grant for the operator
        WorkTargetClient daemon = WorkTargetClient.builder().uri(URI.create("ws://127.0.0.1:" + port + "/worktarget/v1"))
                .token(DAEMON_TOKEN).daemon("acme", "other", "box").build().start();
        closeables.add(daemon);
        try {
            daemon.terminated().get(ChildJvm.WAIT.toSeconds(), TimeUnit.SECONDS);
            throw new AssertionError("the daemon was not refused");
        } catch (ExecutionException e) {
            assertThat(((ServerRefusedException) e.getCause()).status()).isEqualTo(4403);
        }
        serve.awaitLog(Pattern.compile("(WARN ServerConnectionHandler - Refusing the daemon 'box' from /127\\.0\\.0\\.1:\\d+ "
                + "with 4403 \\(forbidden\\): the token of 'box' grants tenant 'acme' and projects \\[proj\\], it asked for "
                + "project 'other' of tenant 'acme'\\. Give the token that project)"));

        // a refused admin token at WARN, a call at INFO, neither with a token
        HttpResponse<String> refused = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + adminPort + "/admin/v1/connections"))
                .header("Authorization", "Bearer not-the-admin-token").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(401);
        serve.awaitLog(Pattern.compile("(WARN AdminServer - Refused admin request GET /admin/v1/connections from "
                + "/127\\.0\\.0\\.1:\\d+: wrong admin token)"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(Main.run(new String[] {"call", "--server", "http://127.0.0.1:" + adminPort, "--admin-token-file",
                tokenFile.toString(), "--target", "WORK", "--tenant", "acme", "--project", "proj", "work_target_get"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)))
                .as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Main.OK);
        serve.awaitLog(Pattern.compile("(INFO AdminServer - Admin call ac-\\S+: work_target_get on WORK in acme/proj: ok)"));
        assertThat(serve.log()).doesNotContain(token, "not-the-admin-token", DAEMON_TOKEN);

        assertThat(serve.terminate()).as(serve.log()).isEqualTo(Main.OK);
        assertThat(serve.log()).contains("Shutting down", "Stopped");
        assertThat(tokenFile).as("the generated token goes with the server").doesNotExist();
    }

    @Test
    void callOfATransferThatDidNotSucceedExitsFailedWithItsWholeResultOnStdout() throws Exception {
        Path workspace = Files.createDirectories(dir.resolve("workspace"));
        Path tokenFile = dir.resolve("admin-token");
        ChildJvm serve = child("serve-transfer", "serve", "--workspace", workspace.toString(), "--tokens",
                tokens().toString(), "--port", "0", "--admin-port", "0", "--admin-token-file", tokenFile.toString());
        int port = Integer.parseInt(serve.awaitLog(Pattern.compile("listening on ws://127\\.0\\.0\\.1:(\\d+)/worktarget/v1")));
        int adminPort = Integer.parseInt(serve.awaitLog(Pattern.compile("Admin API on http://127\\.0\\.0\\.1:(\\d+)/")));
        WorkTargetClient daemon = WorkTargetClient.builder().uri(URI.create("ws://127.0.0.1:" + port + "/worktarget/v1"))
                .token(DAEMON_TOKEN).daemon("acme", "proj", "box").build().start();
        closeables.add(daemon);
        serve.awaitLog(Pattern.compile("(Daemon acme/proj/box online)"));

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = Main.run(new String[] {"call", "--server", "http://127.0.0.1:" + adminPort, "--admin-token-file",
                tokenFile.toString(), "--target", "DAEMON:box", "client_file_upload",
                "{\"localPath\":\"a.txt\",\"dirName\":\"no-such-root\",\"remotePath\":\"a.txt\"}"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Main.FAILED);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"ok\" : false", "\"code\" : \"not_found\"");
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("error not_found: dirName not found: 'no-such-root' "
                + "is not a RootDir of this project").contains("workspace_create_ephemeral_dir");
    }

    private static int call(int adminPort, Path tokenFile, ByteArrayOutputStream out, ByteArrayOutputStream err,
                            String... rest) {
        List<String> argv = new ArrayList<>(List.of("call", "--server", "http://127.0.0.1:" + adminPort,
                "--admin-token-file", tokenFile.toString()));
        argv.addAll(List.of(rest));
        return Main.run(argv.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void theTempRootDirThatAKilledServeLeftWaitsForItsNamedProcessWhichTakesItUpAndRemovesItWhenItEndsAndItsJobIsKilled()
            throws Exception {
        Path workspace = Files.createDirectories(dir.resolve("workspace"));
        Path tokenFile = dir.resolve("admin-token");
        ChildJvm killed = child("serve-killed", "serve", "--workspace", workspace.toString(), "--tokens",
                tokens().toString(), "--port", "0", "--admin-port", "0", "--admin-token-file", tokenFile.toString());
        int adminPort = Integer.parseInt(killed.awaitLog(Pattern.compile("Admin API on http://127\\.0\\.0\\.1:(\\d+)/")));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(call(adminPort, tokenFile, new ByteArrayOutputStream(), err, "--target", "WORK", "--tenant", "acme",
                "--project", "proj", "--process", "p1", "file_write", "{\"path\":\"notes.txt\",\"content\":\"draft\"}"))
                .as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Main.OK);
        assertThat(call(adminPort, tokenFile, new ByteArrayOutputStream(), err, "--target", "WORK", "--tenant", "acme",
                "--project", "proj", "--process", "p1", "exec_run",
                "{\"command\":\"echo $$ > job.pid; exec sleep 1000\",\"waitMs\":0}"))
                .as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Main.OK);
        Path temp;
        try (var dirs = Files.list(workspace.resolve("acme/proj"))) {
            temp = dirs.filter(d -> d.getFileName().toString().startsWith("temp-")).findFirst().orElseThrow();
        }
        long job = Long.parseLong(Await.line(temp.resolve("job.pid")));

        killed.kill();     // SIGKILL: process p1 never ends, nor does its job
        assertThat(ProcessHandle.of(job).map(ProcessHandle::isAlive)).as("the job outlives its serve").contains(true);

        Path tokenFile2 = dir.resolve("admin-token-2");
        ChildJvm next = child("serve-next", "serve", "--workspace", workspace.toString(), "--tokens",
                tokens().toString(), "--port", "0", "--admin-port", "0", "--admin-token-file", tokenFile2.toString());
        int adminPort2 = Integer.parseInt(next.awaitLog(Pattern.compile("Admin API on http://127\\.0\\.0\\.1:(\\d+)/")));
        assertThat(next.log()).contains("RootDirs that processes of ended runs left (1) stay for 3600 s, for the "
                + "processes to come back: [acme/proj/" + temp.getFileName() + " of process p1]");
        Await.processGone(job);     // killed by the next serve's first exec engine (or another JVM's, started meanwhile)
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(call(adminPort2, tokenFile2, out, err, "--target", "WORK", "--tenant", "acme", "--project", "proj",
                "--process", "p1", "file_read", "{\"path\":\"notes.txt\"}")).as(err.toString(StandardCharsets.UTF_8))
                .isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).as("p1 came back to its file").contains("draft");

        assertThat(call(adminPort2, tokenFile2, new ByteArrayOutputStream(), err, "--end-process", "p1"))
                .as(err.toString(StandardCharsets.UTF_8)).isEqualTo(Main.OK);

        assertThat(temp).doesNotExist();
        assertThat(workspace.resolve("acme/proj/.rootdirs/" + temp.getFileName() + ".properties")).doesNotExist();
    }

    @Test
    void serveWithItsAdminPortTakenExitsFourBeforeTheServerSaysItListens() throws Exception {
        Path workspace = Files.createDirectories(dir.resolve("workspace"));
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            ChildJvm serve = child("serve-clash", "serve", "--workspace", workspace.toString(), "--tokens",
                    tokens().toString(), "--port", "0", "--admin-port", String.valueOf(port), "--admin-token-file",
                    dir.resolve("admin-token").toString());
            assertThat(serve.awaitExit()).as(serve.log()).isEqualTo(Main.UNREACHABLE);
            assertThat(serve.log()).contains("Could not bind the admin API on 127.0.0.1:" + port + ": port " + port
                    + " is already in use").doesNotContain("listening on");
        }
    }

    @Test
    void daemonExitsZeroOnSigterm() throws Exception {
        WorkTargetServer server = server(0);
        Path workdir = Files.createDirectories(dir.resolve("daemon-workdir"));
        ChildJvm daemon = child("daemon", "daemon", "--connect", "ws://127.0.0.1:" + server.port() + "/worktarget/v1",
                "--token", DAEMON_TOKEN, "--tenant", "acme", "--project", "proj", "--name", "box", "--workdir",
                workdir.toString());
        daemon.awaitLog(Pattern.compile("(Connected to ws://)"));
        assertThat(daemon.terminate()).as(daemon.log()).isEqualTo(Main.OK);
        assertThat(daemon.log()).contains("Disconnected from ws://");
    }

    @Test
    void aDaemonThatConnectedOnceOutlivesItsConnectTimeoutWhileTheServerIsAway() throws Exception {
        WorkTargetServer first = server(0);
        int port = first.port();
        Path workdir = Files.createDirectories(dir.resolve("daemon-workdir"));
        ChildJvm daemon = child("daemon-reconnect", "daemon", "--connect", "ws://127.0.0.1:" + port + "/worktarget/v1",
                "--token", DAEMON_TOKEN, "--tenant", "acme", "--project", "proj", "--name", "box", "--workdir",
                workdir.toString(), "--connect-timeout", "4");   // room for the first connect of a JVM on a loaded machine
        awaitOnline(first, daemon);
        first.close();
        daemon.awaitLog(Pattern.compile("(Could not connect to ws://127\\.0\\.0\\.1:" + port + ")"));
        // longer than --connect-timeout: the start-up deadline must not apply to a reconnect
        Thread.sleep(5_000);
        assertThat(daemon.isAlive()).as(daemon.log()).isTrue();
        WorkTargetServer second = server(port);
        awaitOnline(second, daemon);
        assertThat(daemon.terminate()).as(daemon.log()).isEqualTo(Main.OK);
    }

    private WorkTargetServer server(int port) throws Exception {
        WorkTargetServer server = WorkTargetServer.builder().port(port).authenticator(TokenAuthenticator.builder()
                .token(DAEMON_TOKEN, new AuthPrincipal("box", "acme", Set.of("proj"), null)).build()).build().start();
        closeables.add(server);
        return server;
    }

    private static void awaitOnline(WorkTargetServer server, ChildJvm daemon) throws InterruptedException {
        long end = System.nanoTime() + ChildJvm.WAIT.toNanos();
        while (server.connections().stream().noneMatch(c -> "box".equals(c.daemonName()))) {
            if (!daemon.isAlive() || System.nanoTime() > end) {
                throw new AssertionError(daemon + " is not online on port " + server.port() + "; its log:\n" + daemon.log());
            }
            Thread.sleep(20);
        }
    }
}
