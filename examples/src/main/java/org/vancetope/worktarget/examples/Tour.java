package org.vancetope.worktarget.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.backend.daemon.ServerTransfers;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.core.InMemoryProcessStore;

/**
 * The demo tour, the README's main job: an embedded server with a WORK backend on a temporary
 * workspace, a daemon connected over loopback WebSocket as a real child process, and the dispatcher
 * walking through the generic tools on WORK, then on the DAEMON target, with an upload and a download
 * (progress bar), the scoped HOME of a WORK job, and a closing summary.
 *
 * <p>Run it with {@code ./demo} from the repository root. It needs nothing but Java 17 and the build.
 */
public final class Tour {
    private static final String TENANT = "acme";
    private static final String PROJECT = "demo";
    private static final String DAEMON = "build-box-01";
    private static final String PROCESS = "agent-1";

    private final WorkTargetDispatcher dispatcher;
    private final List<String> summary = new ArrayList<>();
    private int calls;

    private Tour(WorkTargetDispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    /**
     * Runs the tour.
     *
     * @param args ignored
     * @throws Exception when the tour cannot run (it exits non-zero)
     */
    public static void main(String[] args) throws Exception {
        Path base = Files.createTempDirectory("worktarget-tour");
        Path workspace = Files.createDirectories(base.resolve("workspace"));
        Path daemonWork = Files.createDirectories(base.resolve("daemon-workdir"));
        String token = "tour-" + Long.toHexString(Double.doubleToLongBits(Math.random()));
        banner("WorkTarget tour — everything runs on this machine, in " + base);

        ProgressBar progress = new ProgressBar(System.out, ProgressBar.stdoutIsTerminal());
        InMemoryProcessStore processes = new InMemoryProcessStore();
        processes.process(PROCESS).tenant(TENANT).project(PROJECT).session("session-1").user("alice").add();
        Process daemon = null;
        try (WorkspaceBackend work = WorkspaceBackend.builder().workspaceRoot(workspace).build();
             ServerTransfers transfers = ServerTransfers.create(
                     work.transferRoots(),
                     TransferSettings.defaults(), progress);
             WorkTargetServer server = WorkTargetServer.builder().host("127.0.0.1").port(0)
                     .authenticator(TokenAuthenticator.builder()
                             .token(token, new AuthPrincipal("tour-daemon", TENANT, Set.of(PROJECT), null)).build())
                     .transfers(transfers).build().start()) {
            WorkTargetDispatcher.Builder b = WorkTargetDispatcher.builder().processStore(processes)
                    .backend(work)
                    .peers(server.peers());
            transfers.tools(work.ephemeralDirs()).forEach(b::hostTool);
            WorkTargetDispatcher dispatcher = b.build();
            step("Server listening on ws://127.0.0.1:" + server.port() + "/worktarget/v1 (WORK workspace " + workspace + ")");

            daemon = startDaemon(server.port(), token, daemonWork, base.resolve("daemon.log"));
            awaitOnline(server, daemon, base.resolve("daemon.log"));
            step("Daemon '" + DAEMON + "' connected as a child process (pid " + daemon.pid() + ")");

            new Tour(dispatcher).walk();
        } finally {
            if (daemon != null) {
                daemon.destroy();
                if (!daemon.waitFor(10, TimeUnit.SECONDS)) {
                    daemon.destroyForcibly();
                }
            }
            deleteTree(base);
        }
    }

    private void walk() throws ToolException {
        section("1. WORK: the server workspace (the process's temp RootDir)");
        call("work_target_get", Map.of());
        call("file_write", Map.of("path", "notes/todo.md", "content", "# TODO\n- ship the tour\n- grep me\n"));
        call("file_read", Map.of("path", "notes/todo.md"));
        call("file_grep", Map.of("pattern", "grep", "path", "."));
        call("exec_run", Map.of("command", "ls -R notes && echo exit-status-is-shown"));
        Map<String, Object> home = call("exec_run", Map.of("command", "echo HOME=$HOME"));
        summary.add("WORK job HOME (scoped per project): " + String.valueOf(home.get("stdout")).strip());
        Map<String, Object> secret = call("exec_run", Map.of("command", "env | sort | head -n 20"));
        summary.add("WORK job environment: sealed (" + String.valueOf(secret.get("stdout")).lines().count()
                + " variables, no host secrets)");

        section("2. Switch to the daemon: work_target_set DAEMON:" + DAEMON);
        call("work_target_set", Map.of("kind", "DAEMON", "targetName", DAEMON));
        call("file_write", Map.of("path", "hello-from-brain.txt", "content", "written over the WebSocket\n"));
        call("file_read", Map.of("path", "hello-from-brain.txt"));
        call("file_grep", Map.of("pattern", "WebSocket", "path", "."));
        Map<String, Object> remote = call("exec_run", Map.of("command", "echo ran on pid $$ in $(pwd)"));
        summary.add("DAEMON job: " + String.valueOf(remote.get("stdout")).strip());

        section("3. Transfers: a download to the daemon and an upload back, verified by SHA-256");
        Map<String, Object> dir = call("workspace_create_ephemeral_dir", Map.of("purpose", "tour"));
        String dirName = (String) dir.get("dirName");
        StringBuilder big = new StringBuilder();
        for (int i = 0; big.length() < 3_000_000; i++) {
            big.append("line ").append(i).append(" of a report that is large enough to show a progress bar\n");
        }
        // The report is written into the ephemeral RootDir through the WORK backend…
        call("work_target_set", Map.of("kind", "WORK", "targetName", dirName));
        call("file_write", Map.of("path", "report.txt", "content", big.toString()), false);
        call("work_target_set", Map.of("kind", "DAEMON", "targetName", DAEMON));
        // …then moved to the daemon's work directory (where its file tools see it) and back.
        Map<String, Object> down = call("client_file_download", Map.of("dirName", dirName, "remotePath", "report.txt",
                "localPath", "downloads/report.txt"));
        call("file_head_tail", Map.of("path", "downloads/report.txt", "head", 1, "tail", 1));
        Map<String, Object> up = call("client_file_upload", Map.of("localPath", "downloads/report.txt",
                "dirName", dirName, "remotePath", "report-roundtrip.txt"));
        summary.add("Transfers: " + down.get("bytesWritten") + " bytes down, " + up.get("bytesWritten")
                + " bytes up, hashes equal: " + down.get("hash").equals(up.get("hash")));

        section("4. Errors tell the caller what to do");
        callExpectingError("file_read", Map.of("path", "../../etc/passwd"));
        callExpectingError("file_edit", Map.of("path", "hello-from-brain.txt", "oldText", "not there", "newText", "x"));
        callExpectingError("file_read", Map.of("path", "README.md", "encoding", "latin1"));
        call("work_target_set", Map.of("kind", "DAEMON", "targetName", "no-such-box"));
        callExpectingError("file_list", Map.of());
        call("work_target_set", Map.of("kind", "DAEMON", "targetName", DAEMON));

        section("Summary");
        summary.add(calls + " tool calls through one dispatcher, on WORK and on DAEMON");
        summary.forEach(s -> System.out.println("  • " + s));
    }

    private Map<String, Object> call(String tool, Map<String, Object> params) throws ToolException {
        return call(tool, params, true);
    }

    private Map<String, Object> call(String tool, Map<String, Object> params, boolean show) throws ToolException {
        calls++;
        System.out.println("\n→ " + tool + " " + (show ? Print.json(params).replaceAll("\\s*\n\\s*", " ") : "{…}"));
        Map<String, Object> r = dispatcher.invoke(PROCESS, tool, params);
        System.out.println(indent(Print.json(shorten(r))));
        return r;
    }

    private void callExpectingError(String tool, Map<String, Object> params) {
        calls++;
        System.out.println("\n→ " + tool + " " + Print.json(params).replaceAll("\\s*\n\\s*", " "));
        try {
            dispatcher.invoke(PROCESS, tool, params);
            System.out.println("  (unexpectedly succeeded)");
        } catch (ToolException e) {
            System.out.println("  ✗ " + e.code().wire() + ": " + e.getMessage());
        }
    }

    private static Map<String, Object> shorten(Map<String, Object> r) {
        Map<String, Object> out = new LinkedHashMap<>();
        r.forEach((k, v) -> out.put(k, v instanceof String s && s.length() > 300 ? s.substring(0, 300) + "…" : v));
        return out;
    }

    private static Process startDaemon(int port, String token, Path workdir, Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = List.of(java, "-cp", System.getProperty("java.class.path"),
                "org.vancetope.worktarget.backend.daemon.cli.Main", "daemon",
                "--connect", "ws://127.0.0.1:" + port + "/worktarget/v1",
                "--tenant", TENANT, "--project", PROJECT, "--name", DAEMON,
                "--workdir", workdir.toString());
        // the token in the environment, not on the command line, where every user sees it in ps
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("WORKTARGET_TOKEN", token);
        return pb.start();
    }

    private static void awaitOnline(WorkTargetServer server, Process daemon, Path log) throws Exception {
        DaemonKey key = new DaemonKey(TENANT, PROJECT, DAEMON);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (server.peers().find(key).map(e -> e.isStale()).orElse(true)) {
            if (!daemon.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("The daemon did not connect; its log:\n" + Files.readString(log));
            }
            Thread.sleep(50);
        }
    }

    private static void banner(String s) {
        System.out.println("=".repeat(Math.min(100, s.length())));
        System.out.println(s);
        System.out.println("=".repeat(Math.min(100, s.length())));
    }

    private static void section(String s) {
        System.out.println("\n── " + s + " " + "─".repeat(Math.max(0, 90 - s.length())));
    }

    private static void step(String s) {
        System.out.println("✓ " + s);
    }

    private static String indent(String s) {
        return s.lines().map(l -> "  " + l).reduce((a, c) -> a + "\n" + c).orElse("");
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
