package org.vancetope.worktarget.examples;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The README's "Basic use", as a program the build compiles and runs: WORK alone, then a server with a
 * daemon. The README shows the text between the {@code README:begin} and {@code README:end} lines,
 * and a test keeps the two the same.
 */
public final class BasicUse {
    private BasicUse() {
    }

    /**
     * Runs the example.
     *
     * @param args a base directory to work in (default: a new temporary directory)
     * @throws Exception when a step fails
     */
    public static void main(String[] args) throws Exception {
        // README:begin
        Path base = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("worktarget-basic-use");
        // WorkTarget logs through SLF4J: add a binding (slf4j-simple, logback, …) to see its logs.
        InMemoryProcessStore processes = new InMemoryProcessStore();   // or your host's own ProcessStore
        processes.process("agent-1").tenant("acme").project("shop").session("s-1").user("alice").add();

        // 1. WORK alone: the tools run in a server-side workspace, in the process's temporary RootDir.
        try (WorkspaceBackend work = WorkspaceBackend.builder()
                .workspaceRoot(base.resolve("workspace"))
                .homesRoot(base.resolve("homes"))                            // where jobs get their HOME
                .execSettings(ExecSettings.builder().killGrace(Duration.ofSeconds(5)).build())
                .build()) {
            WorkTargetDispatcher tools = WorkTargetDispatcher.builder().processStore(processes).backend(work).build();
            tools.invoke("agent-1", "file_write", Map.of("path", "hello.txt", "content", "hello\nworld\n"));
            System.out.println(tools.invoke("agent-1", "exec_run", Map.of("command", "wc -l hello.txt")).get("stdout"));
            try {
                tools.invoke("agent-1", "file_read", Map.of("path", "missing.txt"));
            } catch (ToolException e) {                                      // a stable code and what to do next
                System.out.println(e.code().wire() + ": " + e.getMessage());
            }
            tools.processEnded("agent-1");                                   // its temp RootDir and jobs go
            processes.remove("agent-1");
        }

        // 2. A server with a daemon. The daemon normally runs on another machine
        //    (java -jar worktarget.jar daemon ...); here it runs in this JVM on a second directory.
        processes.process("agent-2").tenant("acme").project("shop").session("s-1").user("alice").add();
        String token = "a-long-random-daemon-token";
        try (WorkspaceBackend work = WorkspaceBackend.builder().workspaceRoot(base.resolve("workspace"))
                     .homesRoot(base.resolve("homes")).build();
             WorkTargetServer server = WorkTargetServer.builder().host("127.0.0.1").port(0)
                     .authenticator(TokenAuthenticator.builder()
                             .token(token, new AuthPrincipal("build-box", "acme", Set.of("shop"), null)).build())
                     .build().start();
             LocalBackend box = LocalBackend.builder().workDirectory(base.resolve("build-box")).build();
             WorkTargetClient daemon = WorkTargetClient.builder()
                     .uri(URI.create("ws://127.0.0.1:" + server.port() + "/worktarget/v1"))
                     .token(token).daemon("acme", "shop", "build-box").tools(box.tools()).build().start()) {
            if (!daemon.awaitConnected(Duration.ofSeconds(30))) {
                throw new IllegalStateException("the daemon did not connect");
            }
            WorkTargetDispatcher tools = WorkTargetDispatcher.builder().processStore(processes)
                    .backend(work)                                           // WORK
                    .peers(server.peers())                                   // CLIENT and DAEMON
                    .build();
            tools.invoke("agent-2", "work_target_set", Map.of("kind", "DAEMON", "targetName", "build-box"));
            tools.invoke("agent-2", "file_write", Map.of("path", "built.txt", "content", "on the daemon\n"));
            System.out.println(tools.invoke("agent-2", "file_read", Map.of("path", "built.txt")).get("content"));
            tools.processEnded("agent-2");
        }
        // README:end
    }
}
