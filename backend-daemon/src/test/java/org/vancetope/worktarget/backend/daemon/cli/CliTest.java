package org.vancetope.worktarget.backend.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
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
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.daemon.internal.Wire;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.BackendTool;

class CliTest {
    private static final String DAEMON_TOKEN = "daemon-token-for-cli";
    private static final String ADMIN_TOKEN = "admin-token-for-cli";
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private WorkTargetServer server;
    private AdminServer admin;
    private WorkTargetClient daemon;
    /** Holds the daemon's file_read of the path "block" until the test ends. */
    private final CountDownLatch release = new CountDownLatch(1);
    @TempDir
    Path dir;

    @BeforeEach
    void start() throws Exception {
        server = WorkTargetServer.builder().authenticator(TokenAuthenticator.builder()
                .token(DAEMON_TOKEN, new AuthPrincipal("box", "acme", Set.of("proj"), null)).build()).build().start();
        InMemoryProcessStore store = new InMemoryProcessStore();
        WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder().processStore(store)
                .peers(server.peers()).build();
        admin = new AdminServer(server, dispatcher, store, ADMIN_TOKEN).start("127.0.0.1", 0);
    }

    @AfterEach
    void stop() {
        release.countDown();
        if (daemon != null) {
            daemon.close();
        }
        admin.close();
        server.close();
    }

    private void connectDaemon() throws InterruptedException {
        BackendTool read = BackendTool.of(ToolCatalog.backend("client_file_read").orElseThrow(),
                (p, c) -> {
                    if ("block".equals(p.get("path"))) {
                        awaitRelease();
                    }
                    return Map.of("content", "from box: " + p.get("path"));
                });
        daemon = WorkTargetClient.builder().uri(URI.create("ws://127.0.0.1:" + server.port() + "/worktarget/v1"))
                .token(DAEMON_TOKEN).daemon("acme", "proj", "build-box-01").tools(List.of(read)).build().start();
        assertThat(daemon.awaitConnected(Duration.ofSeconds(10))).isTrue();
    }

    private void awaitRelease() {
        try {
            if (!release.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test did not release the blocked call");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while blocked", e);
        }
    }

    private int run(String... args) {
        return runWithInput(new ByteArrayInputStream(new byte[0]), args);
    }

    private int runWithInput(InputStream in, String... args) {
        return Main.run(args, in, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private String wsUrl(int port) {
        return "ws://127.0.0.1:" + port + "/worktarget/v1";
    }

    private Path tokens(String json) throws Exception {
        return Files.writeString(dir.resolve("tokens-" + System.nanoTime() + ".json"), json);
    }

    private Path workspace() throws Exception {
        return Files.createDirectories(dir.resolve("workspace"));
    }

    private Path goodTokens() throws Exception {
        return tokens("{\"tokens\":[{\"token\":\"" + DAEMON_TOKEN + "\",\"tenant\":\"acme\",\"projects\":[\"proj\"]}]}");
    }

    private static final String NL = System.lineSeparator();

    private String adminUrl() {
        return "http://127.0.0.1:" + admin.address().getPort();
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void everyCommandHasHelpAndExitsZero() {
        for (String cmd : List.of("daemon", "serve", "call")) {
            assertThat(run(cmd, "--help")).isEqualTo(Main.OK);
        }
        assertThat(stdout()).contains("Usage: daemon", "Usage: serve", "Usage: call");
        assertThat(run("--help")).isEqualTo(Main.OK);
    }

    @Test
    void noCommandIsAUsageError() {
        assertThat(run()).isEqualTo(Main.USAGE);
    }

    @Test
    void unknownCommandIsAUsageError() {
        assertThat(run("dance")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("Unknown command 'dance'");
    }

    @Test
    void unknownOptionIsAUsageError() {
        assertThat(run("daemon", "--colour", "blue")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("Unknown option --colour");
    }

    @Test
    void daemonWithoutRequiredOptionsIsAUsageError() {
        assertThat(run("daemon", "--connect", "ws://127.0.0.1:1/worktarget/v1", "--token", "x")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("Missing --tenant");
    }

    @Test
    void daemonWithANonPositiveMaxTransferIsAUsageError() {
        assertThat(run("daemon", "--connect", "ws://127.0.0.1:1/worktarget/v1", "--token", "x", "--tenant", "acme",
                "--project", "proj", "--name", "box", "--max-transfer-mib", "0")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("--max-transfer-mib must be between 1 and 1048576, got 0.");
    }

    private static final String EXEC_OPTIONS = "The exec settings (--job-cgroup, --max-job-processes, "
            + "--max-job-memory-mib, --max-job-cpus, --max-job-seconds): ";
    private static final String SERVE_EXEC_OPTIONS = "The exec settings (--isolation, --isolation-wrapper, "
            + "--job-cgroup, --max-job-processes, --max-job-memory-mib, --max-job-cpus, --max-job-seconds): ";
    private static final String NOT_A_GROUP = " is not a control group directory (it has no cgroup.procs). Name a "
            + "directory below /sys/fs/cgroup that this server may write: with cgroup v2 one delegated to the "
            + "server's user whose cgroup.subtree_control enables pids (and memory, cpu for those caps), with v1 one "
            + "below /sys/fs/cgroup/pids (and one below /sys/fs/cgroup/memory, /sys/fs/cgroup/cpu for those caps).";

    @Test
    void daemonJobControlGroupOptionsAreCheckedBeforeItConnects() throws Exception {
        Path notAGroup = Files.createDirectories(dir.resolve("not-a-group"));
        Map<List<String>, String> cases = new java.util.LinkedHashMap<>();
        cases.put(List.of("--max-job-processes", "50"), EXEC_OPTIONS + "maxJobProcesses=50 needs jobControlGroups: "
                + "the cap is kept by a control group of each job's own, made in such a directory.");
        cases.put(List.of("--max-job-memory-mib", "512"), EXEC_OPTIONS + "maxJobMemory=536870912 needs "
                + "jobControlGroups: the cap is kept by a control group of each job's own, made in such a directory.");
        cases.put(List.of("--job-cgroup", notAGroup.toString()), EXEC_OPTIONS + "jobControlGroups " + notAGroup
                + NOT_A_GROUP);
        cases.put(List.of("--job-cgroup", "/sys/fs/cgroup/pids/wt,,/sys/fs/cgroup/memory/wt"), "--job-cgroup "
                + "'/sys/fs/cgroup/pids/wt,,/sys/fs/cgroup/memory/wt' has an empty directory name; give directories "
                + "separated by single commas.");
        cases.put(List.of("--job-cgroup", "/sys/fs/cgroup/pids/wt,/sys/fs/cgroup/pids/wt"), EXEC_OPTIONS
                + "jobControlGroups names /sys/fs/cgroup/pids/wt twice; name each directory once.");
        cases.put(List.of("--job-cgroup", notAGroup.toString(), "--max-job-memory-mib", "15"), EXEC_OPTIONS
                + "maxJobMemory must be 0 (no cap) or at least 16777216 bytes (16 MiB), got 15728640.");
        cases.put(List.of("--job-cgroup", notAGroup.toString(), "--max-job-processes", "x"), "--max-job-processes "
                + "must be a number, got 'x'.");
        for (Map.Entry<List<String>, String> c : cases.entrySet()) {
            err.reset();
            List<String> args = new java.util.ArrayList<>(List.of("daemon", "--connect", "ws://127.0.0.1:1/worktarget/v1",
                    "--token", "x", "--tenant", "acme", "--project", "proj", "--name", "box", "--workdir",
                    dir.toString()));
            args.addAll(c.getKey());
            assertThat(run(args.toArray(String[]::new))).as(c.getKey().toString()).isEqualTo(Main.USAGE);
            assertThat(stderr()).as(c.getKey().toString()).isEqualTo(c.getValue() + " Run 'daemon --help' for the options."
                    + NL);
        }
    }

    @Test
    void daemonNumberOptionsNameTheOptionAndTheirRange() {
        Map<List<String>, String> cases = new java.util.LinkedHashMap<>();
        cases.put(List.of("--workers", "0"), "--workers must be between 1 and 1024, got 0.");
        cases.put(List.of("--workers", "5000"), "--workers must be between 1 and 1024, got 5000.");
        cases.put(List.of("--kill-grace-ms", "-1"), "--kill-grace-ms must be at least 0, got -1.");
        cases.put(List.of("--max-transfer-mib", "99999999999"), "--max-transfer-mib must be between 1 and 1048576, got "
                + "99999999999.");
        for (Map.Entry<List<String>, String> c : cases.entrySet()) {
            err.reset();
            List<String> args = new java.util.ArrayList<>(List.of("daemon", "--connect", "ws://127.0.0.1:1/worktarget/v1",
                    "--token", "x", "--tenant", "acme", "--project", "proj", "--name", "box"));
            args.addAll(c.getKey());
            assertThat(run(args.toArray(String[]::new))).as(c.getKey().toString()).isEqualTo(Main.USAGE);
            assertThat(stderr()).as(c.getKey().toString()).isEqualTo(c.getValue() + " Run 'daemon --help' for the options."
                    + NL);
        }
    }

    @Test
    void anOptionGivenTwiceIsAUsageErrorNamingBothValues() throws Exception {
        assertThat(run("daemon", "--tenant", "acme", "--tenant", "other")).isEqualTo(Main.USAGE);
        assertThat(stderr()).isEqualTo("Option --tenant is given twice ('acme' and 'other'); give it once. Run 'daemon "
                + "--help' for the options." + NL);
        err.reset();
        assertThat(run("call", "--target", "WORK", "--target=CLIENT", "work_target_get")).isEqualTo(Main.USAGE);
        assertThat(stderr()).startsWith("Option --target is given twice ('WORK' and 'CLIENT'); give it once.");
        err.reset();
        assertThat(run("serve", "--workspace", workspace().toString(), "--tokens", goodTokens().toString(), "--port", "0",
                "--port=7070")).isEqualTo(Main.USAGE);
        assertThat(stderr()).startsWith("Option --port is given twice ('0' and '7070'); give it once.");
    }

    @Test
    void aFlagGivenTwiceIsAccepted() {
        assertThat(run("daemon", "--help", "--help")).isEqualTo(Main.OK);
    }

    @Test
    void noSyncIsAFlagOfDaemonAndServeAndIsDocumented() {
        assertThat(run("daemon", "--connect", "ws://127.0.0.1:" + server.port() + "/worktarget/v1", "--token",
                "wrong-token-value", "--tenant", "acme", "--project", "proj", "--name", "box", "--no-sync"))
                .isEqualTo(Main.REFUSED);
        assertThat(run("daemon", "--help")).isEqualTo(Main.OK);
        assertThat(run("serve", "--help")).isEqualTo(Main.OK);
        assertThat(stdout().split("--no-sync", -1)).hasSize(5);     // usage line and option, in both
    }

    @Test
    void daemonWithARejectedTokenExitsRefused() {
        assertThat(run("daemon", "--connect", "ws://127.0.0.1:" + server.port() + "/worktarget/v1", "--token",
                "wrong-token-value", "--tenant", "acme", "--project", "proj", "--name", "box")).isEqualTo(Main.REFUSED);
        assertThat(stderr()).contains("401", "$WORKTARGET_TOKEN or --token");
    }

    @Test
    void serveWithoutTokensFileIsAUsageError() {
        assertThat(run("serve", "--workspace", ".", "--tokens", "does-not-exist.json")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("--tokens");
    }

    private static final String ONE_TOKEN = "{\"tokens\":[{\"token\":\"token-of-eight\",\"subject\":\"s\",\"tenant\":\"acme\","
            + "\"projects\":[\"proj\"]}]}";

    @Test
    void serveWithARedisUriButNoNodeIdIsAUsageError() throws Exception {
        assertThat(run("serve", "--workspace", ".", "--tokens", tokens(ONE_TOKEN).toString(), "--redis-uri",
                "redis://127.0.0.1:6379")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("--redis-uri and --node-id go together");
    }

    @Test
    void serveWithARedisUriAndNoFleetModuleOnTheClassPathSaysWhatToAdd() throws Exception {
        assertThat(run("serve", "--workspace", ".", "--tokens", tokens(ONE_TOKEN).toString(), "--redis-uri",
                "redis://127.0.0.1:6379", "--node-id", "node-1")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("cluster-redis", "single node");
    }

    @Test
    void serveWithARedisUriOfAnotherSchemeSaysWhichSchemesWork() throws Exception {
        assertThat(run("serve", "--workspace", ".", "--tokens", tokens(ONE_TOKEN).toString(), "--redis-uri",
                "http://127.0.0.1:6379", "--node-id", "node-1")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("must start with redis:// (or rediss://").doesNotContain("class path");
    }

    @Test
    void callRunsTheToolOnTheDaemonAndPrintsTheJsonResult() throws Exception {
        connectDaemon();
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "DAEMON:build-box-01",
                "file_read", "{\"path\":\"README.md\"}")).as(stderr()).isEqualTo(Main.OK);
        assertThat(stdout()).contains("\"content\" : \"from box: README.md\"");
    }

    @Test
    void callEndProcessEndsANamedProcessAndAnUnknownOneExitsFailed() throws Exception {
        connectDaemon();
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "DAEMON:build-box-01",
                "--process", "nightly 1", "file_read", "{\"path\":\"README.md\"}")).as(stderr()).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("'processId' must not contain blanks");
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "DAEMON:build-box-01",
                "--process", "nightly-1", "file_read", "{\"path\":\"README.md\"}")).as(stderr()).isEqualTo(Main.OK);
        out.reset();

        assertThat(run("call", "--server", adminUrl() + "/admin/v1/call", "--admin-token", ADMIN_TOKEN,
                "--end-process", "nightly-1")).as(stderr()).isEqualTo(Main.OK);
        assertThat(stdout()).contains("\"processId\" : \"nightly-1\"", "\"ended\" : true");

        err.reset();
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--end-process", "nightly-1"))
                .isEqualTo(Main.FAILED);
        assertThat(stderr()).startsWith("error not_found: No named process 'nightly-1'");
    }

    @Test
    void callEndProcessTakesNoToolOrTarget() {
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--end-process", "p",
                "--target", "WORK")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("--end-process takes no tool, --target or --process");
    }

    @Test
    void callToAnOfflineDaemonExitsFailedWithTheReason() {
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--tenant", "acme", "--project",
                "proj", "--target", "DAEMON:nobody", "file_read", "{\"path\":\"a\"}")).isEqualTo(Main.FAILED);
        assertThat(stderr()).contains("error offline", "nobody");
    }

    @Test
    void callWithoutScopeForAnUnknownPeerIsAUsageError() {
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "DAEMON:nobody",
                "file_read")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("'tenant' and 'project' are required");
    }

    @Test
    void callWithAWrongAdminTokenExitsRefused() {
        assertThat(run("call", "--server", adminUrl(), "--admin-token", "nope", "--target", "WORK", "work_target_get"))
                .isEqualTo(Main.REFUSED);
    }

    @Test
    void callWithInvalidJsonParamsIsAUsageError() {
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "WORK", "file_read",
                "{path:"))
                .isEqualTo(Main.USAGE);
    }

    @Test
    void aDirectoryTransferWhoseEntriesFailedIsSummedUpOnStderrWithTheFirstFailure() throws Exception {
        String line = CallCommand.notOk(Wire.mapper().readTree("{\"ok\":false,\"filesWritten\":1,\"bytesWritten\":3,"
                + "\"entries\":[{\"path\":\"a.txt\",\"type\":\"file\",\"status\":\"written\"},"
                + "{\"path\":\"nl\\nname\",\"type\":\"file\",\"status\":\"failed\",\"error\":\"contains a control "
                + "character\",\"code\":\"path_escape\"},{\"path\":\"b\",\"type\":\"file\",\"status\":\"failed\","
                + "\"error\":\"exists\",\"code\":\"exists\"}]}"));
        assertThat(line).isEqualTo("error path_escape: 2 of 3 entries failed (every entry's outcome is on stdout); the "
                + "first, 'nl?name': contains a control character");
    }

    @Test
    void aTransferThatFailedAsAWholeShowsItsCodeAndError() throws Exception {
        assertThat(CallCommand.notOk(Wire.mapper().readTree("{\"ok\":false,\"filesWritten\":0,\"bytesWritten\":0,"
                + "\"entries\":[],\"error\":\"the client went away\",\"code\":\"offline\"}")))
                .isEqualTo("error offline: the client went away");
        assertThat(CallCommand.notOk(Wire.mapper().readTree("{\"ok\":false}"))).startsWith("error internal: the result "
                + "says ok: false without saying why");
    }

    @Test
    void callToAClosedPortExitsUnreachable() throws Exception {
        int free;
        try (ServerSocket s = new ServerSocket(0)) {
            free = s.getLocalPort();
        }
        assertThat(run("call", "--server", "http://127.0.0.1:" + free, "--admin-token", ADMIN_TOKEN, "--target", "WORK",
                "work_target_get")).isEqualTo(Main.UNREACHABLE);
    }

    @Test
    void connectionsListsTheConnectedDaemon() throws Exception {
        connectDaemon();
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(adminUrl() + "/admin/v1/connections")).header("Authorization", "Bearer " + ADMIN_TOKEN).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"daemons\":[{", "\"name\":\"build-box-01\"", "\"foots\":[]");
    }

    @Test
    void connectionsWithoutTheAdminTokenIs401() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create(adminUrl() + "/admin/v1/connections")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(401);
    }

    // ---- help, version and exit codes ----

    @Test
    void dashHIsHelpAtTheTopAndForEveryCommand() {
        assertThat(run("-h")).isEqualTo(Main.OK);
        assertThat(stdout()).startsWith("Usage: java -jar worktarget.jar <command> [options]");
        for (String cmd : List.of("daemon", "serve", "call")) {
            out.reset();
            assertThat(run(cmd, "-h")).as(cmd).isEqualTo(Main.OK);
            assertThat(stdout()).as(cmd).startsWith("Usage: " + cmd + " ");
        }
        assertThat(stderr()).isEmpty();
    }

    @Test
    void versionPrintsTheVersionTheBuildFilledIn() {
        assertThat(run("--version")).isEqualTo(Main.OK);
        assertThat(stdout()).matches("worktarget \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?" + NL);
        out.reset();
        assertThat(run("-V")).isEqualTo(Main.OK);
        assertThat(stdout()).isEqualTo("worktarget " + Main.version() + NL);
    }

    @Test
    void everyHelpEndsWithATableOfTheExitCodesAndTheTopLevelTableHasThemAll() {
        Pattern row = Pattern.compile("^  (\\d)  \\S.*$", Pattern.MULTILINE);
        for (String cmd : List.of("daemon", "serve", "call")) {
            out.reset();
            run(cmd, "--help");
            String help = stdout();
            String table = help.substring(help.indexOf("Exit codes:\n"));
            Matcher m = row.matcher(table);
            int rows = 0;
            while (m.find()) {
                rows++;
                assertThat(Integer.parseInt(m.group(1))).as(cmd).isBetween(Main.OK, Main.TIMEOUT);
            }
            assertThat(rows).as(cmd + " lists its codes").isEqualTo(table.strip().split("\n").length - 1);
            assertThat(table).as(cmd).contains("  0  ", "  2  ", "  4  ");
        }
        out.reset();
        run("--help");
        assertThat(stdout()).contains("Exit codes:\n  0  success", "\n  1  ", "\n  2  ", "\n  3  ", "\n  4  ",
                "\n  5  call: no answer within --timeout");
    }

    @Test
    void helpRecommendsTheEnvironmentForTokens() {
        run("daemon", "--help");
        run("call", "--help");
        run("serve", "--help");
        assertThat(stdout()).contains("prefer $WORKTARGET_TOKEN", "prefer $WORKTARGET_ADMIN_TOKEN or --admin-token-file",
                "prefer $WORKTARGET_ADMIN_TOKEN: an option is visible to");
    }

    // ---- daemon: the start-up deadline and what it names ----

    @Test
    void daemonAtAClosedPortExitsUnreachableNamingThePort() throws Exception {
        int port = freePort();
        assertThat(run("daemon", "--connect", wsUrl(port), "--token", DAEMON_TOKEN, "--tenant", "acme", "--project",
                "proj", "--name", "box", "--connect-timeout", "1")).isEqualTo(Main.UNREACHABLE);
        assertThat(stderr()).isEqualTo("Not connected to " + wsUrl(port) + " within 1 s (--connect-timeout): nothing "
                + "accepts connections on 127.0.0.1:" + port + ". Is 'serve' running there, and is " + port + " its --port "
                + "(default 7070)?" + NL);
    }

    @Test
    void daemonAtAServerAtItsConnectionCapExitsUnreachableNamingTheCap() throws Exception {
        WorkTargetServer capped = WorkTargetServer.builder().authenticator(TokenAuthenticator.builder()
                .token(DAEMON_TOKEN, new AuthPrincipal("box", "acme", Set.of("proj"), null)).build())
                .maxConnections(1).build().start();
        try (java.net.Socket filler = new java.net.Socket("127.0.0.1", capped.port())) {
            assertThat(filler.isConnected()).as("the one connection the server holds").isTrue();
            assertThat(run("daemon", "--connect", wsUrl(capped.port()), "--token", DAEMON_TOKEN, "--tenant", "acme",
                    "--project", "proj", "--name", "box", "--connect-timeout", "1")).isEqualTo(Main.UNREACHABLE);
        } finally {
            capped.close();
        }
        assertThat(stderr()).startsWith("Not connected to " + wsUrl(capped.port()) + " within 1 s (--connect-timeout): ")
                .contains("A serve that already holds --max-connections connections closes new ones this way");
    }

    @Test
    void daemonAtAServerThatClosesEachConnectionWithoutAnAnswerExitsUnreachableAtItsDeadline() throws Exception {
        try (ServerSocket closer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!closer.isClosed()) {
                    try {
                        closer.accept().close();    // a clean close (FIN), before anything is read
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();

            assertThat(run("daemon", "--connect", wsUrl(closer.getLocalPort()), "--token", DAEMON_TOKEN, "--tenant",
                    "acme", "--project", "proj", "--name", "box", "--connect-timeout", "1")).isEqualTo(Main.UNREACHABLE);
        }
        assertThat(stderr()).contains("the last attempt failed: IOException: the server closed the connection before "
                + "answering the WebSocket upgrade", "A serve that already holds --max-connections connections");
    }

    @Test
    void theUnreachableMessageOfAnUnansweredUpgradeSaysTheServerDidNotAnswerAndNotThatItClosed() {
        String m = DaemonCommand.unreachable(URI.create("ws://h:7070/worktarget/v1"), 12,
                new java.util.concurrent.TimeoutException("the server accepted the connection but did not answer the "
                        + "WebSocket upgrade within 10000 ms: it is stopped or overloaded, or the port is not a "
                        + "WorkTarget server's"));
        assertThat(m).contains("did not answer the WebSocket upgrade within 10000 ms", "stopped or overloaded")
                .doesNotContain("--max-connections", "closed");
    }

    @Test
    void daemonAtAServerThatNeverAnswersTheUpgradeSaysSoWithinItsConnectTimeout() throws Exception {
        List<java.net.Socket> held = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!silent.isClosed()) {
                    try {
                        held.add(silent.accept());      // held open, never answered
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();

            assertThat(run("daemon", "--connect", wsUrl(silent.getLocalPort()), "--token", DAEMON_TOKEN, "--tenant",
                    "acme", "--project", "proj", "--name", "box", "--connect-timeout", "1")).isEqualTo(Main.UNREACHABLE);
        } finally {
            for (java.net.Socket s : held) {
                s.close();
            }
        }
        assertThat(stderr()).contains("did not answer the WebSocket upgrade within 1000 ms")
                .doesNotContain("--max-connections");
    }

    @Test
    void theUnreachableMessageOfAResetConnectionNamesTheConnectionCap() {
        assertThat(DaemonCommand.unreachable(URI.create("ws://h:7070/worktarget/v1"), 5,
                new java.net.SocketException("Connection reset"))).isEqualTo("Not connected to ws://h:7070/worktarget/v1 "
                + "within 5 s (--connect-timeout): the last attempt failed: SocketException: Connection reset. Check "
                + "--connect, and serve's log. A serve that already holds --max-connections connections closes new ones "
                + "this way, and logs a WARN that says so; then retry later, or raise its --max-connections.");
    }

    @Test
    void callToAnUnresolvableHostExitsUnreachableNamingTheHost() {
        assertThat(run("call", "--server", "http://no-such-host.invalid:7071", "--admin-token", ADMIN_TOKEN,
                "--target", "WORK", "--tenant", "acme", "--project", "proj", "file_list", "{}"))
                .isEqualTo(Main.UNREACHABLE);
        assertThat(stderr()).contains("the host 'no-such-host.invalid' does not resolve");
    }

    @Test
    void daemonAtAnUnresolvableHostExitsUnreachableNamingTheHost() {
        String url = "ws://no-such-host.invalid:7070/worktarget/v1";
        assertThat(run("daemon", "--connect", url, "--token", DAEMON_TOKEN, "--tenant", "acme", "--project", "proj",
                "--name", "box", "--connect-timeout", "1")).isEqualTo(Main.UNREACHABLE);
        assertThat(stderr()).isEqualTo("Not connected to " + url + " within 1 s (--connect-timeout): the host "
                + "'no-such-host.invalid' does not resolve. Check the host name in --connect (DNS, /etc/hosts)." + NL);
    }

    @Test
    void daemonAtTheAdminPortSaysItIsNotAWorkTargetServerNotCheckToken() {
        String url = wsUrl(admin.address().getPort());
        assertThat(run("daemon", "--connect", url, "--token", DAEMON_TOKEN, "--tenant", "acme", "--project", "proj",
                "--name", "box")).isEqualTo(Main.UNREACHABLE);
        assertThat(stderr()).isEqualTo("Not a WorkTarget server: " + url + " answered HTTP 401 without the "
                + "X-WorkTarget-Endpoint header: it is not a WorkTarget server's WebSocket port (is it the admin API's, "
                + "or another service's?). Check the port in the URI. serve's WebSocket port is its --port (default "
                + "7070); --admin-port is for 'call' only." + NL);
        assertThat(stderr()).doesNotContain("Check --token");
    }

    @Test
    void daemonWithAWrongPathIsRefusedNamingTheServersEndpoint() {
        assertThat(run("daemon", "--connect", "ws://127.0.0.1:" + server.port() + "/wrong", "--token", DAEMON_TOKEN,
                "--tenant", "acme", "--project", "proj", "--name", "box")).isEqualTo(Main.REFUSED);
        assertThat(stderr()).isEqualTo("Refused: The server refused the upgrade with HTTP 404: the path is wrong; the "
                + "server's endpoint is /worktarget/v1." + NL);
    }

    @Test
    void daemonWithAnHttpUrlOrANegativeConnectTimeoutIsAUsageError() {
        assertThat(run("daemon", "--connect", "http://127.0.0.1:7070/worktarget/v1", "--token", DAEMON_TOKEN))
                .isEqualTo(Main.USAGE);
        assertThat(run("daemon", "--connect", wsUrl(7070), "--token", DAEMON_TOKEN, "--connect-timeout", "-1"))
                .isEqualTo(Main.USAGE);
        assertThat(stderr()).isEqualTo("--connect must be a ws:// or wss:// URL with a host, e.g. "
                + "ws://brain:7070/worktarget/v1; got 'http://127.0.0.1:7070/worktarget/v1'. Run 'daemon --help' for "
                + "the options." + NL + "--connect-timeout must be at least 0, got -1. Run 'daemon --help' for the "
                + "options." + NL);
    }

    // ---- serve: the tokens file, the settings, the ports ----

    @Test
    void serveNamesTheTlsFileThatIsMissingOrNotPem() throws Exception {
        Path t = tokens(ONE_TOKEN);
        Path garbage = Files.writeString(t.resolveSibling("garbage.pem"), "not a certificate\n");
        Path missing = t.resolveSibling("missing.pem");
        assertThat(run("serve", "--workspace", workspace().toString(), "--tokens", t.toString(), "--tls-cert",
                missing.toString(), "--tls-key", garbage.toString())).isEqualTo(Main.USAGE);
        assertThat(stderr()).startsWith("--tls-cert " + missing + ": there is no such file. Give PEM files");
        err.reset();
        assertThat(run("serve", "--workspace", workspace().toString(), "--tokens", t.toString(), "--tls-cert",
                garbage.toString(), "--tls-key", garbage.toString())).isEqualTo(Main.USAGE);
        assertThat(stderr()).startsWith("Cannot load the TLS certificate (--tls-cert " + garbage + ") or key (--tls-key "
                + garbage + "): ").doesNotContain("..").contains("Give PEM files");
    }

    @Test
    void serveRefusesATokensFileWithAMisspelledKeyNamingTheLineAndTheKey() throws Exception {
        Path t = tokens("{\"tokens\": [\n  {\"token\": \"daemon-token-1\", \"tenant\": \"acme\",\n"
                + "   \"project\": [\"proj\"]}\n]}\n");
        assertThat(run("serve", "--workspace", workspace().toString(), "--tokens", t.toString())).isEqualTo(Main.USAGE);
        assertThat(stderr()).isEqualTo("--tokens " + t + ", line 3: unknown key 'project' in tokens[0] (did you mean "
                + "'projects'?). The keys are token, subject, tenant, projects, user. Run 'serve --help' for the options."
                + NL);
    }

    @Test
    void serveRefusesATokensFileEntryWithoutProjects() throws Exception {
        Path t = tokens("{\"tokens\": [\n  {\"token\": \"daemon-token-1\", \"tenant\": \"acme\"}\n]}\n");
        assertThat(run("serve", "--workspace", workspace().toString(), "--tokens", t.toString())).isEqualTo(Main.USAGE);
        assertThat(stderr()).isEqualTo("--tokens " + t + ", line 2: tokens[0] has no 'projects'; list the projects "
                + "the token grants, e.g. \"projects\":[\"proj\"] ([\"*\"] for every project of the tenant, [] for a foot "
                + "that only needs the tenant). Run 'serve --help' for the options." + NL);
    }

    @Test
    void serveRefusesATokensFileWithoutTokens() throws Exception {
        Path t = tokens("{\"tokens\": []}\n");
        assertThat(run("serve", "--workspace", workspace().toString(), "--tokens", t.toString())).isEqualTo(Main.USAGE);
        assertThat(stderr()).isEqualTo("--tokens " + t + ", line 1: \"tokens\" is empty, so no daemon or foot could "
                + "connect. Add an entry, e.g. {\"token\":\"<at least 8 characters>\",\"tenant\":\"acme\","
                + "\"projects\":[\"proj\"]}. Run 'serve --help' for the options." + NL);
    }

    @Test
    void serveRefusesATokensFileWithAValueOfTheWrongType() throws Exception {
        Path t = tokens("{\"tokens\": [\n  {\"token\": \"daemon-token-1\", \"tenant\": \"acme\", \"projects\": \"proj\"}\n]}");
        assertThat(run("serve", "--workspace", workspace().toString(), "--tokens", t.toString())).isEqualTo(Main.USAGE);
        assertThat(stderr()).isEqualTo("--tokens " + t + ", line 2: 'projects' in tokens[0] must be a list of project "
                + "names, e.g. [\"proj\"], got a string. Run 'serve --help' for the options." + NL);
        assertThat(stderr()).doesNotContain("daemon-token-1");
    }

    @Test
    void serveAtAPortInUseExitsUnreachableNamingThePortAndTheCause() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            assertThat(run("serve", "--workspace", workspace().toString(), "--tokens", goodTokens().toString(),
                    "--port", String.valueOf(port), "--admin-port", "0", "--admin-token", ADMIN_TOKEN))
                    .isEqualTo(Main.UNREACHABLE);
            assertThat(stderr()).isEqualTo("Could not bind the WorkTarget server on 127.0.0.1:" + port + ": port " + port
                    + " is already in use (another server, or an earlier run that still listens). Stop that process or "
                    + "choose another port. Options: --port, --bind." + NL);
        }
    }

    @Test
    void serveWithAnAdminPortInUseExitsUnreachableNamingTheAdminPort() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            assertThat(run("serve", "--workspace", workspace().toString(), "--tokens", goodTokens().toString(),
                    "--port", "0", "--admin-port", String.valueOf(port), "--admin-token", ADMIN_TOKEN))
                    .isEqualTo(Main.UNREACHABLE);
            assertThat(stderr()).isEqualTo("Could not bind the admin API on 127.0.0.1:" + port + ": port " + port
                    + " is already in use (another server, or an earlier run that still listens). Stop that process or "
                    + "choose another port. Option: --admin-port." + NL);
        }
    }

    @Test
    void serveWithAnUnresolvableBindHostExitsUnreachableNamingTheHost() throws Exception {
        assertThat(run("serve", "--workspace", workspace().toString(), "--tokens", goodTokens().toString(),
                "--bind", "no-such-host.invalid", "--port", "0", "--admin-port", "0", "--admin-token", ADMIN_TOKEN))
                .isEqualTo(Main.UNREACHABLE);
        assertThat(stderr()).isEqualTo("Could not bind the WorkTarget server on no-such-host.invalid:0: the host name "
                + "'no-such-host.invalid' does not resolve to an address. Give an address of this machine (127.0.0.1, "
                + "0.0.0.0 for every interface) or a name it resolves. Options: --port, --bind." + NL);
    }

    @Test
    void serveSettingsAreValidatedEachWithItsOwnMessage() throws Exception {
        String ws = workspace().toString();
        String t = goodTokens().toString();
        Map<List<String>, String> cases = new java.util.LinkedHashMap<>();
        cases.put(List.of("--home-scope", "galaxy"), "--home-scope must be project, tenant or user, got 'galaxy'.");
        cases.put(List.of("--max-transfer-mib", "0"), "--max-transfer-mib must be between 1 and 1048576, got 0.");
        cases.put(List.of("--home-max-mib", "-1"), "--home-max-mib must be at least 0, got -1.");
        cases.put(List.of("--kill-grace-ms", "x"), "--kill-grace-ms must be a number, got 'x'.");
        cases.put(List.of("--max-jobs", "0"), "--max-jobs must be at least 1, got 0.");
        cases.put(List.of("--max-jobs", "99999999999"), "--max-jobs must be at most 2147483647, got 99999999999.");
        cases.put(List.of("--result-max-kib", "0"), "--result-max-kib must be between 1 and 1048576, got 0.");
        cases.put(List.of("--isolation", "full"), SERVE_EXEC_OPTIONS + "isolationMode must be 'none' or 'custom' (any "
                + "case), got 'full'.");
        cases.put(List.of("--max-job-processes", "50"), SERVE_EXEC_OPTIONS + "maxJobProcesses=50 needs "
                + "jobControlGroups: the cap is kept by a control group of each job's own, made in such a directory.");
        cases.put(List.of("--job-cgroup", "/sys/fs/cgroup/pids", "--max-job-processes", "1"), SERVE_EXEC_OPTIONS
                + "maxJobProcesses must be 0 (no cap) or at least 2, got 1.");
        cases.put(List.of("--job-cgroup", "/sys/fs/cgroup/pids", "--max-job-memory-mib", "-1"), "--max-job-memory-mib "
                + "must be at least 0, got -1.");
        cases.put(List.of("--max-job-seconds", "-1"), "--max-job-seconds must be at least 0, got -1.");
        cases.put(List.of("--max-job-cpus", "2"), SERVE_EXEC_OPTIONS + "maxJobCpus=2.0 needs jobControlGroups: the "
                + "cap is kept by a control group of each job's own, made in such a directory.");
        cases.put(List.of("--job-cgroup", "/sys/fs/cgroup/pids", "--max-job-cpus", "0.001"), SERVE_EXEC_OPTIONS
                + "maxJobCpus must be 0 (no cap) or from 0.01 to 65536.0 CPUs (0.5 is half of one core's time), got "
                + "0.001.");
        Path notAGroup = Files.createDirectories(dir.resolve("not-a-group"));
        cases.put(List.of("--job-cgroup", notAGroup.toString(), "--max-job-processes", "50"), EXEC_OPTIONS
                + "jobControlGroups " + notAGroup + NOT_A_GROUP);
        cases.put(List.of("--result-max-kib", "99999999999"), "--result-max-kib must be between 1 and 1048576, got "
                + "99999999999.");
        Path aFile = Files.writeString(dir.resolve("not-a-dir"), "x");
        cases.put(List.of("--homes", aFile.toString()), "--homes " + aFile + " exists and is not a directory. Give a "
                + "directory, or a path that does not exist yet (it is created when first needed).");
        cases.put(List.of("--max-connections", "0"), "--max-connections must be between 1 and 1000000, got 0.");
        cases.put(List.of("--process-idle-minutes", "-1"), "--process-idle-minutes must be between 0 and 525600, got -1.");
        cases.put(List.of("--max-processes", "0"), "--max-processes must be between 1 and 1000000, got 0.");
        cases.put(List.of("--max-rootdirs", "0"), "--max-rootdirs must be between 1 and 1000000, got 0.");
        cases.put(List.of("--project-max-mib", "-1"), "--project-max-mib must be at least 0, got -1.");
        cases.put(List.of("--port", "70000"), "--port must be between 0 and 65535, got 70000.");
        for (Map.Entry<List<String>, String> c : cases.entrySet()) {
            err.reset();
            List<String> args = new java.util.ArrayList<>(List.of("serve", "--workspace", ws, "--tokens", t,
                    "--admin-port", "0", "--admin-token", ADMIN_TOKEN));
            if (!c.getKey().get(0).equals("--port")) {
                args.addAll(List.of("--port", "0"));
            }
            args.addAll(c.getKey());
            assertThat(run(args.toArray(String[]::new))).as(c.getKey().toString()).isEqualTo(Main.USAGE);
            assertThat(stderr()).as(c.getKey().toString())
                    .isEqualTo(c.getValue() + " Run 'serve --help' for the options." + NL);
        }
        err.reset();
        assertThat(run("serve", "--workspace", ws, "--tokens", t, "--isolation", "custom", "--isolation-wrapper",
                "bwrap --unshare-net", "--port", "0",
                "--admin-port", "0", "--admin-token", ADMIN_TOKEN)).isEqualTo(Main.USAGE);
        assertThat(stderr()).startsWith(SERVE_EXEC_OPTIONS);
    }

    @Test
    void serveWritesAGeneratedAdminTokenToAnOwnerOnlyFileAndAppliesTheHomeScope() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("WORKTARGET_ADMIN_TOKEN") == null,
                "a token in the environment is used instead of a generated one");
        Path tokenFile = dir.resolve("secrets").resolve("admin-token");
        ServeCommand.Running serve = ServeCommand.start(List.of("--workspace", workspace().toString(), "--tokens",
                goodTokens().toString(), "--port", "0", "--admin-port", "0", "--admin-token-file", tokenFile.toString(),
                "--home-scope", "tenant", "--max-transfer-mib", "5"), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            assertThat(serve.generatedTokenFile()).contains(tokenFile.toAbsolutePath());
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile))).isEqualTo("rw-------");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile.getParent())))
                    .isEqualTo("rwx------");
            String admin = "http://127.0.0.1:" + serve.adminPort();
            String[] homes = new String[2];
            for (int i = 0; i < 2; i++) {
                out.reset();
                assertThat(run("call", "--server", admin, "--admin-token-file", tokenFile.toString(), "--target", "WORK",
                        "--tenant", "acme", "--project", "p" + i, "exec_run", "{\"command\":\"echo $HOME\"}"))
                        .as(stderr()).isEqualTo(Main.OK);
                homes[i] = stdout().replaceAll("(?s).*\"stdout\" : \"([^\"]*?)(\\\\n)?\".*", "$1");
            }
            assertThat(homes[0]).as("a tenant-scoped HOME is shared by the tenant's projects").isEqualTo(homes[1])
                    .endsWith("/acme/_tenant");
        } finally {
            serve.close();
        }
        assertThat(tokenFile).doesNotExist();
    }

    @Test
    void serveMaxRootDirsCapsTheRootDirsOfAProject() throws Exception {
        ServeCommand.Running serve = ServeCommand.start(List.of("--workspace", workspace().toString(), "--tokens",
                goodTokens().toString(), "--port", "0", "--admin-port", "0", "--admin-token", ADMIN_TOKEN,
                "--max-rootdirs", "2"), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            String admin = "http://127.0.0.1:" + serve.adminPort();
            for (int i = 0; i < 2; i++) {
                assertThat(run("call", "--server", admin, "--admin-token", ADMIN_TOKEN, "--target", "WORK", "--tenant",
                        "acme", "--project", "proj", "--process", "keeper", "workspace_create_ephemeral_dir",
                        "{\"deleteOnCreatorClose\":false}")).as(stderr()).isEqualTo(Main.OK);
            }
            err.reset();
            assertThat(run("call", "--server", admin, "--admin-token", ADMIN_TOKEN, "--target", "WORK", "--tenant",
                    "acme", "--project", "proj", "--process", "keeper", "workspace_create_ephemeral_dir", "{}"))
                    .isEqualTo(Main.FAILED);
            assertThat(stderr()).startsWith("error size_limit: Project 'proj' holds ").contains("maxRootDirsPerProject 2");
        } finally {
            serve.close();
        }
    }

    @Test
    void serveMaxJobsCapsTheRunningJobsOfAProjectOverAllItsProcesses() throws Exception {
        ServeCommand.Running serve = ServeCommand.start(List.of("--workspace", workspace().toString(), "--tokens",
                goodTokens().toString(), "--port", "0", "--admin-port", "0", "--admin-token", ADMIN_TOKEN,
                "--max-jobs", "2", "--kill-grace-ms", "100"), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            String admin = "http://127.0.0.1:" + serve.adminPort();
            for (String process : List.of("one", "two")) {
                assertThat(run("call", "--server", admin, "--admin-token", ADMIN_TOKEN, "--target", "WORK", "--tenant",
                        "acme", "--project", "proj", "--process", process, "exec_run",
                        "{\"command\":\"sleep 60\",\"waitMs\":0}")).as(stderr()).isEqualTo(Main.OK);
            }
            err.reset();
            assertThat(run("call", "--server", admin, "--admin-token", ADMIN_TOKEN, "--target", "WORK", "--tenant",
                    "acme", "--project", "proj", "--process", "three", "exec_run", "{\"command\":\"true\"}"))
                    .isEqualTo(Main.FAILED);
            assertThat(stderr()).startsWith("error size_limit: Project acme/proj already has 2 running jobs");
        } finally {
            serve.close();
        }
    }

    @Test
    void serveProjectMaxMibRefusesAWriteThatWouldTakeTheProjectOverItsBudget() throws Exception {
        ServeCommand.Running serve = ServeCommand.start(List.of("--workspace", workspace().toString(), "--tokens",
                goodTokens().toString(), "--port", "0", "--admin-port", "0", "--admin-token", ADMIN_TOKEN,
                "--project-max-mib", "1"), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            String admin = "http://127.0.0.1:" + serve.adminPort();
            String content = "x".repeat(700 * 1024);
            assertThat(run("call", "--server", admin, "--admin-token", ADMIN_TOKEN, "--target", "WORK", "--tenant",
                    "acme", "--project", "proj", "--process", "keeper", "file_write",
                    "{\"path\":\"a.txt\",\"content\":\"" + content + "\"}")).as(stderr()).isEqualTo(Main.OK);
            err.reset();
            assertThat(run("call", "--server", admin, "--admin-token", ADMIN_TOKEN, "--target", "WORK", "--tenant",
                    "acme", "--project", "proj", "--process", "keeper", "file_write",
                    "{\"path\":\"b.txt\",\"content\":\"" + content + "\"}")).isEqualTo(Main.FAILED);
            assertThat(stderr()).startsWith("error budget_exceeded: The RootDirs of project 'proj' hold ")
                    .contains("disk budget of 1.0 MiB", "nothing was written");
        } finally {
            serve.close();
        }
    }

    // ---- call ----

    @Test
    void callToAWebSocketUrlIsAUsageErrorWithoutAStackTrace() {
        assertThat(run("call", "--server", wsUrl(server.port()), "--admin-token", ADMIN_TOKEN, "--target", "WORK",
                "work_target_get")).isEqualTo(Main.USAGE);
        assertThat(stderr()).isEqualTo("--server " + wsUrl(server.port()) + " is a WebSocket URL; call talks to serve's "
                + "admin API over HTTP: use http://127.0.0.1:ADMIN-PORT (serve's --admin-port, default --port + 1). Run "
                + "'call --help' for the options." + NL);
    }

    @Test
    void callToTheWebSocketPortSaysItIsNotTheAdminApi() {
        String url = "http://127.0.0.1:" + server.port();
        assertThat(run("call", "--server", url, "--admin-token", ADMIN_TOKEN, "--target", "WORK", "work_target_get"))
                .isEqualTo(Main.UNREACHABLE);
        assertThat(stderr()).isEqualTo(url + "/admin/v1/call answered HTTP 404 without the admin API's JSON: it is not "
                + "serve's admin API. Point --server at serve's --admin-port (default --port + 1), not at its WebSocket "
                + "port." + NL);
    }

    @Test
    void callThatTimesOutExitsWithItsOwnCode() throws Exception {
        connectDaemon();
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "DAEMON:build-box-01",
                "--timeout", "1", "file_read", "{\"path\":\"block\"}")).isEqualTo(Main.TIMEOUT);
        assertThat(stderr()).isEqualTo("No answer from " + adminUrl() + "/admin/v1/call within 1 s (--timeout). The call "
                + "may still run on the server: look at serve's log, or call again with a larger --timeout." + NL);
    }

    @Test
    void callReadsItsParametersFromAFileBeyondTheCommandLineLimit() throws Exception {
        connectDaemon();
        String longPath = "x".repeat(200 * 1024);
        Path params = Files.writeString(dir.resolve("params.json"), "{\"path\":\"" + longPath + "\"}");
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "DAEMON:build-box-01",
                "file_read", "@" + params)).as(stderr()).isEqualTo(Main.OK);
        assertThat(stdout()).contains("\"content\" : \"from box: " + longPath + "\"");
    }

    @Test
    void callSendsTextAsItIsAndLetsTheServerRefuseHalfACharacter() throws Exception {
        connectDaemon();
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "DAEMON:build-box-01",
                "file_read", "{\"path\":\"caf\u00e9 \\uD83D\\uDE00.md\"}")).as(stderr()).isEqualTo(Main.OK);
        assertThat(stdout()).contains("\"content\" : \"from box: caf\u00e9 \uD83D\uDE00.md\"");
        // before, the text was encoded here and the half became a '?' that the server took as a name
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "DAEMON:build-box-01",
                "file_read", "{\"path\":\"a\\uD800b.md\"}")).isEqualTo(Main.FAILED);
        assertThat(stderr()).contains("invalid_params", "Parameter 'path' of file_read holds an unpaired UTF-16 "
                + "surrogate");
    }

    @Test
    void callReadsItsParametersFromTheStandardInput() throws Exception {
        connectDaemon();
        assertThat(runWithInput(new ByteArrayInputStream("{\"path\":\"from-stdin.md\"}".getBytes(StandardCharsets.UTF_8)),
                "call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "DAEMON:build-box-01",
                "file_read", "-")).as(stderr()).isEqualTo(Main.OK);
        assertThat(stdout()).contains("\"content\" : \"from box: from-stdin.md\"");
    }

    @Test
    void callWithParametersOverTheAdminApisBodyLimitIsAUsageErrorBeforeTheyAreSent() throws Exception {
        byte[] big = ("{\"path\":\"a.txt\",\"content\":\"" + "x".repeat(CallCommand.MAX_PARAMS_BYTES) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        Path file = Files.write(dir.resolve("big.json"), big);

        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "WORK", "--tenant",
                "acme", "--project", "proj", "file_write", "@" + file)).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("The parameters in " + file + " are " + big.length + " bytes; serve's admin API "
                + "takes at most 4194304 bytes (4 MiB) per call. Move big content with a file transfer instead");

        err.reset();
        assertThat(runWithInput(new ByteArrayInputStream(big), "call", "--server", adminUrl(), "--admin-token",
                ADMIN_TOKEN, "--target", "WORK", "--tenant", "acme", "--project", "proj", "file_write", "-"))
                .isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("The parameters on the standard input are more than 4194304 bytes");
    }

    @Test
    void callRefusesParametersThatAreNotUtf8InsteadOfSendingReplacementCharacters() throws Exception {
        byte[] latin1 = "{\"path\":\"x.txt\",\"content\":\"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
        Path file = Files.write(dir.resolve("latin1.json"), latin1);
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "WORK", "--tenant",
                "acme", "--project", "proj", "file_write", "@" + file)).isEqualTo(Main.USAGE);
        assertThat(stderr()).startsWith("The parameters in " + file + " are not UTF-8 text (the byte at offset 30 "
                + "starts no UTF-8 character); JSON is UTF-8. Save them as UTF-8");
        err.reset();
        assertThat(runWithInput(new ByteArrayInputStream(latin1), "call", "--server", adminUrl(), "--admin-token",
                ADMIN_TOKEN, "--target", "WORK", "--tenant", "acme", "--project", "proj", "file_write", "-"))
                .isEqualTo(Main.USAGE);
        assertThat(stderr()).startsWith("The parameters on the standard input are not UTF-8 text");
        assertThat(dir.resolve("workspace")).as("nothing was sent").satisfiesAnyOf(
                d -> assertThat(d).doesNotExist(), d -> assertThat(Files.walk(d).map(Path::getFileName)
                        .map(String::valueOf)).doesNotContain("x.txt"));
    }

    @Test
    void callRefusesCommandLineParametersThatTheLocaleCouldNotDecode() {
        // what the JVM makes of "café" given as UTF-8 bytes in the C locale: the bytes it cannot decode become U+FFFD
        String decoded = "{\"path\":\"x.txt\",\"content\":\"caf\uFFFD\uFFFD\"}";
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "WORK", "--tenant",
                "acme", "--project", "proj", "file_write", decoded)).isEqualTo(Main.USAGE);
        assertThat(stderr()).startsWith("The parameters on the command line hold bytes that are not text in this "
                + "locale (character 30 became U+FFFD").contains("Pass them with @FILE or -", "LANG=C.UTF-8");
        assertThat(dir.resolve("workspace")).as("nothing was sent").satisfiesAnyOf(
                d -> assertThat(d).doesNotExist(), d -> assertThat(Files.walk(d).map(Path::getFileName)
                        .map(String::valueOf)).doesNotContain("x.txt"));
    }

    @Test
    void callWithAMissingParametersFileOrBadStdinIsAUsageError() {
        Path missing = dir.resolve("none.json");
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "WORK", "file_read",
                "@" + missing)).isEqualTo(Main.USAGE);
        assertThat(runWithInput(new ByteArrayInputStream("[1]".getBytes(StandardCharsets.UTF_8)), "call", "--server",
                adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "WORK", "file_read", "-")).isEqualTo(Main.USAGE);
        assertThat(stderr()).isEqualTo("Cannot read the parameters from @" + missing + ": there is no file " + missing
                + ". Run 'call --help' for the options." + NL + "The parameters on the standard input must be a JSON "
                + "object, e.g. '{\"path\":\"README.md\"}'. Run 'call --help' for the options." + NL);
    }
}
