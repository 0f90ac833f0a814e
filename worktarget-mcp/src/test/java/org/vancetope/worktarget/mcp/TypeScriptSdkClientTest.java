package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official TypeScript SDK client launches the stdio server (as an MCP client's config file does),
 * lists the tools, validates every inputSchema and outputSchema, calls every tool (a path escape comes back
 * isError with path_escape), switches to WORK and back, receives progress while exec_run waits and cancels
 * a long exec_run whose process must be gone. The checks are in src/test/node/stdio-client.mjs.
 */
class TypeScriptSdkClientTest {
    @Test
    void theTypeScriptSdkClientPassesEveryCheckOverStdio(@TempDir Path tmp) throws Exception {
        NodeClients.assumeAvailable();
        Path workdir = Files.createDirectories(tmp.resolve("wd"));
        Path workspace = Files.createDirectories(tmp.resolve("ws"));
        List<String> server = NodeClients.stdioServer("--workdir", workdir.toString(), "--workspace", workspace.toString());
        String out = NodeClients.runOk(List.of("node", "stdio-client.mjs"),
                Map.of("WT_SERVER_CMD", json(server), "WT_WORKDIR", workdir.toString()), tmp.resolve("client.log"));
        assertThat(out).containsPattern("stdio-client: OK \\d+ checks");
    }

    static String json(List<String> args) {
        StringBuilder b = new StringBuilder("[");
        for (String a : args) {
            if (b.length() > 1) {
                b.append(',');
            }
            b.append('"').append(a.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        return b.append(']').toString();
    }
}
