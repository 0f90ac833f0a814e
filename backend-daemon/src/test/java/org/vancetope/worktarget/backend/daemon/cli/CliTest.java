package org.vancetope.worktarget.backend.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
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
        if (daemon != null) {
            daemon.close();
        }
        admin.close();
        server.close();
    }

    private void connectDaemon() throws InterruptedException {
        BackendTool read = BackendTool.of(ToolCatalog.backend("client_file_read").orElseThrow(),
                (p, c) -> Map.of("content", "from box: " + p.get("path")));
        daemon = WorkTargetClient.builder().uri(URI.create("ws://127.0.0.1:" + server.port() + "/worktarget/v1"))
                .token(DAEMON_TOKEN).daemon("acme", "proj", "build-box-01").tools(List.of(read)).build().start();
        assertThat(daemon.awaitConnected(Duration.ofSeconds(10))).isTrue();
    }

    private int run(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

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
        assertThat(stderr()).contains("--max-transfer-mib must be at least 1");
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
        assertThat(stderr()).contains("401");
    }

    @Test
    void serveWithoutTokensFileIsAUsageError() {
        assertThat(run("serve", "--workspace", ".", "--tokens", "does-not-exist.json")).isEqualTo(Main.USAGE);
        assertThat(stderr()).contains("--tokens");
    }

    @Test
    void callRunsTheToolOnTheDaemonAndPrintsTheJsonResult() throws Exception {
        connectDaemon();
        assertThat(run("call", "--server", adminUrl(), "--admin-token", ADMIN_TOKEN, "--target", "DAEMON:build-box-01",
                "file_read", "{\"path\":\"README.md\"}")).as(stderr()).isEqualTo(Main.OK);
        assertThat(stdout()).contains("\"content\" : \"from box: README.md\"");
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
}
