package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TypeScript SDK client over Streamable HTTP (src/test/node/http-client.mjs): refused without the
 * token; with it, progress over the SSE stream and {@code notifications/cancelled} ending a long exec_run,
 * whose process must be gone. And (transfer-client.mjs) progress for a real transfer: a 64 MiB file moved
 * from the daemon into a RootDir on WORK.
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

    @Test
    void progressArrivesForARealTransferWhoseResultCarriesTheFilesHash(@TempDir Path tmp) throws Exception {
        NodeClients.assumeAvailable();
        try (HttpFixture f = new HttpFixture(tmp, true)) {
            byte[] content = new byte[64 * 1024 * 1024];
            new Random(7).nextBytes(content);
            Path local = Files.createDirectories(f.boxTransferRoot()).resolve("big.bin");
            Files.write(local, content);
            String hash = "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
            String out = NodeClients.runOk(List.of("node", "transfer-client.mjs"), Map.of("WT_URL", f.url(),
                    "WT_TOKEN", HttpFixture.AGENT_TOKEN, "WT_FILE", "big.bin", "WT_HASH", hash),
                    tmp.resolve("client.log"));
            // the script checks the progress and that the result's hash (the receiver's, verified before the
            // file was renamed into place) is the file's; the RootDir goes with the session's process
            assertThat(out).containsPattern("transfer-client: OK \\d+ checks").containsPattern("progress=[1-9]");
            f.awaitNoProcesses();
        }
    }
}
