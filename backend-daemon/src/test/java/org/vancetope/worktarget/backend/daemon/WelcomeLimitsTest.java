package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferSettings;

/** {@code welcome.limits} announces what the server really enforces. */
class WelcomeLimitsTest {

    private static String welcome(TestServer t) throws Exception {
        try (RawClient raw = RawClient.connect(t.uri(), TestServer.DAEMON_TOKEN, "daemon")) {
            raw.send("{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"daemon\",\"tenant\":\"acme\","
                    + "\"project\":\"proj\",\"daemonName\":\"raw\",\"tools\":" + RawClient.READ_TOOL + "}");
            return raw.next();
        }
    }

    @Test
    void aServerWithTransfersAnnouncesTheLimitsItsTransferSettingsEnforce(@TempDir Path dir) throws Exception {
        TransferSettings settings = TransferSettings.defaults().toBuilder().chunkSize(256 * 1024)
                .maxUploadSize(5_000_000).maxDownloadSize(7_000_000).phaseTimeout(Duration.ofSeconds(12)).build();
        try (ServerTransfers transfers = ServerTransfers.create(new RootDirTargetResolver((s, d) -> Optional.of(dir)),
                settings, TransferListener.NONE);
             TestServer t = new TestServer(b -> b.transfers(transfers).maxFrameBytes(1024 * 1024))) {
            assertThat(welcome(t)).contains("\"maxChunkBytes\":262144", "\"maxUploadSize\":5000000",
                    "\"maxDownloadSize\":7000000", "\"phaseTimeoutMs\":12000", "\"maxFrameBytes\":1048576");
        }
    }

    @Test
    void aServerWithoutTransfersAnnouncesOnlyItsFrameLimit() throws Exception {
        try (TestServer t = new TestServer()) {
            String welcome = welcome(t);
            assertThat(welcome).contains("\"maxFrameBytes\":2097152");
            assertThat(welcome).doesNotContain("maxChunkBytes", "maxUploadSize", "phaseTimeoutMs");
        }
    }
}
