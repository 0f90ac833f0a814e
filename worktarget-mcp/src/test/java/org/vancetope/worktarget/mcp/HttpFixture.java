package org.vancetope.worktarget.mcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.vancetope.worktarget.backend.daemon.ClientTransfers;
import org.vancetope.worktarget.backend.daemon.ServerTransfers;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.BackendTool;

/**
 * The HTTP form in one JVM: a WORK backend, a WebSocket server with the daemon {@code build-box} connected
 * (its own directory), and the MCP server on a free port; MCP clients use {@link #AGENT_TOKEN}. Sessions
 * without requests and streams end after one second. With transfers, as {@code mcp --http} serves: the
 * server and the daemon move files ({@code client_file_upload} from the daemon's {@link #boxTransferRoot()},
 * {@code client_file_download} to it) and the MCP server lists the transfer tools.
 */
final class HttpFixture implements AutoCloseable {
    static final String AGENT_TOKEN = "agent-token-0123456789";
    static final String DAEMON_TOKEN = "daemon-token-0123456789";

    final Path workspace;
    final Path boxDir;
    final InMemoryProcessStore store = new InMemoryProcessStore();
    final WorkspaceBackend work;
    final WorkTargetServer server;
    final LocalBackend box;
    final WorkTargetClient daemon;
    final WorkTargetDispatcher dispatcher;
    final McpWorkTargetServer mcp;
    final InetSocketAddress address;
    final ServerTransfers transfers;
    final ClientTransfers boxTransfers;

    HttpFixture(Path tmp) throws IOException, InterruptedException {
        this(tmp, false);
    }

    HttpFixture(Path tmp, boolean withTransfers) throws IOException, InterruptedException {
        workspace = Files.createDirectories(tmp.resolve("ws"));
        boxDir = Files.createDirectories(tmp.resolve("box"));
        TokenAuthenticator auth = TokenAuthenticator.builder()
                .token(AGENT_TOKEN, new AuthPrincipal("agent", "acme", Set.of("shop"), "alice"))
                .token(DAEMON_TOKEN, new AuthPrincipal("build-box", "acme", Set.of("shop"), null))
                .build();
        work = WorkspaceBackend.builder().workspaceRoot(workspace).homesRoot(tmp.resolve("homes")).build();
        transfers = withTransfers ? ServerTransfers.create(new RootDirTargetResolver((scope, dirName) ->
                work.findRoot(scope.tenant(), scope.project(), dirName)), TransferSettings.defaults(),
                TransferListener.NONE) : null;
        boxTransfers = withTransfers ? ClientTransfers.create(FootTargetResolver.at(boxDir),
                new TransferScope("acme", "shop"), TransferSettings.defaults(), TransferListener.NONE) : null;
        WorkTargetServer.Builder sb = WorkTargetServer.builder().host("127.0.0.1").port(0).authenticator(auth);
        if (withTransfers) {
            sb.transfers(transfers);
        }
        server = sb.build().start();
        box = LocalBackend.builder().workDirectory(boxDir).build();
        WorkTargetClient.Builder cb = WorkTargetClient.builder()
                .uri(URI.create("ws://127.0.0.1:" + server.port() + "/worktarget/v1"))
                .token(DAEMON_TOKEN).daemon("acme", "shop", "build-box").tools(box.tools());
        if (withTransfers) {
            cb.frameExtension(boxTransfers.extension());
        }
        daemon = cb.build().start();
        if (!daemon.awaitConnected(Duration.ofSeconds(60))) {
            close();
            throw new IllegalStateException("the daemon did not connect");
        }
        WorkTargetDispatcher.Builder db = WorkTargetDispatcher.builder().processStore(store).backend(work)
                .peers(server.peers());
        List<BackendTool> hostTools = withTransfers ? transfers.tools(work.ephemeralDirs()) : List.of();
        hostTools.forEach(db::hostTool);
        dispatcher = db.build();
        mcp = McpWorkTargetServer.builder().dispatcher(dispatcher).hostTools(hostTools)
                .processes(McpProcessMapping.perSession(store, dispatcher, "acme", "shop"))
                .progressInterval(Duration.ofMillis(200)).httpSessionIdle(Duration.ofSeconds(8)).build();
        address = mcp.startHttp("127.0.0.1", 0, auth);
    }

    /** Waits until every MCP session ended (deleted by its client, or idle) and with it its process. */
    void awaitNoProcesses() {
        org.vancetope.worktarget.testfixtures.Await.until("every MCP session's process ended", () -> store.size() == 0);
    }

    /** Where the daemon's transfers read and write: its directory's {@code acme/shop}. */
    Path boxTransferRoot() {
        return boxDir.resolve("acme").resolve("shop");
    }

    String url() {
        return "http://127.0.0.1:" + address.getPort() + McpWorkTargetServer.HTTP_PATH;
    }

    String baseUrl() {
        return "http://127.0.0.1:" + address.getPort();
    }

    @Override
    public void close() {
        try {
            if (mcp != null) {
                mcp.close();
            }
        } finally {
            try {
                if (daemon != null) {
                    daemon.close();
                }
                server.close();
                if (transfers != null) {
                    transfers.close();
                    boxTransfers.close();
                }
            } finally {
                box.close();
                work.close();
            }
        }
    }
}
