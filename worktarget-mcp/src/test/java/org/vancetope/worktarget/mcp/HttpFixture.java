package org.vancetope.worktarget.mcp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.AuthPrincipal;

/**
 * The HTTP form in one JVM: a WORK backend, a WebSocket server with the daemon {@code build-box} connected
 * (its own directory), and the MCP server on a free port; MCP clients use {@link #AGENT_TOKEN}. Sessions
 * without requests and streams end after one second.
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

    HttpFixture(Path tmp) throws IOException, InterruptedException {
        workspace = Files.createDirectories(tmp.resolve("ws"));
        boxDir = Files.createDirectories(tmp.resolve("box"));
        TokenAuthenticator auth = TokenAuthenticator.builder()
                .token(AGENT_TOKEN, new AuthPrincipal("agent", "acme", Set.of("shop"), "alice"))
                .token(DAEMON_TOKEN, new AuthPrincipal("build-box", "acme", Set.of("shop"), null))
                .build();
        work = WorkspaceBackend.builder().workspaceRoot(workspace).homesRoot(tmp.resolve("homes")).build();
        server = WorkTargetServer.builder().host("127.0.0.1").port(0).authenticator(auth).build().start();
        box = LocalBackend.builder().workDirectory(boxDir).build();
        daemon = WorkTargetClient.builder().uri(URI.create("ws://127.0.0.1:" + server.port() + "/worktarget/v1"))
                .token(DAEMON_TOKEN).daemon("acme", "shop", "build-box").tools(box.tools()).build().start();
        if (!daemon.awaitConnected(Duration.ofSeconds(60))) {
            close();
            throw new IllegalStateException("the daemon did not connect");
        }
        dispatcher = WorkTargetDispatcher.builder().processStore(store).backend(work).peers(server.peers()).build();
        mcp = McpWorkTargetServer.builder().dispatcher(dispatcher)
                .processes(McpProcessMapping.perSession(store, dispatcher, "acme", "shop"))
                .progressInterval(Duration.ofMillis(200)).httpSessionIdle(Duration.ofSeconds(1)).build();
        address = mcp.startHttp("127.0.0.1", 0, auth);
    }

    /** Waits until every MCP session ended (deleted by its client, or idle) and with it its process. */
    void awaitNoProcesses() {
        org.vancetope.worktarget.testfixtures.Await.until("every MCP session's process ended", () -> store.size() == 0);
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
            } finally {
                box.close();
                work.close();
            }
        }
    }
}
