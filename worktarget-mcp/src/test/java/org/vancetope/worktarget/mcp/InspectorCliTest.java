package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The MCP Inspector CLI (pinned in src/test/node/package.json) lists and calls tools over stdio and HTTP. */
class InspectorCliTest {
    private static List<String> inspector(String... args) {
        List<String> cmd = new ArrayList<>(List.of("node", "node_modules/@modelcontextprotocol/inspector/"
                + "clients/launcher/build/index.js", "--cli",
                // its default of 15 s is less than a JVM's start on a loaded machine takes at times
                "--connect-timeout", "120000"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static Map<String, String> env(Path tmp) {
        // the Inspector writes a catalog of servers; keep it out of the user's home
        return Map.of("MCP_CATALOG_PATH", tmp.resolve("catalog.json").toString());
    }

    private static List<String> concat(List<String> a, String... b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(List.of(b));
        return all;
    }

    @Test
    void theInspectorListsAndCallsToolsOverStdio(@TempDir Path tmp) throws Exception {
        NodeClients.assumeAvailable();
        Path wd = Files.createDirectories(tmp.resolve("wd"));
        Files.writeString(wd.resolve("hello.txt"), "hello from the work directory\n");
        List<String> server = NodeClients.stdioServer("--workdir", wd.toString());

        String list = NodeClients.runOk(concat(inspector(server.toArray(String[]::new)), "--method", "tools/list"),
                env(tmp), tmp.resolve("list.log"));
        assertThat(list).contains("\"file_read\"", "\"work_target_set\"", "\"readOnlyHint\": true", "\"outputSchema\"");

        String read = NodeClients.runOk(concat(inspector(server.toArray(String[]::new)), "--method", "tools/call",
                "--tool-name", "file_read", "--tool-arg", "path=hello.txt"), env(tmp), tmp.resolve("read.log"));
        assertThat(read).contains("hello from the work directory", "\"structuredContent\"");

        NodeClients.Run escape = NodeClients.run(concat(inspector(server.toArray(String[]::new)), "--method",
                "tools/call", "--tool-name", "file_read", "--tool-arg", "path=../x"), env(tmp), tmp.resolve("esc.log"));
        assertThat(escape.exitCode()).as(escape.output()).isNotZero();
        assertThat(escape.output()).contains("path_escape: ", "\"isError\": true");
    }

    @Test
    void theInspectorListsAndCallsToolsOverHttpWithTheToken(@TempDir Path tmp) throws Exception {
        NodeClients.assumeAvailable();
        try (HttpFixture f = new HttpFixture(tmp)) {
            String auth = "Authorization: Bearer " + HttpFixture.AGENT_TOKEN;
            String list = NodeClients.runOk(inspector(f.url(), "--transport", "http", "--header", auth, "--method",
                    "tools/list"), env(tmp), tmp.resolve("list.log"));
            assertThat(list).contains("\"file_read\"", "\"exec_run\"", "\"openWorldHint\": true");

            String write = NodeClients.runOk(inspector(f.url(), "--transport", "http", "--header", auth, "--method",
                    "tools/call", "--tool-name", "file_write", "--tool-arg", "path=i.txt", "content=via the inspector"),
                    env(tmp), tmp.resolve("write.log"));
            assertThat(write).contains("\"structuredContent\"", "\"isError\": false");
            NodeClients.Run read = NodeClients.run(inspector(f.url(), "--transport", "http", "--header", auth,
                    "--method", "tools/call", "--tool-name", "file_read", "--tool-arg", "path=i.txt"), env(tmp),
                    tmp.resolve("read.log"));
            assertThat(read.output()).as("each Inspector run is a new MCP session, so a new process with its own "
                    + "temp RootDir").contains("not_found: ");

            NodeClients.Run refused = NodeClients.run(inspector(f.url(), "--transport", "http", "--method",
                    "tools/list"), env(tmp), tmp.resolve("refused.log"));
            assertThat(refused.exitCode()).as(refused.output()).isNotZero();
            assertThat(refused.output()).doesNotContain("\"file_read\"");
            f.awaitNoProcesses();
        }
    }
}
