package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolLabel;
import org.vancetope.worktarget.spi.ToolSpec;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * One oversized call on a daemon fails alone: a request or a result larger than the 2 MiB frame limit
 * is answered {@code size_limit} for that call, the WebSocket stays open, and the long {@code exec_run}
 * another process has in flight on the same daemon runs on to its end. Real loopback sockets, a daemon
 * serving a {@link LocalBackend}.
 */
class OversizedCallTest {
    private static final DaemonKey BOX = new DaemonKey("acme", "proj", "box");
    private static final ToolContext WRITER = new ToolContext("p-writer", "s-w", "acme", "proj", "alice");
    private static final ToolContext BYSTANDER = new ToolContext("p-bystander", "s-b", "acme", "proj", "bob");
    /** Bounds a hang; the calls below never take this long. */
    private static final Duration CALL_TIMEOUT = Duration.ofMinutes(15);
    private static final int MIB = 1024 * 1024;
    /** A tool that returns {@code bytes} characters of text: the wire-level test of an oversized result. */
    private static final ToolSpec BLOB = new ToolSpec("client_test_blob", "Returns 'bytes' characters of text.", false,
            Set.of(ToolLabel.READ_ONLY), Map.of("type", "object",
                    "properties", Map.of("bytes", Map.of("type", "integer"))));

    @TempDir
    Path workDir;

    private final ExecutorService callers = Executors.newCachedThreadPool();
    private TestServer t;
    private LocalBackend local;

    @AfterEach
    void stop() {
        callers.shutdownNow();
        if (t != null) {
            t.close();
        }
        if (local != null) {
            local.close();
        }
    }

    private void start(UnaryOperator<WorkTargetServer.Builder> server) throws Exception {
        start(server, d -> d);
    }

    private void start(UnaryOperator<WorkTargetServer.Builder> server, UnaryOperator<WorkTargetClient.Builder> daemon)
            throws Exception {
        t = new TestServer(server);
        local = LocalBackend.builder().workDirectory(workDir).build();
        List<BackendTool> tools = new ArrayList<>(local.tools());
        tools.add(BackendTool.of(BLOB, (p, ctx) -> Map.of("text", "x".repeat(((Number) p.get("bytes")).intValue()))));
        t.started(daemon.apply(t.daemonBuilder(BOX.name(), tools)));
    }

    private void start() throws Exception {
        start(b -> b);
    }

    private Map<String, Object> call(ToolContext ctx, String tool, Map<String, Object> params) throws ToolException {
        return TestServer.invoke(t.server, BOX, tool, params, ctx, CALL_TIMEOUT);
    }

    private String connectionId() {
        assertThat(t.server.connections()).hasSize(1);
        return t.server.connections().get(0).connectionId();
    }

    /** Another process's exec_run, in flight on the daemon until the file {@code go} appears. */
    private Future<Map<String, Object>> bystander() {
        Future<Map<String, Object>> job = callers.submit(() -> call(BYSTANDER, "client_exec_run", Map.of(
                "command", "touch started; while [ ! -e go ]; do sleep 0.02; done; echo finished", "waitMs", 600_000)));
        Await.until("the bystander's job runs on the daemon", () -> Files.exists(workDir.resolve("started")));
        return job;
    }

    /** Lets the bystander's job end, and checks it ran to its end rather than being cancelled. */
    private void assertBystanderRanOn(Future<Map<String, Object>> job) throws Exception {
        assertThat(job.isDone()).as("the bystander's call is still running").isFalse();
        Files.createFile(workDir.resolve("go"));
        Map<String, Object> r;
        try {
            r = job.get(Await.LIMIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("the bystander's exec_run failed: " + e.getCause(), e.getCause());
        }
        assertThat(r).containsEntry("status", "exited").containsEntry("exitCode", 0);
        assertThat((String) r.get("stdout")).contains("finished");
    }

    private static ToolException failure(ThrowingCall c) {
        try {
            c.run();
        } catch (ToolException e) {
            return e;
        }
        throw new AssertionError("the call succeeded");
    }

    @FunctionalInterface
    private interface ThrowingCall {
        void run() throws ToolException;
    }

    @Test
    void anOversizedRequestFailsAloneWithSizeLimitAndTheBystandersJobRunsOn() throws Exception {
        start();
        String before = connectionId();
        Future<Map<String, Object>> job = bystander();
        ToolException e = failure(() -> call(WRITER, "client_file_write",
                Map.of("path", "big.txt", "content", "y".repeat(3_000_000))));
        assertThat(e.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
        assertThat(e.getMessage()).contains("client_file_write", "2 MiB", "maxFrameBytes", "Nothing ran",
                "client_file_download");
        assertThat(workDir.resolve("big.txt")).doesNotExist();
        assertThat(connectionId()).as("the same connection").isEqualTo(before);
        assertThat(call(WRITER, "client_file_write", Map.of("path", "small.txt", "content", "ok"))).isNotNull();
        assertThat(workDir.resolve("small.txt")).hasContent("ok");
        assertBystanderRanOn(job);
    }

    @Test
    void anOversizedResultFailsAloneWithSizeLimitAndTheBystandersJobRunsOn() throws Exception {
        start();
        String before = connectionId();
        Future<Map<String, Object>> job = bystander();
        ToolException e = failure(() -> call(WRITER, BLOB.name(), Map.of("bytes", 3_000_000)));
        assertThat(e.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
        assertThat(e.getMessage()).contains("result of client_test_blob", "2 MiB", "maxFrameBytes", "Ask for less");
        assertThat(connectionId()).as("the same connection").isEqualTo(before);
        assertThat(call(WRITER, BLOB.name(), Map.of("bytes", 10))).containsEntry("text", "x".repeat(10));
        assertBystanderRanOn(job);
    }

    @Test
    void aHugeFileGrepComesBackTruncatedWithAHintAndTheBystandersJobRunsOn() throws Exception {
        start();
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 3000; i++) {
            text.append("match-").append(i).append(' ').append("z".repeat(590)).append('\n');
        }
        Files.writeString(workDir.resolve("log.txt"), text);     // 1.8 MB; 1000 hits with 40 lines of context: ~24 MB
        String before = connectionId();
        Future<Map<String, Object>> job = bystander();
        Map<String, Object> grep = Map.of("pattern", "match-", "path", "log.txt", "contextBefore", 20,
                "contextAfter", 20, "limit", 1000);
        Map<String, Object> r = call(WRITER, "client_file_grep", grep);
        assertThat(r).as("the result is cut to the result budget, below the frame limit")
                .containsEntry("truncated", true);
        assertThat((String) r.get("hint")).contains("resultMaxBytes");
        assertThat(((Number) r.get("count")).intValue()).isBetween(1, 999);
        assertThat(connectionId()).as("the same connection").isEqualTo(before);
        assertThat(call(WRITER, "client_file_grep", Map.of("pattern", "match-2999 ", "path", "log.txt")))
                .containsEntry("count", 1);
        assertBystanderRanOn(job);
    }

    @Test
    void aRequestJustUnderTheFrameLimitIsDelivered() throws Exception {
        start();
        String content = "y".repeat(2 * MIB - 4096);
        call(WRITER, "client_file_write", Map.of("path", "near.txt", "content", content));
        assertThat(Files.size(workDir.resolve("near.txt"))).isEqualTo(content.length());
    }

    @Test
    void aResultJustUnderTheFrameLimitIsDelivered() throws Exception {
        start();
        int n = 2 * MIB - 4096;
        assertThat((String) call(WRITER, BLOB.name(), Map.of("bytes", n)).get("text")).hasSize(n);
    }

    @Test
    void aDaemonHoldsItsResultsToTheSmallerLimitTheServerAnnounces() throws Exception {
        start(b -> b.maxFrameBytes(256 * 1024));
        String before = connectionId();
        ToolException e = failure(() -> call(WRITER, BLOB.name(), Map.of("bytes", 300_000)));
        assertThat(e.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
        assertThat(e.getMessage()).contains("256 KiB");
        assertThat(connectionId()).as("the same connection").isEqualTo(before);
        assertThat(call(WRITER, BLOB.name(), Map.of("bytes", 200_000))).containsKey("text");
    }

    @Test
    void aServerHoldsItsInvocationsToItsOwnSmallerLimit() throws Exception {
        start(b -> b.maxFrameBytes(256 * 1024));
        ToolException e = failure(() -> call(WRITER, "client_file_write",
                Map.of("path", "big.txt", "content", "y".repeat(300_000))));
        assertThat(e.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
        assertThat(e.getMessage()).contains("256 KiB");
        assertThat(workDir.resolve("big.txt")).doesNotExist();
    }

    @Test
    void aServerHoldsItsInvocationsToTheSmallerLimitTheDaemonAnnouncesInItsHello() throws Exception {
        start(b -> b, d -> d.maxFrameBytes(128 * 1024));
        String before = connectionId();
        Future<Map<String, Object>> job = bystander();
        ToolException e = failure(() -> call(WRITER, "client_file_write",
                Map.of("path", "big.txt", "content", "y".repeat(200_000))));
        assertThat(e.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
        assertThat(e.getMessage()).contains("128 KiB");
        assertThat(workDir.resolve("big.txt")).doesNotExist();
        assertThat(connectionId()).as("the same connection").isEqualTo(before);
        call(WRITER, "client_file_write", Map.of("path", "small.txt", "content", "y".repeat(100_000)));
        assertThat(Files.size(workDir.resolve("small.txt"))).isEqualTo(100_000);
        assertBystanderRanOn(job);
    }

    @Test
    void parametersThatAreNotJsonFailInternalWithoutBeingSentAndTheConnectionCarriesOn() throws Exception {
        start();
        String before = connectionId();
        ToolException e = failure(() -> call(WRITER, "client_file_write",
                Map.of("path", "a.txt", "content", new Object())));
        assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL);
        assertThat(e.getMessage()).contains("client_file_write", "could not be encoded", "Nothing ran");
        assertThat(t.server.connections().get(0).pendingCalls()).isZero();
        assertThat(connectionId()).isEqualTo(before);
        assertThat(call(WRITER, "client_file_write", Map.of("path", "a.txt", "content", "ok"))).isNotNull();
    }
}
