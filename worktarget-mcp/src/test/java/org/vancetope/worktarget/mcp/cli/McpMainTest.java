package org.vancetope.worktarget.mcp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.daemon.FleetLink;
import org.vancetope.worktarget.backend.daemon.cli.Main;

class McpMainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return McpMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    /**
     * The runnable jar is this module's runtime class path, shaded: {@code serve --redis-uri} there finds
     * the Redis fleet link through {@link ServiceLoader}, as it does here.
     */
    @Test
    void theRunnableJarsClassPathCarriesTheRedisFleetLinkForServe() {
        List<String> accepting = ServiceLoader.load(FleetLink.Factory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.accepts("redis://127.0.0.1:6379")).map(f -> f.getClass().getName()).toList();

        assertThat(accepting).containsExactly("org.vancetope.worktarget.cluster.redis.RedisFleetLink$Factory");
    }

    @Test
    void helpListsMcpBesideTheOtherCommands() {
        assertThat(run("--help")).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("mcp ", "daemon ", "serve ", "call ",
                "--version | --help", "$WORKTARGET_TOKEN", "5  call: no answer within --timeout");
    }

    @Test
    void theHttpFormTakesTheWorkBackendsOptionsOfServe(@TempDir Path tmp) throws Exception {
        Path tokens = Files.writeString(tmp.resolve("tokens.json"), "{\"tokens\":[{\"token\":\"tok-12345678\","
                + "\"subject\":\"a\",\"tenant\":\"acme\",\"projects\":[\"*\"]}]}");
        assertThat(run("mcp", "--http", "0", "--workspace", tmp.toString(), "--tokens", tokens.toString(),
                "--isolation", "sideways")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--isolation").contains("sideways")
                .doesNotContain("Unknown option");
        assertThat(run("mcp", "--http", "0", "--workspace", tmp.toString(), "--tokens", tokens.toString(),
                "--home-scope", "galaxy")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--home-scope must be project, tenant or user");
        assertThat(run("mcp", "--help")).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--isolation MODE", "--homes DIR", "--max-jobs N",
                "--max-connections-per-subject N");
    }

    @Test
    void theWorkBackendsOptionsOverStdioNeedAWorkspace() {
        assertThat(run("mcp", "--isolation", "custom")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--isolation needs --workspace DIR");
    }

    @Test
    void noCommandPrintsTheSameUsageWithMcpOnStderr() {
        assertThat(run()).isEqualTo(Main.USAGE);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("mcp ", "daemon ", "--version | --help");
    }

    @Test
    void anUnknownCommandIsAUsageErrorWhoseUsageListsMcp() {
        assertThat(run("dance")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Unknown command 'dance'", "mcp ", "daemon ");
    }

    @Test
    void mcpReadsItsCommandLineAsTheOtherCommandsDo(@TempDir Path tmp) {
        assertThat(run("mcp", "--http=abc", "--workspace", tmp.toString())).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--http must be a number, got 'abc'");
        assertThat(run("mcp", "--http", "70000", "--workspace", tmp.toString())).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--http must be between 0 and 65535, got 70000");
        assertThat(run("mcp", "--workdir")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Option --workdir needs a value.");
        assertThat(run("mcp", "stray")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Unexpected argument 'stray'", "mcp --help");
        assertThat(run("mcp", "-h")).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--workdir DIR");
    }

    @Test
    void mcpHelpDescribesBothForms() {
        assertThat(run("mcp", "--help")).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--workdir", "--http PORT", "--tokens", "stderr");
    }

    @Test
    void badCommandLinesExitWithTheUsageCodeAndSayWhatToDo(@TempDir Path tmp) {
        assertThat(run("mcp", "--bogus", "1")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Unknown option --bogus.", "mcp --help");
        assertThat(run("mcp", "--workdir", tmp.resolve("missing").toString())).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("is not a directory");
        assertThat(run("mcp", "--http", "0", "--workspace", tmp.toString())).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--tokens FILE is required with --http");
        assertThat(run("mcp", "--tokens", "t.json")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--tokens needs --http PORT");
        assertThat(run("mcp", "--http", "99999")).isEqualTo(Main.USAGE);
        assertThat(out.size()).as("nothing on stdout, the protocol stream").isZero();
    }

    @Test
    void allowedOriginsMustBeSchemeHostPortEntriesAndBelongToTheHttpForm(@TempDir Path tmp) throws Exception {
        Path tokens = Files.writeString(tmp.resolve("tokens.json"), "{\"tokens\":[]}");
        assertThat(run("mcp", "--http", "0", "--workspace", tmp.toString(), "--tokens", tokens.toString(),
                "--allowed-origins", "https://app.example.com,localhost:3000")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--allowed-origins", "'localhost:3000'",
                "scheme://host:*");
        assertThat(run("mcp", "--workdir", tmp.toString(), "--allowed-origins", "http://localhost:*"))
                .isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--allowed-origins needs --http PORT");
        assertThat(run("mcp", "--help")).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--allowed-origins LIST", "DNS rebinding");
    }

    @Test
    void theJobControlGroupOptionsAreCheckedInBothFormsBeforeAnythingIsServed(@TempDir Path tmp) throws Exception {
        Path notAGroup = Files.createDirectories(tmp.resolve("not-a-group"));
        Path workspace = Files.createDirectories(tmp.resolve("ws"));
        Path tokens = Files.writeString(tmp.resolve("tokens.json"), "{\"tokens\":[{\"token\":\"a-token-of-16-chars\","
                + "\"tenant\":\"acme\",\"projects\":[\"proj\"]}]}");
        String refused = "The exec settings (--job-cgroup, --max-job-processes, --max-job-memory-mib, --max-job-cpus, "
                + "--max-job-seconds): "
                + "jobControlGroups " + notAGroup
                + " is not a control group directory";

        assertThat(run("mcp", "--workdir", tmp.toString(), "--job-cgroup", notAGroup.toString())).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains(refused);
        err.reset();
        assertThat(run("mcp", "--workdir", tmp.toString(), "--workspace", workspace.toString(), "--max-job-processes",
                "64")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("maxJobProcesses=64 needs jobControlGroups");
        err.reset();
        assertThat(run("mcp", "--http", "0", "--daemon-port", "0", "--workspace", workspace.toString(), "--tokens",
                tokens.toString(), "--job-cgroup", notAGroup.toString(), "--max-job-processes", "64"))
                .isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains(refused).contains("mcp --help");
        assertThat(out.size()).as("nothing on stdout, the protocol stream").isZero();
        assertThat(run("mcp", "--help")).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--job-cgroup DIR[,DIR]", "--max-job-processes N",
                "--max-job-memory-mib N", "--max-job-cpus N", "--max-job-seconds N");
    }

    @Test
    void theProjectBudgetNeedsAWorkspaceAndIsNotNegative(@TempDir Path tmp) throws Exception {
        assertThat(run("mcp", "--workdir", tmp.toString(), "--project-max-mib", "100")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--project-max-mib needs --workspace DIR");
        err.reset();
        Path tokens = Files.writeString(tmp.resolve("tokens.json"), "{\"tokens\":[{\"token\":\"a-token-of-16-chars\","
                + "\"tenant\":\"acme\",\"projects\":[\"proj\"]}]}");
        assertThat(run("mcp", "--http", "0", "--daemon-port", "0", "--workspace", tmp.toString(), "--tokens",
                tokens.toString(), "--project-max-mib", "-1")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--project-max-mib must be at least 0, got -1.");
        assertThat(out.size()).as("nothing on stdout, the protocol stream").isZero();
        assertThat(run("mcp", "--help")).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--project-max-mib N");
    }

    @Test
    void theConnectionCapsAreOptionsOfTheHttpFormAndNotNegative(@TempDir Path tmp) throws Exception {
        for (String option : List.of("--max-connections", "--max-unauthenticated-per-address")) {
            assertThat(run("mcp", "--workdir", tmp.toString(), option, "8")).as(option).isEqualTo(Main.USAGE);
            assertThat(err.toString(StandardCharsets.UTF_8)).contains(option + " needs --http PORT");
        }
        Path tokens = Files.writeString(tmp.resolve("tokens.json"), "{\"tokens\":[]}");
        assertThat(run("mcp", "--http", "0", "--workspace", tmp.toString(), "--tokens", tokens.toString(),
                "--max-unauthenticated-per-address", "-1")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--max-unauthenticated-per-address");
        assertThat(run("mcp", "--help")).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--max-unauthenticated-per-address N",
                "before a request or upgrade with an accepted token");
    }

    @Test
    void warmUpIsOnOrOffAndAnOptionOfTheStdioForm(@TempDir Path tmp) throws Exception {
        assertThat(run("mcp", "--workdir", tmp.toString(), "--warm-up", "maybe")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--warm-up must be on or off, got 'maybe'");
        Path tokens = Files.writeString(tmp.resolve("tokens.json"), "{\"tokens\":[]}");
        assertThat(run("mcp", "--http", "0", "--workspace", tmp.toString(), "--tokens", tokens.toString(),
                "--warm-up", "off")).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--warm-up are options of the stdio form");
        assertThat(run("mcp", "--help")).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("--warm-up on|off", "temporary directory");
    }

    @Test
    void stdioWithTheWarmUpOffAnswersAsWithItOn(@TempDir Path tmp) throws Exception {
        String init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n";
        int code = McpCommand.run(List.of("--workdir", tmp.toString(), "--warm-up", "off"), new ByteArrayInputStream(
                init.getBytes(StandardCharsets.UTF_8)), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"id\":1", "\"serverInfo\"");
        try (var files = Files.list(tmp)) {
            assertThat(files).as("nothing written in the work directory").isEmpty();
        }
    }

    @Test
    void theOtherCommandsStillRun() {
        assertThat(run("serve", "--help")).isEqualTo(Main.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("Usage: serve");
    }

    @Test
    void stdioAnswersInitializeOnStdoutAndEndsWhenStdinCloses(@TempDir Path tmp) throws Exception {
        Files.writeString(tmp.resolve("f.txt"), "x");
        String init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n";
        int code = McpCommand.run(List.of("--workdir", tmp.toString()), new ByteArrayInputStream(
                init.getBytes(StandardCharsets.UTF_8)), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(Main.OK);
        String stdout = out.toString(StandardCharsets.UTF_8);
        for (String line : stdout.strip().split("\n")) {
            assertThat(line).as("every stdout line is a JSON-RPC message").startsWith("{\"jsonrpc\":\"2.0\"");
        }
        assertThat(stdout).contains("\"id\":1", "\"serverInfo\"", "\"worktarget\"");
        try (var files = Files.list(tmp)) {
            assertThat(files).as("the warm-up wrote nothing in the work directory").containsExactly(tmp.resolve("f.txt"));
        }
    }

    @Test
    void aLineThatIsNotJsonRpcGetsAParseErrorAndTheServerReadsOn(@TempDir Path tmp) throws Exception {
        String in = "this is not json\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
                + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                // tools/list, not a tools/call: the end of the input cancels running tool calls, and this
                // test is about reading on after a bad line, not about a call racing the input's end
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";   // the last line without its newline: still read
        int code = McpCommand.run(List.of("--workdir", tmp.toString()), new ByteArrayInputStream(
                in.getBytes(StandardCharsets.UTF_8)), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(Main.OK);
        String stdout = out.toString(StandardCharsets.UTF_8);
        assertThat(stdout).contains("\"code\":-32700", "not one JSON-RPC message", "\"id\":1", "\"id\":2",
                "\"file_read\"");
        for (String line : stdout.strip().split("\n")) {
            assertThat(line).as("every stdout line is a JSON-RPC message").startsWith("{\"jsonrpc\":\"2.0\"");
        }
    }
}
