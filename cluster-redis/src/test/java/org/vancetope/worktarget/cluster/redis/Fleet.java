package org.vancetope.worktarget.cluster.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.function.Consumer;
import org.vancetope.worktarget.backend.daemon.FleetLink;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/** Three real server nodes on loopback ports joined through one real Redis, plus their clients. */
final class Fleet implements AutoCloseable {
    static final String DAEMON_TOKEN = "daemon-token-acme-proj";
    static final String FOOT_TOKEN = "foot-token-acme-alice";
    /** A foot token of another subject of the same tenant. */
    static final String OTHER_FOOT_TOKEN = "foot-token-acme-mallory";
    static final Duration TTL = Duration.ofSeconds(3);
    static final Duration WAIT = Duration.ofSeconds(20);

    final List<RedisFleetLink> links = new ArrayList<>();
    final List<WorkTargetServer> nodes = new ArrayList<>();
    private final List<WorkTargetClient> clients = new ArrayList<>();

    private final RedisServer redis;
    final String prefix = "t" + System.nanoTime() + ":";

    Fleet(RedisServer redis, int count, int maxFrameBytes) throws IOException {
        this.redis = redis;
        for (int i = 1; i <= count; i++) {
            RedisFleetLink link = link("node" + i).build();
            links.add(link);
            nodes.add(server(link).maxFrameBytes(maxFrameBytes).build().start());
        }
    }

    /** The settings of this fleet's links, for a node with this id. */
    RedisFleetLink.Builder link(String nodeId) {
        return RedisFleetLink.builder().uri(redis.uri()).nodeId(nodeId).presenceTtl(TTL)
                .commandTimeout(Duration.ofSeconds(2)).reconnectDelay(Duration.ofMillis(100)).keyPrefix(prefix);
    }

    /** A server node of this fleet on a free port, not yet started. */
    static WorkTargetServer.Builder server(FleetLink link) {
        TokenAuthenticator auth = TokenAuthenticator.builder()
                .token(DAEMON_TOKEN, new AuthPrincipal("box", "acme", Set.of("proj"), null))
                .token(FOOT_TOKEN, new AuthPrincipal("alice", "acme", Set.of("*"), "alice"))
                .token(OTHER_FOOT_TOKEN, new AuthPrincipal("mallory", "acme", Set.of("*"), "mallory"))
                .build();
        return WorkTargetServer.builder().authenticator(auth).fleet(link);
    }

    WorkTargetServer node(int n) {
        return nodes.get(n - 1);
    }

    URI uri(int n) {
        return URI.create("ws://127.0.0.1:" + node(n).port() + "/worktarget/v1");
    }

    WorkTargetClient daemon(int n, String name, List<BackendTool> tools) throws InterruptedException {
        return daemon(n, name, tools, null);
    }

    /** A daemon of project proj on node n; {@code processEnded} (may be null) is told of process.end. */
    WorkTargetClient daemon(int n, String name, List<BackendTool> tools, Consumer<ToolContext> processEnded)
            throws InterruptedException {
        return started(WorkTargetClient.builder().uri(uri(n)).token(DAEMON_TOKEN).daemon("acme", "proj", name)
                .tools(tools).workerThreads(16).reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
                .processEndHook(processEnded));
    }

    WorkTargetClient foot(int n, String sessionId, List<BackendTool> tools) throws InterruptedException {
        return foot(n, sessionId, tools, null);
    }

    /** The foot of a session on node n; {@code processEnded} (may be null) is told of process.end. */
    WorkTargetClient foot(int n, String sessionId, List<BackendTool> tools, Consumer<ToolContext> processEnded)
            throws InterruptedException {
        return started(WorkTargetClient.builder().uri(uri(n)).token(FOOT_TOKEN).foot("acme", "proj", sessionId)
                .tools(tools).reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
                .processEndHook(processEnded));
    }

    /** A foot of a session on node n with a token of the test's choice, built but not started (nor awaited). */
    WorkTargetClient unstartedFoot(int n, String token, String sessionId, List<BackendTool> tools) {
        WorkTargetClient c = WorkTargetClient.builder().uri(uri(n)).token(token).foot("acme", "proj", sessionId)
                .tools(tools).reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200)).build();
        clients.add(c);
        return c;
    }

    private WorkTargetClient started(WorkTargetClient.Builder b) throws InterruptedException {
        WorkTargetClient c = b.build();
        clients.add(c);
        c.start();
        assertThat(c.awaitConnected(WAIT)).as("client connected").isTrue();
        return c;
    }

    /** Runs a tool on a peer from one node, as that node's dispatcher does after routing. */
    Map<String, Object> call(int n, PeerKey key, String tool, Map<String, Object> params, Duration timeout)
            throws ToolException {
        return node(n).peers().find(key)
                .orElseThrow(() -> new ToolException(ErrorCode.OFFLINE, key + " is not known to node" + n))
                .invoke(tool, params, ctx(), timeout);
    }

    /** Whether a node finds the peer (on itself or through the fleet). */
    boolean sees(int n, PeerKey key) {
        return node(n).peers().find(key).isPresent();
    }

    /** A link listener that keeps the messages it is given (null: drops them) and ignores lost peers. */
    static FleetLink.Listener listener(Queue<String> messages) {
        return new FleetLink.Listener() {
            @Override
            public void onMessage(String message) {
                if (messages != null) {
                    messages.add(message);
                }
            }

            @Override
            public void onLost(PeerKey key, String connectionId) {
            }
        };
    }

    static ToolContext ctx() {
        return new ToolContext("proc-1", "s-1", "acme", "proj", "alice");
    }

    static BackendTool tool(String name, BackendTool.Body body) {
        return BackendTool.of(ToolCatalog.backend(name).orElseThrow(), body);
    }

    /** client_file_read answering {@code content = "<prefix>:<path>"}. */
    static BackendTool echoRead(String prefix) {
        return tool("client_file_read", (p, ctx) -> Map.of("content", prefix + ":" + p.get("path")));
    }

    @Override
    public void close() {
        clients.forEach(WorkTargetClient::close);
        nodes.forEach(WorkTargetServer::close);
    }
}
