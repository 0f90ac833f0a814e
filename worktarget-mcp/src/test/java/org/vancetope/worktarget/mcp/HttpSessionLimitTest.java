package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * One principal may have at most {@link McpWorkTargetServer.Builder#httpMaxSessionsPerPrincipal} HTTP sessions
 * open (here 2): a client that initializes again and again (a client that restarts without DELETE) ends its
 * least recently used idle session each time, so sessions and their processes cannot pile up; a session with a
 * call running is never ended for that, and when all are busy the initialize gets an error that says why.
 * A session has one listening (GET) stream: a new one ends the older (the SDK does so as it replaces it), so
 * a client that opens GET streams again and again does not pile up connections either.
 */
class HttpSessionLimitTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
    private LocalHttpServer server;
    private WaitingCommands commands;

    @AfterEach
    void stop() throws IOException {
        if (commands != null) {
            commands.release();     // ends the waiting commands, if a test failed before
        }
        if (server != null) {
            server.close();
        }
    }

    private void start(Path tmp) throws IOException {
        server = new LocalHttpServer(tmp, m -> m, b -> b.httpMaxSessionsPerPrincipal(2));
        commands = new WaitingCommands(tmp);
    }

    private HttpResponse<String> workTargetGet(String session, int id) throws IOException, InterruptedException {
        return http.send(server.request(session, LocalHttpServer.call(id, "work_target_get", "{}")),
                HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<HttpResponse<String>> waitingCall(String session, int id) {
        return server.waitingCall(http, session, id);
    }

    @Test
    void oneSessionMoreThanTheLimitEndsTheLeastRecentlyUsedIdleOne(@TempDir Path tmp) throws Exception {
        start(tmp);
        String first = server.session(http);
        String second = server.session(http);
        assertThat(workTargetGet(first, 2).body()).contains("\"isError\":false");  // the second is now the idlest

        String third = server.session(http);

        assertThat(workTargetGet(second, 3).statusCode()).as("the idlest session ended").isEqualTo(404);
        assertThat(workTargetGet(first, 4).body()).contains("\"isError\":false");
        assertThat(workTargetGet(third, 5).body()).contains("\"isError\":false");
    }

    @Test
    void aSessionWithACallRunningIsNotEndedToMakeRoom(@TempDir Path tmp) throws Exception {
        start(tmp);
        String busy = server.session(http);
        CompletableFuture<HttpResponse<String>> running = waitingCall(busy, 2);
        Await.until("the waiting command runs", () -> commands.started() >= 1);
        String idle = server.session(http);

        server.session(http);

        assertThat(workTargetGet(idle, 3).statusCode()).isEqualTo(404);
        commands.release();
        assertThat(running.get().body()).contains("released", "\"isError\":false");
        assertThat(workTargetGet(busy, 4).body()).contains("\"isError\":false");
    }

    @Test
    void whenEverySessionIsBusyAnInitializeGetsAnErrorThatSaysWhy(@TempDir Path tmp) throws Exception {
        start(tmp);
        List<CompletableFuture<HttpResponse<String>>> running = List.of(waitingCall(server.session(http), 2),
                waitingCall(server.session(http), 2));
        Await.until("both waiting commands run", () -> commands.started() >= 2);

        HttpResponse<String> refused = http.send(server.request(null, LocalHttpServer.INITIALIZE),
                HttpResponse.BodyHandlers.ofString());

        assertThat(refused.body()).contains("\"code\":-32000", "'agent' has 2 MCP sessions open",
                "each has a call running", "initialize again").doesNotContain("\"result\"");
        assertThat(refused.headers().firstValue("Mcp-Session-Id")).isEmpty();
        commands.release();
        for (CompletableFuture<HttpResponse<String>> r : running) {
            assertThat(r.get().body()).contains("released");
        }
        assertThat(server.session(http)).as("room once the calls ended").isNotBlank();
    }

    /** Opens the session's listening stream: its head has arrived when this returns. */
    private HttpResponse<InputStream> listen(String session) throws IOException, InterruptedException {
        HttpRequest get = HttpRequest.newBuilder(URI.create(server.url)).timeout(Duration.ofSeconds(120)).GET()
                .header("Accept", "text/event-stream").header("Mcp-Session-Id", session)
                .header("Authorization", "Bearer " + LocalHttpServer.TOKEN).build();
        HttpResponse<InputStream> r = http.send(get, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        return r;
    }

    @Test
    void aNewListeningStreamEndsTheSessionsOlderOne(@TempDir Path tmp) throws Exception {
        start(tmp);
        String session = server.session(http);
        HttpResponse<InputStream> older = listen(session);

        InputStream newer = listen(session).body();
        try {
            CompletableFuture<byte[]> rest = CompletableFuture.supplyAsync(() -> {
                try (InputStream in = older.body()) {
                    return in.readAllBytes();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            assertThat(rest.get(60, TimeUnit.SECONDS)).as("the older stream ended").isEmpty();
            assertThat(workTargetGet(session, 2).body()).contains("\"isError\":false");
        } finally {
            newer.close();
        }
    }

    @Test
    void theLimitMustBeAtLeastOne() {
        assertThatThrownBy(() -> McpWorkTargetServer.builder().httpMaxSessionsPerPrincipal(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1, got 0");
    }
}
