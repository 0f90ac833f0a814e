package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.daemon.cli.Main;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * The stdio server in its own JVM, stopped the way an MCP client stops a server that did not end when its
 * input closed: SIGTERM. It ends the jobs its calls started and exits 0, as {@code mcp --help} says.
 */
class StdioSigtermTest {
    @Test
    void sigtermEndsTheRunningJobAndExitsZero(@TempDir Path tmp) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(NodeClients.stdioServer("--workdir", tmp.toString(), "--warm-up", "off"))
                .redirectError(tmp.resolve("server.log").toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("LC_ALL", "C.UTF-8");   // no relaunch: the SIGTERM reaches the server's JVM itself
        Process server = pb.start();
        WaitingCommands waiting = new WaitingCommands(tmp);
        try {
            OutputStream stdin = server.getOutputStream();
            stdin.write((StdioPipe.INIT + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
                    + "\"name\":\"exec_run\",\"arguments\":" + WaitingCommands.ARGUMENTS + "}}\n")
                    .getBytes(StandardCharsets.UTF_8));
            stdin.flush();   // stdin stays open: the client waits for the answer
            Await.until("the job starts", () -> waiting.started() == 1);
            long job = waiting.pids().get(0);

            server.destroy();   // SIGTERM

            assertThat(server.waitFor(60, TimeUnit.SECONDS)).as("the server ends").isTrue();
            assertThat(server.exitValue()).as("the exit code").isEqualTo(Main.OK);
            Optional<ProcessHandle> left = ProcessHandle.of(job);
            assertThat(left.map(ProcessHandle::isAlive).orElse(false)).as("the job's shell is gone").isFalse();
        } finally {
            server.destroyForcibly();
            waiting.release();
        }
    }
}
