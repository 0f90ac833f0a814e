package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;
import org.vancetope.worktarget.core.InMemoryProcessStore;

/**
 * Every invocation is answered exactly once: a tool that throws an {@code Error} (or returns what cannot
 * be sent) is answered {@code internal} at once, on the daemon over a real connection and in the
 * server's dispatcher, and the next call works. The call timeout is long, so an answer that only came
 * from the timeout would be {@code timeout}, not {@code internal}.
 */
class ToolErrorTest {
    private static final DaemonKey BOX = new DaemonKey("acme", "proj", "box");
    private static final Duration LONG = Duration.ofSeconds(60);
    private TestServer t;

    @BeforeEach
    void start() throws Exception {
        t = new TestServer();
    }

    @AfterEach
    void stop() {
        t.close();
    }

    private Map<String, Object> call(String tool, Map<String, Object> params) throws ToolException {
        return TestServer.invoke(t.server, BOX, tool, params, TestServer.ctx(), LONG);
    }

    /** A daemon with one worker thread, so a worker killed by the error would starve the next call. */
    private void daemonWith(BackendTool... tools) throws InterruptedException {
        t.started(t.daemonBuilder(BOX.name(), List.of(tools)).workerThreads(1));
    }

    private static BackendTool throwing(String name, Error error) {
        return TestServer.tool(name, (p, c) -> {
            throw error;
        });
    }

    private String connectionId() {
        return t.server.connections().get(0).connectionId();
    }

    private void assertInternal(String tool, String... messageParts) {
        assertThatThrownBy(() -> call(tool, Map.of("path", "a")))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).as(e.getMessage()).isEqualTo(ErrorCode.INTERNAL);
                    assertThat(e.getMessage()).contains(messageParts);
                });
    }

    @Test
    void aStackOverflowErrorInADaemonToolIsAnsweredInternalAtOnce() throws Exception {
        daemonWith(throwing("client_file_read", new StackOverflowError("test")));
        assertInternal("client_file_read", "client_file_read", "StackOverflowError");
    }

    @Test
    void anOutOfMemoryErrorInADaemonToolIsAnsweredInternalAtOnce() throws Exception {
        daemonWith(throwing("client_file_read", new OutOfMemoryError("test")));
        assertInternal("client_file_read", "client_file_read", "OutOfMemoryError");
    }

    @Test
    void aRealStackOverflowInADaemonToolIsAnsweredInternalAtOnce() throws Exception {
        daemonWith(TestServer.tool("client_file_read", (p, c) -> Map.of("depth", recurse(0))));
        assertInternal("client_file_read", "StackOverflowError");
    }

    private static int recurse(int depth) {
        return recurse(depth + 1) + 1;
    }

    @Test
    void laterCallsOnTheConnectionStillWorkAfterAToolThrewAnError() throws Exception {
        daemonWith(throwing("client_file_read", new OutOfMemoryError("test")),
                TestServer.tool("client_file_count", (p, c) -> Map.of("files", 3)));
        String before = connectionId();
        for (int i = 0; i < 3; i++) {
            assertInternal("client_file_read", "OutOfMemoryError");
        }
        assertThat(call("client_file_count", Map.of())).containsEntry("files", 3);
        assertThat(connectionId()).as("the same connection").isEqualTo(before);
        assertThat(t.server.connections().get(0).pendingCalls()).isZero();
    }

    @Test
    void aResultThatCannotBeEncodedIsAnsweredInternalAtOnce() throws Exception {
        daemonWith(TestServer.tool("client_file_read", (p, c) -> Map.of("content", new Object())));
        assertInternal("client_file_read", "client_file_read", "cannot be sent");
    }

    private static ToolSpec hostSpec(String name) {
        return new ToolSpec(name, "A host tool.", false, Set.of(), Map.of("type", "object",
                "properties", Map.of("path", Map.of("type", "string"))));
    }

    @Test
    void aHostToolThatThrowsAnErrorIsAnsweredInternalByTheDispatcher() throws Exception {
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p-1").tenant("acme").project("proj").session("s-1").user("alice").add();
        BackendTool crashing = BackendTool.of(hostSpec("host_crash"), (p, c) -> {
            throw new StackOverflowError("test");
        });
        WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder().processStore(store).hostTool(crashing)
                .hostTool(BackendTool.of(hostSpec("host_ok"), (p, c) -> Map.of("ok", true)))
                .build();
        assertThatThrownBy(() -> dispatcher.invoke("p-1", "host_crash", Map.of("path", "a")))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL);
                    assertThat(e.getMessage()).contains("host_crash", "StackOverflowError");
                });
        assertThat(dispatcher.invoke("p-1", "host_ok", Map.of())).containsEntry("ok", true);
    }
}
