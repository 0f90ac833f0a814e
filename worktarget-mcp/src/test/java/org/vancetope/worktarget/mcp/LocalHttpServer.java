package org.vancetope.worktarget.mcp;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.BackendTool;

/**
 * The MCP server's Streamable HTTP form on a free loopback port, with CLIENT tools on one directory and one
 * token, {@link #TOKEN} (tenant {@code acme}, project {@code shop}); one process per MCP session.
 */
final class LocalHttpServer implements AutoCloseable {
    static final String TOKEN = "agent-token-0123456789";
    /** The tokens of two more principals of the same tenant and project, {@code second} and {@code third}. */
    static final String SECOND_TOKEN = "second-token-0123456789";
    static final String THIRD_TOKEN = "third-token-0123456789";
    /** {@code initialize} with id 1, as a request body. */
    static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

    private final LocalBackend local;
    private final McpWorkTargetServer mcp;
    /** The endpoint, {@code http://127.0.0.1:PORT/mcp}. */
    final String url;

    /**
     * Starts the server.
     *
     * @param dir the CLIENT tools' directory
     * @param mapping what the tests put in place of the per-session mapping (given it)
     * @param settings what the test sets on the server's builder (the allowed origins, a request timeout)
     */
    LocalHttpServer(Path dir, UnaryOperator<McpProcessMapping> mapping, UnaryOperator<McpWorkTargetServer.Builder> settings)
            throws IOException {
        this(dir, mapping, settings, List.of());
    }

    /**
     * Starts the server with host tools besides the CLIENT tools.
     *
     * @param dir the CLIENT tools' directory
     * @param mapping what the tests put in place of the per-session mapping (given it)
     * @param settings what the test sets on the server's builder
     * @param hostTools tools the server runs itself
     */
    LocalHttpServer(Path dir, UnaryOperator<McpProcessMapping> mapping, UnaryOperator<McpWorkTargetServer.Builder> settings,
                    List<BackendTool> hostTools) throws IOException {
        local = LocalBackend.builder().workDirectory(dir).build();
        InMemoryProcessStore store = new InMemoryProcessStore();
        WorkTargetDispatcher.Builder db = WorkTargetDispatcher.builder().processStore(store).peers(local);
        hostTools.forEach(db::hostTool);
        WorkTargetDispatcher dispatcher = db.build();
        mcp = settings.apply(McpWorkTargetServer.builder().dispatcher(dispatcher).hostTools(hostTools)
                .processes(mapping.apply(McpProcessMapping.perSession(store, dispatcher, "acme", "shop")))).build();
        TokenAuthenticator auth = TokenAuthenticator.builder()
                .token(TOKEN, new AuthPrincipal("agent", "acme", Set.of("shop"), "alice"))
                .token(SECOND_TOKEN, new AuthPrincipal("second", "acme", Set.of("shop"), "bob"))
                .token(THIRD_TOKEN, new AuthPrincipal("third", "acme", Set.of("shop"), "carol")).build();
        try {
            url = "http://127.0.0.1:" + mcp.startHttp("127.0.0.1", 0, auth).getPort() + McpWorkTargetServer.HTTP_PATH;
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** A POST of this body to the endpoint with the token, in the session named (null: none). */
    HttpRequest request(String sessionId, String body) {
        return request(sessionId, body, TOKEN);
    }

    /** A POST of this body to the endpoint with a token, in the session named (null: none). */
    HttpRequest request(String sessionId, String body, String token) {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(body));
        if (sessionId != null) {
            r.header("Mcp-Session-Id", sessionId);
        }
        return r.build();
    }

    /** Initializes a session on this client and returns its id. */
    String session(HttpClient http) throws IOException, InterruptedException {
        return session(http, TOKEN);
    }

    /** Initializes a session of the token's principal and returns its id. */
    String session(HttpClient http, String token) throws IOException, InterruptedException {
        String id = http.send(request(null, INITIALIZE, token), HttpResponse.BodyHandlers.ofString())
                .headers().firstValue("Mcp-Session-Id").orElseThrow();
        http.send(request(id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", token),
                HttpResponse.BodyHandlers.ofString());
        return id;
    }

    /** Sends {@code exec_run} of a {@link WaitingCommands} command in a session; it answers once the command ends. */
    CompletableFuture<HttpResponse<String>> waitingCall(HttpClient http, String sessionId, int id) {
        return waitingCall(http, sessionId, id, TOKEN);
    }

    /** {@link #waitingCall(HttpClient, String, int)} in a session of the token's principal. */
    CompletableFuture<HttpResponse<String>> waitingCall(HttpClient http, String sessionId, int id, String token) {
        return http.sendAsync(request(sessionId, call(id, "exec_run", WaitingCommands.ARGUMENTS), token),
                HttpResponse.BodyHandlers.ofString());
    }

    /** A {@code tools/call} request body. */
    static String call(int id, String tool, String arguments) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
                + "\",\"arguments\":" + arguments + "}}";
    }

    @Override
    public void close() {
        try {
            mcp.close();
        } finally {
            local.close();
        }
    }
}
