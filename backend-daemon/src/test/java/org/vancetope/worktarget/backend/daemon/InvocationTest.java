package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

class InvocationTest {
    private static final DaemonKey BOX = new DaemonKey("acme", "proj", "box");
    private static final Duration LONG = Duration.ofSeconds(60);
    private TestServer t;
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @BeforeEach
    void start() throws Exception {
        t = new TestServer();
    }

    @AfterEach
    void stop() {
        callers.shutdownNow();
        t.close();
    }

    private Map<String, Object> call(DaemonKey key, String tool, Map<String, Object> params, Duration timeout)
            throws ToolException {
        return TestServer.invoke(t.server, key, tool, params, TestServer.ctx(), timeout);
    }

    private Future<Map<String, Object>> callAsync(DaemonKey key, Duration timeout) {
        return callers.submit(() -> call(key, "client_file_read", Map.of("path", "a"), timeout));
    }

    private static ToolException failure(Future<?> f) throws Exception {
        try {
            f.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(ToolException.class);
            return (ToolException) e.getCause();
        }
        throw new AssertionError("the call succeeded");
    }

    @Test
    void daemonCallReturnsTheToolResultWithTheCallersContext() throws Exception {
        t.daemon("box", List.of(TestServer.echoRead("box")));
        assertThat(call(BOX, "client_file_read", Map.of("path", "README.md"), LONG))
                .containsEntry("content", "box:README.md").containsEntry("processId", "proc-1");
    }

    @Test
    void toolFailureArrivesWithItsCodeAndMessage() throws Exception {
        t.daemon("box", List.of(TestServer.tool("client_file_read", (p, c) -> {
            throw new ToolException(ErrorCode.PATH_ESCAPE, "'../x' is outside the work directory.");
        })));
        assertThatThrownBy(() -> call(BOX, "client_file_read", Map.of("path", "../x"), LONG))
                .isInstanceOf(ToolException.class).hasMessage("'../x' is outside the work directory.")
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.PATH_ESCAPE);
    }

    @Test
    void unexpectedToolCrashIsAnInternalErrorWithoutDetails() throws Exception {
        t.daemon("box", List.of(TestServer.tool("client_file_read", (p, c) -> {
            throw new IllegalStateException("/secret/host/path exploded");
        })));
        assertThatThrownBy(() -> call(BOX, "client_file_read", Map.of("path", "a"), LONG))
                .isInstanceOf(ToolException.class).hasMessageNotContaining("/secret")
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.INTERNAL);
    }

    @Test
    void toolNotInTheManifestIsAnsweredUnknownTool() throws Exception {
        t.daemon("box", List.of(TestServer.echoRead("box")));
        assertThatThrownBy(() -> call(BOX, "client_exec_run", Map.of("command", "true"), LONG))
                .isInstanceOf(ToolException.class).hasMessageContaining("client_file_read")
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.UNKNOWN_TOOL);
    }

    @Test
    void replacedToolsAreAnnouncedAndServed() throws Exception {
        WorkTargetClient box = t.daemon("box", List.of(TestServer.echoRead("box")));
        box.replaceTools(List.of(TestServer.tool("client_file_count", (p, c) -> Map.of("files", 7L))));
        // the manifest frame precedes the result on the same connection, so the server has it once the call returns
        assertThat(call(BOX, "client_file_count", Map.of(), LONG)).containsEntry("files", 7);
        assertThat(t.server.peers().find(BOX).orElseThrow().manifest()).extracting(s -> s.name())
                .containsExactly("client_file_count");
        assertThatThrownBy(() -> call(BOX, "client_file_read", Map.of("path", "a"), LONG))
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.UNKNOWN_TOOL);
    }

    @Test
    void callToAnUnknownDaemonFailsOffline() {
        assertThatThrownBy(() -> call(new DaemonKey("acme", "proj", "nobody"), "client_file_read", Map.of(), LONG))
                .isInstanceOf(ToolException.class).hasMessageContaining("nobody")
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.OFFLINE);
    }

    @Test
    void disconnectMidCallFailsTheCallAtOnceWithOffline() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        WorkTargetClient box = t.daemon("box", List.of(TestServer.tool("client_file_read", (p, c) -> {
            running.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Map.of();
        })));
        Future<Map<String, Object>> f = callAsync(BOX, LONG);
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        box.close();
        assertThat(failure(f).code()).isEqualTo(ErrorCode.OFFLINE);
        assertThat(t.server.peers().find(BOX)).isEmpty();
    }

    @Test
    void timeoutFailsTheCallAndCancelsItOnTheDaemon() throws Exception {
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        CompletableFuture<CancelledCall> hook = new CompletableFuture<>();
        t.started(t.daemonBuilder("box", List.of(TestServer.tool("client_file_read", (p, c) -> {
            try {
                new CountDownLatch(1).await();
                interrupted.complete(false);
            } catch (InterruptedException e) {
                interrupted.complete(true);
            }
            return Map.of();
        }))).onCancel(hook::complete));
        assertThatThrownBy(() -> call(BOX, "client_file_read", Map.of("path", "slow"), Duration.ofMillis(300)))
                .isInstanceOf(ToolException.class).hasMessageContaining("300 ms")
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.TIMEOUT);
        assertThat(interrupted.get(10, TimeUnit.SECONDS)).isTrue();
        CancelledCall cancelled = hook.get(10, TimeUnit.SECONDS);
        assertThat(cancelled.tool()).isEqualTo("client_file_read");
        assertThat(cancelled.correlationId()).startsWith("dt-");
        assertThat(cancelled.params()).containsEntry("path", "slow");
        assertThat(cancelled.context().processId()).isEqualTo("proc-1");
    }

    @Test
    void lateResultIsDroppedAndTheConnectionKeepsWorking() throws Exception {
        try (RawClient raw = RawClient.daemon(t.uri(), "box", RawClient.READ_TOOL)) {
            Future<Map<String, Object>> f = callAsync(BOX, Duration.ofMillis(200));
            String invoke = raw.next();
            String id = RawClient.correlationId(invoke);
            assertThat(id).matches("dt-[0-9a-f]{32}");
            assertThat(failure(f).code()).isEqualTo(ErrorCode.TIMEOUT);
            assertThat(raw.next()).contains("client_tool_cancel", id);
            raw.send("{\"type\":\"client_tool_result\",\"correlationId\":\"" + id + "\",\"ok\":true,\"result\":{}}");
            Future<Map<String, Object>> second = callAsync(BOX, LONG);
            String id2 = RawClient.correlationId(raw.next());
            raw.send("{\"type\":\"client_tool_result\",\"correlationId\":\"" + id2 + "\",\"ok\":true,\"result\":{\"n\":2}}");
            assertThat(second.get(10, TimeUnit.SECONDS)).containsEntry("n", 2);
            assertThat(raw.isOpen()).isTrue();
        }
    }

    @Test
    void resultFromAnotherConnectionIsIgnored() throws Exception {
        DaemonKey other = new DaemonKey("acme", "proj", "intruder");
        try (RawClient box = RawClient.daemon(t.uri(), "box", RawClient.READ_TOOL);
             RawClient intruder = RawClient.daemon(t.uri(), "intruder", RawClient.READ_TOOL)) {
            Future<Map<String, Object>> f = callAsync(BOX, LONG);
            String id = RawClient.correlationId(box.next());
            intruder.send("{\"type\":\"client_tool_result\",\"correlationId\":\"" + id
                    + "\",\"ok\":true,\"result\":{\"from\":\"intruder\"}}");
            // a round trip on the intruder's connection proves its result was processed (and dropped)
            Future<Map<String, Object>> probe = callAsync(other, LONG);
            String probeId = RawClient.correlationId(intruder.next());
            intruder.send("{\"type\":\"client_tool_result\",\"correlationId\":\"" + probeId + "\",\"ok\":true}");
            probe.get(10, TimeUnit.SECONDS);
            assertThat(f.isDone()).isFalse();
            box.send("{\"type\":\"client_tool_result\",\"correlationId\":\"" + id + "\",\"ok\":true,\"result\":{\"from\":\"box\"}}");
            assertThat(f.get(10, TimeUnit.SECONDS)).containsEntry("from", "box");
        }
    }

    @Test
    void secondDaemonWithTheSameNameSupersedesTheFirstAndFailsItsCallsAtOnce() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        WorkTargetClient first = t.daemon("box", List.of(TestServer.tool("client_file_read", (p, c) -> {
            running.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Map.of();
        })));
        Future<Map<String, Object>> f = callAsync(BOX, LONG);
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        t.daemon("box", List.of(TestServer.echoRead("second")));
        assertThat(failure(f).code()).isEqualTo(ErrorCode.SUPERSEDED);
        assertThatThrownBy(() -> first.terminated().get(10, TimeUnit.SECONDS)).cause()
                .isInstanceOf(ServerRefusedException.class)
                .satisfies(e -> assertThat(((ServerRefusedException) e).status()).isEqualTo(4409));
        assertThat(call(BOX, "client_file_read", Map.of("path", "x"), LONG)).containsEntry("content", "second:x");
    }

    @Test
    void sixtyFourConcurrentCallsOverEightDaemonsAllArriveAtTheRightDaemon() throws Exception {
        for (int d = 0; d < 8; d++) {
            t.started(t.daemonBuilder("box-" + d, List.of(TestServer.echoRead("box-" + d))).workerThreads(8));
        }
        List<Future<Map<String, Object>>> calls = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        for (int i = 0; i < 64; i++) {
            DaemonKey key = new DaemonKey("acme", "proj", "box-" + (i % 8));
            String path = "file-" + i;
            calls.add(callers.submit(() -> {
                go.await();
                return call(key, "client_file_read", Map.of("path", path), LONG);
            }));
        }
        go.countDown();
        for (int i = 0; i < 64; i++) {
            assertThat(calls.get(i).get(20, TimeUnit.SECONDS)).containsEntry("content", "box-" + (i % 8) + ":file-" + i);
        }
    }

    @Test
    void footCallRoutesByTenantAndSession() throws Exception {
        t.started(WorkTargetClient.builder().uri(t.uri()).token(TestServer.FOOT_TOKEN).foot("acme", null, "s-1")
                .tools(List.of(TestServer.echoRead("foot"))));
        assertThat(t.server.peers().find(new SessionKey("acme", "s-1"))).isPresent();
        assertThat(t.server.peers().find(new SessionKey("acme", "s-2"))).isEmpty();
        assertThat(t.server.peers().find(new SessionKey("acme", "s-1")).orElseThrow().manifest()).hasSize(1);
        assertThat(TestServer.invoke(t.server, new SessionKey("acme", "s-1"), "client_file_read", Map.of("path", "p"), TestServer.ctx(), LONG))
                .containsEntry("content", "foot:p");
        assertThatThrownBy(() -> TestServer.invoke(t.server, new SessionKey("acme", "s-2"), "client_file_read", Map.of(), TestServer.ctx(),
                LONG)).extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.OFFLINE);
    }

    @Test
    void serverShutdownFailsPendingCallsAtOnceWithOffline() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        t.daemon("box", List.of(TestServer.tool("client_file_read", (p, c) -> {
            running.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Map.of();
        })));
        Future<Map<String, Object>> f = callAsync(BOX, LONG);
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        t.server.close();
        assertThat(failure(f).code()).isEqualTo(ErrorCode.OFFLINE);
    }

    @Test
    void clientReconnectsAfterTheServerRestarts() throws Exception {
        WorkTargetClient box = t.daemon("box", List.of(TestServer.echoRead("box")));
        int port = t.server.port();
        t.server.close();
        try (TestServer again = new TestServer(b -> b.port(port))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!TestServer.online(again.server, BOX) && System.nanoTime() < deadline) {
                assertThat(box.awaitConnected(Duration.ofMillis(100))).isNotNull();
            }
            assertThat(TestServer.invoke(again.server, BOX, "client_file_read", Map.of("path", "r"), TestServer.ctx(), LONG))
                    .containsEntry("content", "box:r");
        }
    }
}
