package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.daemon.cli.Main;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.core.InMemoryProcessStore;

/**
 * SIGTERM to a real {@code daemon} child JVM ({@link ChildJvm}) while one of its jobs runs a process
 * tree that ignores SIGTERM: the daemon must not exit before that tree has ended (its shutdown closes
 * the exec engine, which waits up to {@code --kill-grace-ms} and then sends SIGKILL itself).
 */
class DaemonShutdownTest {
    private static final String TENANT = "acme";
    private static final String PROJECT = "proj";
    private static final String DAEMON = "box";
    private static final String PROCESS = "p-1";
    private static final String TOKEN = "daemon-token-shutdown-test";
    private static final Duration WAIT = ChildJvm.WAIT;

    /**
     * A shell that ignores SIGTERM, a child that inherits the ignore, and a double-forked grandchild in a
     * session of its own that ignores it too; each writes its pid to {@code pids}, one per line.
     */
    static final String TERM_IGNORING_TREE = "trap '' TERM; sleep 1000 & echo $! >> pids; "
            + "sh -c 'setsid sh -c \"trap \\\"\\\" TERM; echo \\$\\$ >> pids; exec sleep 1000\" &'; "
            + "echo $$ >> pids; wait";

    @TempDir
    Path base;

    private final List<ChildJvm> children = new ArrayList<>();
    private WorkspaceBackend work;
    private WorkTargetServer server;
    private WorkTargetDispatcher dispatcher;
    private final List<Long> pids = new ArrayList<>();

    @AfterEach
    void stop() {
        children.forEach(ChildJvm::close);
        for (long pid : pids) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly); // only if the test failed
        }
        if (server != null) {
            server.close();
        }
        if (work != null) {
            work.close();
        }
    }

    private void startServer() throws IOException {
        work = WorkspaceBackend.builder().workspaceRoot(base.resolve("workspace")).build();
        server = WorkTargetServer.builder().host("127.0.0.1").port(0)
                .authenticator(TokenAuthenticator.builder()
                        .token(TOKEN, new AuthPrincipal(DAEMON, TENANT, Set.of(PROJECT), null)).build())
                .build().start();
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process(PROCESS).tenant(TENANT).project(PROJECT).session("s-1").user("alice").add();
        dispatcher = WorkTargetDispatcher.builder().processStore(store).backend(work)
                .peers(server.peers()).build();
    }

    private ChildJvm startDaemon(Path workdir, String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("daemon",
                "--connect", "ws://127.0.0.1:" + server.port() + "/worktarget/v1", "--token", TOKEN,
                "--tenant", TENANT, "--project", PROJECT, "--name", DAEMON, "--workdir", workdir.toString()));
        args.addAll(List.of(extra));
        ChildJvm daemon = ChildJvm.start("daemon", base.resolve("daemon.log"), args);
        children.add(daemon);
        DaemonKey key = new DaemonKey(TENANT, PROJECT, DAEMON);
        long end = System.nanoTime() + WAIT.toNanos();
        while (!TestServer.online(server, key)) {
            if (!daemon.isAlive()) {
                throw new AssertionError(daemon + " exited before it connected; its log:\n" + daemon.log());
            }
            if (System.nanoTime() > end) {
                throw new AssertionError(daemon + " did not connect within " + WAIT + "; its log:\n" + daemon.log());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        return daemon;
    }

    private Map<String, Object> call(String tool, Map<String, Object> params) throws ToolException {
        return dispatcher.invoke(PROCESS, tool, params);
    }

    /** Waits until the file has {@code n} lines and returns them as pids. */
    private static List<Long> awaitPids(Path file, int n, ChildJvm daemon) throws IOException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (true) {
            List<String> lines;
            try {
                lines = Files.readAllLines(file);
            } catch (NoSuchFileException e) {
                lines = List.of();
            }
            if (lines.size() >= n && lines.stream().allMatch(l -> l.matches("\\d+"))) {
                return lines.stream().map(Long::parseLong).toList();
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("the job did not write " + n + " pids to " + file + " within " + WAIT + " (got "
                        + lines + "); the daemon's log:\n" + daemon.log());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    /** Whether a process still runs: alive and not a zombie waiting to be reaped. */
    private static boolean running(long pid) {
        if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            return false;
        }
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void aDaemonSentSigtermLeavesNoProcessOfATermIgnoringJobTreeBehind() throws Exception {
        startServer();
        Path workdir = Files.createDirectories(base.resolve("daemon-workdir"));
        ChildJvm daemon = startDaemon(workdir, "--kill-grace-ms", "500");
        call("work_target_set", Map.of("kind", "DAEMON", "targetName", DAEMON));
        Map<String, Object> job = call("exec_run", Map.of("command", TERM_IGNORING_TREE, "waitMs", 0));
        assertThat(job).as("exec_run on the daemon").containsEntry("status", "running");
        pids.addAll(awaitPids(workdir.resolve("pids"), 3, daemon));
        for (long pid : pids) {
            assertThat(running(pid)).as("job process %d runs before the SIGTERM", pid).isTrue();
        }

        ProcessHandle jvm = ProcessHandle.of(daemon.pid()).orElseThrow();
        assertThat(jvm.destroy()).as("SIGTERM sent to the daemon").isTrue();
        try {
            jvm.onExit().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the daemon still runs " + WAIT + " after SIGTERM; its log:\n" + daemon.log(), e);
        }

        for (long pid : pids) {
            assertThat(running(pid)).as("job process %d after the daemon exited; its log:\n%s", pid, daemon.log())
                    .isFalse();
        }
    }

    @Test
    void killGraceOptionIsDocumentedAndANegativeOneIsAUsageError() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);

        assertThat(Main.run(new String[] {"daemon", "--help"}, o, e)).isEqualTo(Main.OK);
        assertThat(Main.run(new String[] {"daemon", "--connect", "ws://127.0.0.1:1/worktarget/v1", "--token", "x",
                "--tenant", TENANT, "--project", PROJECT, "--name", DAEMON, "--kill-grace-ms", "-1"}, o, e))
                .isEqualTo(Main.USAGE);

        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--kill-grace-ms N", "default 10000");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--kill-grace-ms must be at least 0, got -1");
    }
}
