package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TypeScript SDK client over Streamable HTTP (src/test/node/http-client.mjs): refused without the
 * token; with it, progress over the SSE stream and {@code notifications/cancelled} ending a long exec_run,
 * whose process must be gone.
 */
class TypeScriptSdkHttpClientTest {
    private static final String MARKER = "61.4375";

    private static boolean sleeperRuns() {
        return ProcessHandle.allProcesses().anyMatch(p -> p.info().arguments()
                .map(a -> List.of(a).contains(MARKER)).orElse(false));
    }

    @Test
    void cancellingOverHttpKillsTheJob(@TempDir Path tmp) throws Exception {
        NodeClients.assumeAvailable();
        try (HttpFixture f = new HttpFixture(tmp)) {
            String out = NodeClients.runOk(List.of("node", "http-client.mjs"), Map.of("WT_URL", f.url(), "WT_TOKEN",
                    HttpFixture.AGENT_TOKEN, "WT_LONG_COMMAND", "exec sleep " + MARKER), tmp.resolve("client.log"));
            assertThat(out).containsPattern("http-client: OK \\d+ checks");
            org.vancetope.worktarget.testfixtures.Await.until("the cancelled job's process is gone", () -> !sleeperRuns());
            f.awaitNoProcesses();
        }
    }
}
