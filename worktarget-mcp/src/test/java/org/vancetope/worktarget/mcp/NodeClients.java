package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs the Node clients of src/test/node (the TypeScript SDK client, the Inspector CLI). Without node or
 * without the installed packages the calling test is skipped with the reason, unless
 * {@code WORKTARGET_REQUIRE_NODE=true}, which makes it fail instead (CI installs them with npm ci).
 */
final class NodeClients {
    static final Path DIR = Path.of("src/test/node").toAbsolutePath();

    private NodeClients() {
    }

    /** What is missing to run the clients, if anything. */
    static Optional<String> missing() {
        if (!onPath("node")) {
            return Optional.of("node is not on the PATH");
        }
        if (!Files.isRegularFile(DIR.resolve("node_modules/@modelcontextprotocol/sdk/package.json"))
                || !Files.isRegularFile(DIR.resolve("node_modules/@modelcontextprotocol/inspector/package.json"))) {
            return Optional.of("the npm packages are not installed: run 'npm ci' in " + DIR);
        }
        return Optional.empty();
    }

    static void assumeAvailable() {
        Optional<String> why = missing();
        if (why.isEmpty()) {
            return;
        }
        if ("true".equals(System.getenv("WORKTARGET_REQUIRE_NODE"))) {
            fail("WORKTARGET_REQUIRE_NODE=true but " + why.get());
        }
        Assumptions.abort("Skipped: " + why.get() + " (set WORKTARGET_REQUIRE_NODE=true to fail instead)");
    }

    private static boolean onPath(String exe) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String d : path.split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(d, exe))) {
                return true;
            }
        }
        return false;
    }

    /** The command that launches the stdio server in a child JVM with this module's classes. */
    static List<String> stdioServer(String... mcpArgs) throws IOException {
        String deps = Files.readString(Path.of("target/runtime-classpath.txt"), StandardCharsets.UTF_8).strip();
        String cp = Path.of("target/classes").toAbsolutePath() + java.io.File.pathSeparator + deps;
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", cp,
                "org.vancetope.worktarget.mcp.cli.McpMain", "mcp"));
        cmd.addAll(List.of(mcpArgs));
        return cmd;
    }

    /** The result of a client run. */
    record Run(int exitCode, String output) {
    }

    /**
     * Runs a command in src/test/node and waits for it.
     *
     * @param command the command
     * @param env extra environment
     * @param log where the output goes
     * @return the exit code and the output
     */
    static Run run(List<String> command, Map<String, String> env, Path log) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(DIR.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            int code = p.waitFor();
            return new Run(code, Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            p.destroyForcibly();
            p.descendants().forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** Runs a command and asserts that it exited 0. */
    static String runOk(List<String> command, Map<String, String> env, Path log) throws IOException,
            InterruptedException {
        Run r = run(command, env, log);
        assertThat(r.exitCode()).as("exit code of %s; output:%n%s", command, r.output()).isZero();
        return r.output();
    }
}
