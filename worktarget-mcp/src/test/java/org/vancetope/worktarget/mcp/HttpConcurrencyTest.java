package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * Over Streamable HTTP each request runs on a thread of its own: calls that wait (here {@code exec_run}s
 * that wait until the test lets their commands end) do not hold up a quick call, however many there are;
 * the SDK's default ran them on ten threads per core, so the eleventh call per core waited for one of them.
 * Beyond the server's limit of concurrent calls a request gets an error at once, and once calls have ended
 * requests run again; one principal's calls take at most a quarter of that limit, so another is still served.
 */
class HttpConcurrencyTest {
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

    private void start(Path tmp, UnaryOperator<McpWorkTargetServer.Builder> settings) throws IOException {
        server = new LocalHttpServer(tmp, UnaryOperator.identity(), settings);
        commands = new WaitingCommands(tmp);
    }

    private HttpRequest request(String sessionId, String body) {
        return server.request(sessionId, body);
    }

    private String session() throws IOException, InterruptedException {
        return server.session(http);
    }

    private static String call(int id, String tool, String arguments) {
        return LocalHttpServer.call(id, tool, arguments);
    }

    private CompletableFuture<HttpResponse<String>> waitingCall(String session, int id) {
        return server.waitingCall(http, session, id);
    }

    @Test
    void aQuickCallIsAnsweredWhileMoreCallsWaitThanTheSdksSharedThreads(@TempDir Path tmp) throws Exception {
        start(tmp, UnaryOperator.identity());
        String session = session();
        int waiting = 10 * Runtime.getRuntime().availableProcessors() + 4;
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        for (int i = 0; i < waiting; i++) {
            calls.add(waitingCall(session, 100 + i));
        }
        Await.until("every waiting command runs", () -> commands.started() >= waiting);

        HttpResponse<String> quick = http.send(request(session, call(2, "work_target_get", "{}")),
                HttpResponse.BodyHandlers.ofString());

        assertThat(quick.body()).contains("\"id\":2", "\"isError\":false");
        assertThat(calls).as("the waiting calls still wait").noneMatch(CompletableFuture::isDone);
        commands.release();
        for (CompletableFuture<HttpResponse<String>> c : calls) {
            assertThat(c.get().body()).contains("released", "\"isError\":false");
        }
    }

    @Test
    void aCallBeyondTheLimitIsRefusedAtOnceAndRequestsRunAgainOnceCallsEnded(@TempDir Path tmp) throws Exception {
        start(tmp, b -> b.maxConcurrentCalls(2));     // one per principal (a quarter, at least one)
        String session = session();
        String second = server.session(http, LocalHttpServer.SECOND_TOKEN);
        List<CompletableFuture<HttpResponse<String>>> calls = List.of(waitingCall(session, 100),
                server.waitingCall(http, second, 101, LocalHttpServer.SECOND_TOKEN));
        Await.until("both waiting commands run", () -> commands.started() >= 2);

        String third = server.session(http, LocalHttpServer.THIRD_TOKEN);
        HttpResponse<String> refused = http.send(server.request(third, call(3, "work_target_get", "{}"),
                LocalHttpServer.THIRD_TOKEN), HttpResponse.BodyHandlers.ofString());

        assertThat(refused.statusCode()).isEqualTo(200);
        assertThat(refused.body()).contains("\"id\":3", "\"code\":-32000", "answers 2 requests at a time",
                "send this one again");
        commands.release();
        for (CompletableFuture<HttpResponse<String>> c : calls) {
            assertThat(c.get().body()).contains("released");
        }
        Await.until("a call runs again", () -> quickCallAnswered(session, 4));
    }

    @Test
    void onePrincipalsCallsTakeAtMostAQuarterOfTheSlotsSoAnotherIsStillServed(@TempDir Path tmp) throws Exception {
        start(tmp, b -> b.maxConcurrentCalls(8));
        List<String> sessions = List.of(session(), session());
        List<CompletableFuture<HttpResponse<String>>> calls = List.of(waitingCall(sessions.get(0), 100),
                waitingCall(sessions.get(1), 101));
        Await.until("both waiting commands run", () -> commands.started() >= 2);

        HttpResponse<String> refused = http.send(request(session(), call(3, "work_target_get", "{}")),
                HttpResponse.BodyHandlers.ofString());
        String second = server.session(http, LocalHttpServer.SECOND_TOKEN);
        HttpResponse<String> served = http.send(server.request(second, call(4, "work_target_get", "{}"),
                LocalHttpServer.SECOND_TOKEN), HttpResponse.BodyHandlers.ofString());

        assertThat(refused.body()).contains("\"id\":3", "\"code\":-32000", "'agent' has 2 requests running",
                "a quarter of its 8", "send this one again");
        assertThat(served.body()).contains("\"id\":4", "\"isError\":false");
        commands.release();
        for (CompletableFuture<HttpResponse<String>> c : calls) {
            assertThat(c.get().body()).contains("released");
        }
        Await.until("the agent's calls run again", () -> quickCallAnswered(sessions.get(0), 5));
    }

    @Test
    void theEventsOfAStreamCarryNoIdAsTheyCannotBeReplayed(@TempDir Path tmp) throws Exception {
        start(tmp, UnaryOperator.identity());
        String session = session();
        String body = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"exec_run\","
                + "\"arguments\":{\"command\":\"sleep 2.5; echo done\",\"waitMs\":60000},\"_meta\":{\"progressToken\":\"p-7\"}}}";

        HttpResponse<String> r = http.send(request(session, body), HttpResponse.BodyHandlers.ofString());

        assertThat(r.body()).contains("notifications/progress", "\"p-7\"", "done");
        assertThat(r.body().lines()).as("an event id would invite a resume with Last-Event-ID that replays nothing")
                .noneMatch(l -> l.startsWith("id:"));
    }

    private boolean quickCallAnswered(String session, int id) {
        try {
            return http.send(request(session, call(id, "work_target_get", "{}")), HttpResponse.BodyHandlers.ofString())
                    .body().contains("\"isError\":false");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
