package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolSpec;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * The MCP server closing over HTTP (what {@code mcp --http} does on SIGTERM) while a call runs: the call is
 * answered on its stream before its session ends.
 */
class HttpShutdownTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
    private LocalHttpServer server;
    private WaitingCommands commands;

    @AfterEach
    void stop() throws java.io.IOException {
        if (commands != null) {
            commands.release();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aCallRunningWhenTheServerClosesIsAnsweredOnItsStreamBeforeItsSessionEnds(@TempDir Path tmp) throws Exception {
        server = new LocalHttpServer(tmp, UnaryOperator.identity(), UnaryOperator.identity());
        commands = new WaitingCommands(tmp);
        String session = server.session(http);
        CompletableFuture<HttpResponse<String>> waiting = server.waitingCall(http, session, 7);
        Await.until("the waiting command runs", () -> commands.started() >= 1);

        server.close();

        HttpResponse<String> r = waiting.get(60, TimeUnit.SECONDS);
        assertThat(r.body()).as("the call's answer on its stream: its job was killed").contains("\"id\":7",
                "\"status\":\"killed\"");
        assertThat(commands.pids()).as("the job was ended").allSatisfy(pid ->
                Await.until("job " + pid + " ended", () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true)));
    }

    @Test
    void aCallThatFailsAsTheServerClosesIsAnsweredThatTheServerIsShuttingDown(@TempDir Path tmp) throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        BackendTool blocking = BackendTool.of(new ToolSpec("test_block", "Blocks until interrupted.", false, Set.of(),
                Map.of("type", "object", "properties", Map.of())), (p, c) -> {
                    entered.countDown();
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted", e);
                    }
                    return Map.of();
                });
        server = new LocalHttpServer(tmp, UnaryOperator.identity(), UnaryOperator.identity(), List.of(blocking));
        String session = server.session(http);
        CompletableFuture<HttpResponse<String>> waiting = http.sendAsync(server.request(session,
                LocalHttpServer.call(8, "test_block", "{}")), HttpResponse.BodyHandlers.ofString());
        assertThat(entered.await(60, TimeUnit.SECONDS)).isTrue();

        server.close();

        HttpResponse<String> r = waiting.get(60, TimeUnit.SECONDS);
        assertThat(r.body()).contains("\"id\":8", "\"isError\":true", "cancelled: test_block was ended because the "
                + "MCP server is shutting down; what it had done by then stays done");
    }
}
