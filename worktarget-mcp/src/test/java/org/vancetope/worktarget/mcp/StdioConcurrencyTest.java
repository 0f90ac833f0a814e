package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * Over stdio, too, at most {@link McpWorkTargetServer.Builder#maxConcurrentCalls} requests run at a time: one
 * more is answered at once with an error that says to send it again (a client that floods the server gets
 * errors, not a thread per line), the server reads on while calls wait, and once calls have ended requests
 * run again.
 */
class StdioConcurrencyTest {
    private LocalStdioServer server;
    private StdioPipe stdio;
    private WaitingCommands commands;

    @AfterEach
    void close() throws IOException {
        if (commands != null) {
            commands.release();     // ends the waiting commands, if a test failed before
        }
        if (server != null) {
            server.close();
        }
    }

    private void serve(Path tmp, int maxCalls) throws IOException {
        commands = new WaitingCommands(tmp);
        server = new LocalStdioServer(tmp, UnaryOperator.identity(), b -> b.maxConcurrentCalls(maxCalls));
        stdio = server.stdio;
        stdio.send(StdioPipe.INIT);
        stdio.answerTo(1);
    }

    /** Two waiting calls run (the limit), then a quick call is sent: the third request. */
    private void aThirdCallComesWhileTwoWait(Path tmp) throws IOException {
        sendWaitingCall(100);
        sendWaitingCall(101);
        Await.until("both waiting commands run", () -> commands.started() >= 2);
        stdio.send(call(3, "work_target_get", "{}"));
    }

    private static String call(int id, String tool, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + arguments + "}}\n";
    }

    /** {@code exec_run} of a {@link WaitingCommands} command, waiting for it to end. */
    private void sendWaitingCall(int id) throws IOException {
        stdio.send(call(id, "exec_run", WaitingCommands.ARGUMENTS));
    }

    @Test
    void aCallBeyondTheLimitIsRefusedAtOnceWithItsId(@TempDir Path tmp) throws IOException {
        serve(tmp, 2);

        aThirdCallComesWhileTwoWait(tmp);

        assertThat(stdio.answerTo(3)).contains("\"code\":-32000", "answers 2 requests at a time",
                "send this one again").doesNotContain("\"result\"");
        assertThat(stdio.received()).as("the waiting calls still wait").doesNotContain("\"id\":100,",
                "\"id\":101,");
    }

    @Test
    void requestsRunAgainOnceTheRunningCallsEnded(@TempDir Path tmp) throws IOException {
        serve(tmp, 2);
        aThirdCallComesWhileTwoWait(tmp);
        stdio.answerTo(3);

        commands.release();

        assertThat(stdio.answerTo(100)).contains("released");
        assertThat(stdio.answerTo(101)).contains("released");
        stdio.send(call(4, "work_target_get", "{}"));
        assertThat(stdio.answerTo(4)).contains("\"result\"", "isError\":false");
    }

    @Test
    void aQuickCallIsAnsweredWhileCallsBelowTheLimitWait(@TempDir Path tmp) throws IOException {
        serve(tmp, 8);
        for (int i = 0; i < 6; i++) {
            sendWaitingCall(100 + i);
        }
        Await.until("every waiting command runs", () -> commands.started() >= 6);

        stdio.send(call(2, "work_target_get", "{}"));

        assertThat(stdio.answerTo(2)).contains("\"result\"", "isError\":false");
        assertThat(stdio.received()).as("the waiting calls still wait").doesNotContain("released");
    }

    @Test
    void aRequestWithTheIdOfARunningCallIsRefusedAndTheRunningCallKeepsItsCancel(@TempDir Path tmp)
            throws IOException {
        serve(tmp, 8);
        sendWaitingCall(100);
        Await.until("the waiting command runs", () -> commands.started() >= 1);

        stdio.send(call(100, "work_target_get", "{}"));

        assertThat(stdio.answerTo(100)).contains("\"code\":-32600", "id 100 is still running",
                "Send this one again with a new id").doesNotContain("\"result\"");
        stdio.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":100}}\n");
        // the cancel reached the running exec_run: it answers once the job it started is killed
        Await.until("the running call answered", () -> stdio.received().contains("\"id\":100,\"result\""));
        assertThat(stdio.received()).contains("\"status\":\"killed\"");
        long pid = commands.pids().get(0);
        Await.until("the job's shell " + pid + " is gone",
                () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
        assertThat(stdio.received()).doesNotContain("released");
    }

    @Test
    void theLimitMustBeAtLeastOne() {
        assertThatThrownBy(() -> McpWorkTargetServer.builder().maxConcurrentCalls(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1, got 0");
    }
}
