package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/** A real server on a loopback port with three tokens, plus helpers to connect clients to it. */
final class TestServer implements AutoCloseable {
    static final String DAEMON_TOKEN = "daemon-token-acme-proj";
    static final String FOOT_TOKEN = "foot-token-acme-alice";
    static final String OTHER_TOKEN = "daemon-token-acme-other";
    static final Duration WAIT = Duration.ofSeconds(10);

    final WorkTargetServer server;
    private final List<WorkTargetClient> clients = new ArrayList<>();

    TestServer() throws IOException {
        this(b -> b);
    }

    TestServer(UnaryOperator<WorkTargetServer.Builder> tweak) throws IOException {
        TokenAuthenticator auth = TokenAuthenticator.builder()
                .token(DAEMON_TOKEN, new AuthPrincipal("box", "acme", Set.of("proj"), null))
                .token(FOOT_TOKEN, new AuthPrincipal("alice", "acme", Set.of("*"), "alice"))
                .token(OTHER_TOKEN, new AuthPrincipal("other", "acme", Set.of("other"), null))
                .build();
        this.server = tweak.apply(WorkTargetServer.builder().authenticator(auth)).build().start();
    }

    URI uri() {
        return URI.create("ws://127.0.0.1:" + server.port() + "/worktarget/v1");
    }

    WorkTargetClient.Builder daemonBuilder(String name, List<BackendTool> tools) {
        return WorkTargetClient.builder().uri(uri()).token(DAEMON_TOKEN).daemon("acme", "proj", name).tools(tools)
                .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200));
    }

    WorkTargetClient started(WorkTargetClient.Builder builder) throws InterruptedException {
        WorkTargetClient c = builder.build();
        clients.add(c);
        c.start();
        assertThat(c.awaitConnected(WAIT)).as("client connected").isTrue();
        return c;
    }

    WorkTargetClient daemon(String name, List<BackendTool> tools) throws InterruptedException {
        return started(daemonBuilder(name, tools));
    }

    WorkTargetClient track(WorkTargetClient c) {
        clients.add(c);
        return c;
    }

    static BackendTool tool(String name, BackendTool.Body body) {
        return BackendTool.of(ToolCatalog.backend(name).orElseThrow(), body);
    }

    /** client_file_read answering {@code content = "<prefix>:<path>"} and the calling process id. */
    static BackendTool echoRead(String prefix) {
        return tool("client_file_read", (p, ctx) -> Map.of("content", prefix + ":" + p.get("path"),
                "processId", ctx.processId()));
    }

    /** Runs a tool on a connected peer of a server, as the dispatcher does after routing. */
    static Map<String, Object> invoke(WorkTargetServer server, PeerKey key, String tool, Map<String, Object> params,
                                      ToolContext ctx, Duration timeout) throws ToolException {
        return server.peers().find(key).orElseThrow(() -> new ToolException(ErrorCode.OFFLINE, key + " is not connected"))
                .invoke(tool, params, ctx, timeout);
    }

    /** Whether a peer is connected and answering. */
    static boolean online(WorkTargetServer server, PeerKey key) {
        return server.peers().find(key).map(e -> !e.isStale()).orElse(false);
    }

    static ToolContext ctx() {
        return new ToolContext("proc-1", "s-1", "acme", "proj", "alice");
    }

    @Override
    public void close() {
        clients.forEach(WorkTargetClient::close);
        server.close();
    }
}
