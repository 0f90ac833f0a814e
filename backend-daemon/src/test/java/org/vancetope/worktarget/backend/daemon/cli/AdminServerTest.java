package org.vancetope.worktarget.backend.daemon.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.backend.daemon.internal.Wire;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolSpec;
import org.vancetope.worktarget.testfixtures.RawHttp;

/**
 * The admin API against hostile and careless peers, with raw sockets on loopback: the request deadline,
 * the token checked on the headers, the body's size and encoding, unsafe tenant and project names, a
 * tool that throws an {@code Error}, and the one-shot processes of calls without {@code processId}.
 */
class AdminServerTest {
    private static final String ADMIN_TOKEN = "admin-token-for-tests";
    private static final Duration TIMEOUT = Duration.ofMillis(300);
    private static final int MAX_BODY = 4096;
    /** The bound of every read: far beyond the deadline, so only a missing deadline reaches it. */
    private static final int READ_BOUND_MS = 15_000;

    @TempDir
    Path base;
    private Path workspace;
    private WorkspaceBackend work;
    private WorkTargetServer server;
    private InMemoryProcessStore store;
    private AdminServer admin;
    private WorkTargetDispatcher dispatcher;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @BeforeEach
    void start() throws Exception {
        workspace = Files.createDirectories(base.resolve("workspace"));
        work = WorkspaceBackend.builder().workspaceRoot(workspace).build();
        server = WorkTargetServer.builder().authenticator(TokenAuthenticator.builder()
                .token("daemon-token", new AuthPrincipal("box", "acme", Set.of("proj"), null)).build()).build().start();
        store = new InMemoryProcessStore();
        dispatcher = WorkTargetDispatcher.builder().processStore(store)
                .peers(server.peers())
                .backend(work)
                .hostTool(hostTool("test_recurse", (p, c) -> Map.of("depth", recurse(0))))
                .hostTool(hostTool("test_slow", (p, c) -> {
                    LockSupport.parkNanos(TIMEOUT.multipliedBy(3).toNanos());
                    return Map.of("slept", true);
                }))
                .build();
        admin = new AdminServer(server, dispatcher, store, ADMIN_TOKEN,
                AdminServer.Limits.defaults().withRequestTimeout(TIMEOUT).withMaxBodyBytes(MAX_BODY))
                .start("127.0.0.1", 0);
    }

    @AfterEach
    void stop() {
        admin.close();
        server.close();
        work.close();
    }

    private static BackendTool hostTool(String name, BackendTool.Body body) {
        return BackendTool.of(new ToolSpec(name, "a test tool", false, Set.of(),
                Map.of("type", "object", "properties", Map.of())), body);
    }

    private static int recurse(int depth) {
        return recurse(depth + 1) + 1;
    }

    // ----------------------------------------------------------------------------------- helpers

    private Socket open() throws IOException {
        Socket s = new Socket("127.0.0.1", admin.address().getPort());
        s.setSoTimeout(READ_BOUND_MS);
        return s;
    }

    private static String postHead(String token, int contentLength) {
        return "POST /admin/v1/call HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
                + "\r\nContent-Type: application/json\r\nContent-Length: " + contentLength + "\r\n\r\n";
    }

    private HttpResponse<String> post(byte[] body) throws Exception {
        return post(admin, body);
    }

    private HttpResponse<String> post(AdminServer to, byte[] body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + to.address().getPort()
                        + "/admin/v1/call")).header("Authorization", "Bearer " + ADMIN_TOKEN)
                .timeout(Duration.ofMillis(READ_BOUND_MS))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> call(Map<String, Object> body) throws Exception {
        return post(Wire.mapper().writeValueAsBytes(body));
    }

    private static JsonNode json(HttpResponse<String> r) throws IOException {
        return Wire.mapper().readTree(r.body());
    }

    private List<String> workspaceEntries() throws IOException {
        try (Stream<Path> s = Files.walk(workspace)) {
            return s.filter(p -> !p.equals(workspace)).map(p -> workspace.relativize(p).toString())
                    .filter(p -> !p.startsWith(".")).sorted().toList();
        }
    }

    private List<String> tempRootDirsOnDisk() throws IOException {
        Path project = workspace.resolve("acme/proj");
        if (!Files.isDirectory(project)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(project)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("temp-")).sorted().toList();
        }
    }

    // ------------------------------------------------------------------------- request deadline

    @Test
    void silentPeerGets408AndIsClosedAfterTheRequestTimeout() throws Exception {
        try (Socket s = open()) {
            assertThat(RawHttp.readUntilClosed(s)).startsWith("HTTP/1.1 408").contains("\"timeout\"", "within 300 ms");
        }
    }

    @Test
    void slowlorisPeerSendingAHeaderByteNowAndThenIsClosedAfterTheRequestTimeout() throws Exception {
        try (Socket s = open()) {
            AtomicInteger sent = new AtomicInteger();
            Thread slow = new Thread(() -> {
                byte[] head = ("GET /admin/v1/connections HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "a".repeat(4000))
                        .getBytes(StandardCharsets.US_ASCII);
                try {
                    OutputStream out = s.getOutputStream();
                    for (byte c : head) {
                        out.write(c);
                        out.flush();
                        sent.incrementAndGet();
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                    }
                } catch (IOException closed) {
                    // the server closed the connection: what the test waits for
                }
            }, "slowloris");
            slow.setDaemon(true);
            slow.start();
            String answer = RawHttp.readUntilClosed(s);
            slow.join(READ_BOUND_MS);
            assertThat(answer).startsWith("HTTP/1.1 408");
            assertThat(sent.get()).as("header bytes sent before the close").isPositive().isLessThan(4000);
        }
    }

    @Test
    void authorizedPeerSendingItsBodySlowlyIsClosedAfterTheRequestTimeout() throws Exception {
        try (Socket s = open()) {
            RawHttp.send(s, postHead(ADMIN_TOKEN, 1000) + "{");
            assertThat(RawHttp.readUntilClosed(s)).startsWith("HTTP/1.1 408");
        }
    }

    @Test
    void idleKeptAliveConnectionIsClosedAfterTheRequestTimeout() throws Exception {
        try (Socket s = open()) {
            RawHttp.send(s, "GET /admin/v1/connections HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + ADMIN_TOKEN
                    + "\r\n\r\n");
            String all = RawHttp.readUntilClosed(s);
            assertThat(all).startsWith("HTTP/1.1 200");
            assertThat(all.indexOf("HTTP/1.1 408")).as("a 408 after the answer").isPositive();
        }
    }

    @Test
    void callThatRunsLongerThanTheRequestTimeoutIsAnswered() throws Exception {
        HttpResponse<String> r = call(Map.of("tenant", "acme", "project", "proj", "target", "WORK", "tool", "test_slow"));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(json(r).path("result").path("slept").asBoolean()).isTrue();
    }

    @Test
    void normalClientGetsAnswersOnAKeptAliveConnection() throws Exception {
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = call(Map.of("tenant", "acme", "project", "proj", "target", "WORK",
                    "tool", "work_target_get"));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
    }

    // --------------------------------------------------------------------------- token first

    @Test
    void wrongTokenIsRefusedOnTheHeadersBeforeTheBodyArrives() throws Exception {
        try (Socket s = open()) {
            RawHttp.send(s, postHead("not-the-admin-token", MAX_BODY));     // the body never comes
            String answer = RawHttp.readUntilClosed(s);
            assertThat(answer).startsWith("HTTP/1.1 401").contains("\"unauthorized\"");
        }
    }

    @Test
    void missingTokenWithExpectContinueGets401Not100() throws Exception {
        try (Socket s = open()) {
            RawHttp.send(s, "POST /admin/v1/call HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\nExpect: 100-continue"
                    + "\r\n\r\n");
            assertThat(RawHttp.readUntilClosed(s)).startsWith("HTTP/1.1 401").doesNotContain("100 Continue");
        }
    }

    @Test
    void bodyOverTheLimitIs413NamingTheLimit() throws Exception {
        try (Socket s = open()) {
            RawHttp.send(s, postHead(ADMIN_TOKEN, MAX_BODY + 1));
            assertThat(RawHttp.readUntilClosed(s)).startsWith("HTTP/1.1 413").contains("\"size_limit\"", "maxBodyBytes",
                    String.valueOf(MAX_BODY));
        }
    }

    // --------------------------------------------------------------------- encoding and names

    @Test
    void bodyThatIsNotValidUtf8Is400AndMakesNoDirectory() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes("{\"tenant\":\"".getBytes(StandardCharsets.US_ASCII));
        body.write(0xFF);
        body.write(0xFE);
        body.writeBytes(("\",\"project\":\"proj\",\"target\":\"WORK\",\"tool\":\"file_write\","
                + "\"params\":{\"path\":\"a.txt\",\"content\":\"x\"}}").getBytes(StandardCharsets.US_ASCII));
        HttpResponse<String> r = post(body.toByteArray());
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).path("error").path("message").asText()).contains("not valid UTF-8");
        assertThat(workspaceEntries()).isEmpty();
    }

    @Test
    void tenantOrProjectThatIsNotASafeSegmentIs400AndMakesNoDirectory() throws Exception {
        for (String[] scope : new String[][] {{"\uFFFD\uFFFD", "proj"}, {"..", "proj"}, {"acme", "a/b"},
            {".hidden", "proj"}, {"acme", "x\u0085y"}}) {
            HttpResponse<String> r = call(Map.of("tenant", scope[0], "project", scope[1], "target", "WORK",
                    "tool", "file_write", "params", Map.of("path", "a.txt", "content", "x")));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
            assertThat(json(r).path("error").path("message").asText()).as(r.body())
                    .containsAnyOf("'tenant' must be", "'project' must be");
        }
        assertThat(workspaceEntries()).isEmpty();
    }

    @Test
    void theGrantWildcardAsTheProjectIs400AndMakesNoDirectory() throws Exception {
        HttpResponse<String> r = call(Map.of("tenant", "acme", "project", "*", "target", "WORK",
                "tool", "file_write", "params", Map.of("path", "a.txt", "content", "x")));
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(json(r).path("error").path("message").asText())
                .contains("'project' is '*', which in a token's projects grants every project");
        assertThat(workspaceEntries()).isEmpty();
    }

    // ---------------------------------------------------------------------------- Throwable

    @Test
    void toolThatThrowsAnErrorIsAnsweredInternalAndTheServerKeepsServing() throws Exception {
        HttpResponse<String> r = call(Map.of("tenant", "acme", "project", "proj", "target", "WORK",
                "tool", "test_recurse"));
        // 500 from the admin API; 200 with the same error when the dispatcher already turned it into one
        assertThat(r.statusCode()).isIn(200, 500);
        assertThat(json(r).path("ok").asBoolean(true)).isFalse();
        assertThat(json(r).path("error").path("code").asText()).as(r.body()).isEqualTo("internal");
        HttpResponse<String> next = call(Map.of("tenant", "acme", "project", "proj", "target", "WORK",
                "tool", "work_target_get"));
        assertThat(next.statusCode()).as(next.body()).isEqualTo(200);
        assertThat(store.size()).isZero();
    }

    // ------------------------------------------------------------------------ one-shot processes

    @Test
    void oneShotCallsLeaveNoTempRootDirAndNoProcessBehind() throws Exception {
        int calls = 300;
        for (int i = 0; i < calls; i++) {
            HttpResponse<String> r = call(Map.of("tenant", "acme", "project", "proj", "target", "WORK",
                    "tool", "file_write", "params", Map.of("path", "n.txt", "content", "call " + i)));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
        assertThat(work.rootDirs("acme", "proj")).as("RootDirs after %d one-shot calls", calls).isEmpty();
        assertThat(tempRootDirsOnDisk()).as("temp RootDirs on disk after %d one-shot calls", calls).isEmpty();
        assertThat(store.size()).as("processes in the store").isZero();
    }

    @Test
    void callWithAProcessIdKeepsItsTempRootDir() throws Exception {
        for (int i = 0; i < 2; i++) {
            HttpResponse<String> r = call(Map.of("tenant", "acme", "project", "proj", "target", "WORK",
                    "processId", "kept-1", "tool", "file_write", "params", Map.of("path", "n.txt", "content", "x")));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        }
        assertThat(work.rootDirs("acme", "proj")).hasSize(1);
        assertThat(tempRootDirsOnDisk()).hasSize(1);
        assertThat(store.size()).isEqualTo(1);
    }

    // -------------------------------------------------------------------------- named processes

    private Map<String, Object> namedCall(String processId, String project) {
        return Map.of("tenant", "acme", "project", project, "target", "WORK", "processId", processId,
                "tool", "file_write", "params", Map.of("path", "n.txt", "content", "x"));
    }

    private HttpResponse<String> send(AdminServer to, String method, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + to.address().getPort() + path))
                .header("Authorization", "Bearer " + ADMIN_TOKEN).timeout(Duration.ofMillis(READ_BOUND_MS))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private AdminServer adminWith(Duration idle, int max) throws IOException {
        return new AdminServer(server, dispatcher, store, ADMIN_TOKEN, AdminServer.Limits.defaults()
                .withRequestTimeout(TIMEOUT).withProcesses(idle, max)).start("127.0.0.1", 0);
    }

    @Test
    void deleteEndsANamedProcessWithItsTempRootDir() throws Exception {
        assertThat(call(namedCall("kept-1", "proj")).statusCode()).isEqualTo(200);
        assertThat(tempRootDirsOnDisk()).hasSize(1);

        HttpResponse<String> r = send(admin, "DELETE", "/admin/v1/processes/kept-1");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(json(r).path("result").path("ended").asBoolean()).isTrue();
        assertThat(tempRootDirsOnDisk()).isEmpty();
        assertThat(work.rootDirs("acme", "proj")).isEmpty();
        assertThat(store.size()).isZero();
    }

    @Test
    void closingTheAdminApiEndsTheNamedProcessesWithTheirTempRootDirs() throws Exception {
        assertThat(call(namedCall("kept-1", "proj")).statusCode()).isEqualTo(200);
        assertThat(call(namedCall("kept-2", "proj")).statusCode()).isEqualTo(200);
        assertThat(tempRootDirsOnDisk()).hasSize(2);

        admin.close();

        assertThat(tempRootDirsOnDisk()).isEmpty();
        assertThat(store.size()).isZero();
    }

    @Test
    void anEndpointAskedWithAnotherMethodIs405NamingItsMethodAndAnUnknownPathIs404() throws Exception {
        HttpResponse<String> put = send(admin, "PUT", "/admin/v1/call");
        assertThat(put.statusCode()).isEqualTo(405);
        assertThat(json(put).path("error").path("message").asText()).isEqualTo("PUT is not served on /admin/v1/call: "
                + "use POST.");
        assertThat(send(admin, "POST", "/admin/v1/processes/x").statusCode()).isEqualTo(405);
        assertThat(send(admin, "GET", "/admin/v1/nothing").statusCode()).isEqualTo(404);
    }

    @Test
    void deleteOfAnUnknownProcessIs404SayingWhy() throws Exception {
        HttpResponse<String> r = send(admin, "DELETE", "/admin/v1/processes/never-was");

        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(json(r).path("error").path("message").asText()).contains("No named process 'never-was'",
                "GET /admin/v1/processes lists them");
    }

    @Test
    void deleteOfAProcessWhoseCallRunsIs409AndLeavesItRunning() throws Exception {
        java.util.concurrent.CompletableFuture<HttpResponse<String>> slow = java.util.concurrent.CompletableFuture
                .supplyAsync(() -> {
                    try {
                        return call(Map.of("tenant", "acme", "project", "proj", "target", "WORK", "processId", "busy",
                                "tool", "test_slow"));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
        org.vancetope.worktarget.testfixtures.Await.until("the slow call runs", () -> {
            try {
                return json(send(admin, "GET", "/admin/v1/processes")).path("processes").path(0)
                        .path("runningCalls").asInt() == 1;
            } catch (Exception e) {
                return false;
            }
        });

        HttpResponse<String> r = send(admin, "DELETE", "/admin/v1/processes/busy");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(409);
        assertThat(json(r).path("error").path("message").asText()).contains("A call runs in process 'busy'");
        assertThat(slow.get(READ_BOUND_MS, TimeUnit.MILLISECONDS).statusCode()).isEqualTo(200);
        assertThat(send(admin, "DELETE", "/admin/v1/processes/busy").statusCode()).isEqualTo(200);
    }

    @Test
    void aNamedProcessKeepsTheScopeOfItsFirstCall() throws Exception {
        assertThat(call(namedCall("kept-1", "proj")).statusCode()).isEqualTo(200);

        HttpResponse<String> r = call(namedCall("kept-1", "other"));

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).path("error").path("message").asText()).contains("Process 'kept-1' belongs to acme/proj",
                "Use another processId, or end this one first (DELETE /admin/v1/processes/kept-1)");
        assertThat(workspace.resolve("acme/other")).doesNotExist();
    }

    @Test
    void aProcessIdThatIsTooLongOrHasASlashOrBlankIs400() throws Exception {
        for (String id : List.of("a/b", "a b", "x".repeat(AdminServer.MAX_PROCESS_ID_CHARS + 1), "tab\t")) {
            HttpResponse<String> r = call(namedCall(id, "proj"));
            assertThat(r.statusCode()).as(id).isEqualTo(400);
            assertThat(json(r).path("error").path("message").asText()).as(id).startsWith("'processId' must");
        }
        assertThat(store.size()).isZero();
    }

    @Test
    void theListingShowsTheNamedProcessesAndTheLimits() throws Exception {
        assertThat(call(namedCall("b-1", "proj")).statusCode()).isEqualTo(200);
        assertThat(call(namedCall("a-1", "proj")).statusCode()).isEqualTo(200);

        JsonNode listing = json(send(admin, "GET", "/admin/v1/processes"));

        assertThat(listing.path("processes").findValuesAsText("processId")).containsExactly("a-1", "b-1");
        assertThat(listing.path("processes").path(0).path("project").asText()).isEqualTo("proj");
        assertThat(listing.path("maxProcesses").asInt()).isEqualTo(AdminServer.Limits.DEFAULT_MAX_PROCESSES);
        assertThat(listing.path("processIdleSeconds").asLong()).isEqualTo(3600);
    }

    @Test
    void onANodeOfAFleetANamedProcessIsQualifiedByTheNodeTowardsTheBackendsAndNamedAloneByCallers()
            throws Exception {
        AdminServer node = new AdminServer(server, dispatcher, store, ADMIN_TOKEN, AdminServer.Limits.defaults()
                .withRequestTimeout(TIMEOUT), "node-1").start("127.0.0.1", 0);
        try {
            assertThat(post(node, Wire.mapper().writeValueAsBytes(namedCall("shared", "proj"))).statusCode())
                    .isEqualTo(200);

            assertThat(store.find("shared@node-1")).as("the id the daemons of the fleet see").isPresent();
            assertThat(store.find("shared")).isEmpty();
            assertThat(json(send(node, "GET", "/admin/v1/processes")).path("processes")
                    .findValuesAsText("processId")).containsExactly("shared");
            assertThat(send(node, "DELETE", "/admin/v1/processes/shared").statusCode()).isEqualTo(200);
            assertThat(store.find("shared@node-1")).isEmpty();
        } finally {
            node.close();
        }
    }

    @Test
    void oneNamedProcessMoreThanTheLimitIs429AndOneShotCallsStillRun() throws Exception {
        AdminServer small = adminWith(Duration.ofHours(1), 1);
        try {
            assertThat(post(small, Wire.mapper().writeValueAsBytes(namedCall("first", "proj"))).statusCode())
                    .isEqualTo(200);

            HttpResponse<String> r = post(small, Wire.mapper().writeValueAsBytes(namedCall("second", "proj")));

            assertThat(r.statusCode()).isEqualTo(429);
            assertThat(json(r).path("error").path("code").asText()).isEqualTo("size_limit");
            assertThat(json(r).path("error").path("message").asText()).contains("already 1 named processes",
                    "DELETE /admin/v1/processes/ID");
            assertThat(post(small, Wire.mapper().writeValueAsBytes(Map.of("tenant", "acme", "project", "proj",
                    "target", "WORK", "tool", "work_target_get"))).statusCode()).isEqualTo(200);
        } finally {
            small.close();
        }
    }

    @Test
    void aNamedProcessWithoutACallForTheIdleTimeIsEndedWithItsTempRootDir() throws Exception {
        AdminServer quick = adminWith(Duration.ofMillis(200), 16);
        try {
            assertThat(post(quick, Wire.mapper().writeValueAsBytes(namedCall("idle-1", "proj"))).statusCode())
                    .isEqualTo(200);
            assertThat(tempRootDirsOnDisk()).hasSize(1);

            org.vancetope.worktarget.testfixtures.Await.until("the idle process is ended", () -> {
                try {
                    return tempRootDirsOnDisk().isEmpty() && store.size() == 0;
                } catch (IOException e) {
                    return false;
                }
            });
            assertThat(json(send(quick, "GET", "/admin/v1/processes")).path("processes").size()).isZero();
        } finally {
            quick.close();
        }
    }

    // ------------------------------------------------------------------------------ connection cap

    @Test
    void aConnectionOverTheCapIsClosedAtOnceAndOneClosedMakesRoom() throws Exception {
        AdminServer capped = new AdminServer(server, dispatcher, store, ADMIN_TOKEN, AdminServer.Limits.defaults()
                .withRequestTimeout(Duration.ofSeconds(READ_BOUND_MS)).withMaxConnections(2)).start("127.0.0.1", 0);
        try {
            Socket first = new Socket("127.0.0.1", capped.address().getPort());
            Socket second = new Socket("127.0.0.1", capped.address().getPort());
            try (Socket over = new Socket("127.0.0.1", capped.address().getPort())) {
                over.setSoTimeout(READ_BOUND_MS);
                assertThat(RawHttp.readUntilClosed(over)).as("what the connection over the cap got").isEmpty();
            }
            first.close();
            second.close();

            org.vancetope.worktarget.testfixtures.Await.until("a new connection is served", () -> {
                try {
                    return send(capped, "GET", "/admin/v1/processes").statusCode() == 200;
                } catch (Exception e) {
                    return false;
                }
            });
        } finally {
            capped.close();
        }
    }
}
