package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;

/**
 * The transfer capabilities are negotiated in the handshake over real loopback connections: a side that
 * offers none speaks the base protocol, and transfers work in both directions whatever each side offers.
 */
class TransferCapabilityNegotiationTest {
    @TempDir
    Path base;

    private WorkspaceBackend work;
    private ServerTransfers transfers;
    private ClientTransfers clientTransfers;
    private TestServer t;
    private WorkTargetDispatcher dispatcher;
    private Path footRoot;

    private static TransferSettings offering(boolean trailer) {
        return TransferSettings.builder()
                .capabilities(trailer ? Set.of(TransferCapability.HASH_TRAILER) : Set.of()).build();
    }

    private void start(boolean serverOffers, boolean clientOffers) throws Exception {
        work = WorkspaceBackend.builder().workspaceRoot(base.resolve("workspace")).build();
        transfers = ServerTransfers.create(
                new RootDirTargetResolver((s, dir) -> work.findRoot(s.tenant(), s.project(), dir)),
                offering(serverOffers), TransferListener.NONE);
        t = new TestServer(b -> b.transfers(transfers));
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p-1").tenant("acme").project("proj").session("s-1").user("alice").add();
        WorkTargetDispatcher.Builder db = WorkTargetDispatcher.builder().processStore(store).backend(work)
                .peers(t.server.peers());
        transfers.tools(work.ephemeralDirs()).forEach(db::hostTool);
        dispatcher = db.build();
        footRoot = Files.createDirectories(base.resolve("foot"));
        clientTransfers = ClientTransfers.create(FootTargetResolver.at(footRoot), new TransferScope("acme", "proj"),
                offering(clientOffers), TransferListener.NONE);
        t.started(t.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                .frameExtension(clientTransfers.extension()));
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
    }

    @AfterEach
    void stop() {
        if (t != null) {
            t.close();
            clientTransfers.close();
            transfers.close();
            work.close();
        }
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static String sha256(byte[] b) throws Exception {
        return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    private Set<TransferCapability> serverSideCapabilities() {
        var channel = t.server.peers().find(new DaemonKey("acme", "proj", "box")).flatMap(Endpoint::transferChannel)
                .orElseThrow();
        return ((TransferBridge) transfers.extension()).connection(channel).orElseThrow().capabilities();
    }

    @ParameterizedTest(name = "server offers the trailer: {0}, the daemon: {1}")
    @CsvSource({"true, true", "true, false", "false, true", "false, false"})
    void theConnectionUsesTheCapabilitiesBothEndsOfferAndTransfersWorkBothWays(boolean serverOffers,
                                                                              boolean clientOffers) throws Exception {
        start(serverOffers, clientOffers);
        assertThat(serverSideCapabilities()).isEqualTo(serverOffers && clientOffers
                ? Set.of(TransferCapability.HASH_TRAILER) : Set.of());

        byte[] down = bytes(300_000, 1);
        String dirName = (String) dispatcher.invoke("p-1", "workspace_create_ephemeral_dir", Map.of()).get("dirName");
        Files.write(work.findRoot("acme", "proj", dirName).orElseThrow().resolve("report.bin"), down);
        Map<String, Object> d = dispatcher.invoke("p-1", "client_file_download",
                Map.of("dirName", dirName, "remotePath", "report.bin", "localPath", "in/report.bin"));
        assertThat(d).containsEntry("ok", true).containsEntry("hash", sha256(down));
        assertThat(Files.readAllBytes(footRoot.resolve("acme/proj/in/report.bin"))).isEqualTo(down);

        byte[] up = bytes(200_000, 2);
        Files.write(footRoot.resolve("acme/proj/local.bin"), up);
        Map<String, Object> u = dispatcher.invoke("p-1", "client_file_upload",
                Map.of("localPath", "local.bin", "dirName", dirName, "remotePath", "up/local.bin"));
        assertThat(u).containsEntry("ok", true).containsEntry("hash", sha256(up));
        assertThat(Files.readAllBytes(work.findRoot("acme", "proj", dirName).orElseThrow().resolve("up/local.bin")))
                .isEqualTo(up);
    }
}
