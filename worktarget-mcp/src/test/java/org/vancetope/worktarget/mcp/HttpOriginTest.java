package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.modelcontextprotocol.json.McpJsonDefaults;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP endpoint validates {@code Origin} (MCP's guard against DNS rebinding), with a real HTTP client on
 * loopback: a page from another origin is refused with 403 and a JSON-RPC error before its token is looked
 * at; loopback pages and clients that send no {@code Origin} are served; the list is the host's to set.
 */
class HttpOriginTest {
    private static final String TOKEN = LocalHttpServer.TOKEN;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
    private LocalHttpServer server;

    private void start(Path tmp, List<String> allowedOrigins) throws Exception {
        server = new LocalHttpServer(tmp, UnaryOperator.identity(),
                b -> allowedOrigins == null ? b : b.allowedOrigins(allowedOrigins));
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private HttpResponse<String> initialize(String origin, String token) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(server.url)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(LocalHttpServer.INITIALIZE));
        if (origin != null) {
            r.header("Origin", origin);
        }
        if (token != null) {
            r.header("Authorization", "Bearer " + token);
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    @SuppressWarnings("unchecked")
    @Test
    void aRequestFromAForeignOriginIsRefusedWith403AndAJsonRpcErrorWithoutId(@TempDir Path tmp) throws Exception {
        start(tmp, null);
        HttpResponse<String> r = initialize("http://evil.example", TOKEN);
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
        Map<String, Object> body = McpJsonDefaults.getMapper().readValue(r.body(), Map.class);
        assertThat(body).containsEntry("jsonrpc", "2.0").doesNotContainKey("id");
        Map<String, Object> error = (Map<String, Object>) body.get("error");
        assertThat(error).containsEntry("code", -32600);
        assertThat((String) error.get("message"))
                .contains("'http://evil.example'", "DNS rebinding", "http://localhost:*", "--allowed-origins");
    }

    @Test
    void manyRefusedOriginsLogOneWarningNotOneEach(@TempDir Path tmp) throws Exception {
        start(tmp, null);
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        java.io.PrintStream err = System.err;
        System.setErr(new java.io.PrintStream(log, true, java.nio.charset.StandardCharsets.UTF_8));  // slf4j-simple
        try {
            for (int i = 0; i < 20; i++) {
                assertThat(initialize("http://evil" + i + ".example", null).statusCode()).isEqualTo(403);
            }
        } finally {
            System.setErr(err);
        }
        long warnings = log.toString(java.nio.charset.StandardCharsets.UTF_8).lines()
                .filter(l -> l.contains("WARN") && l.contains("Refused an MCP HTTP request from the origin")).count();
        assertThat(warnings).as("a client without a token cannot fill the log").isBetween(1L, 2L);
    }

    @Test
    void aForeignOriginIsRefusedBeforeTheTokenIsLookedAt(@TempDir Path tmp) throws Exception {
        start(tmp, null);
        assertThat(initialize("http://evil.example", null).statusCode()).isEqualTo(403);
        assertThat(initialize("http://localhost.evil.example:8080", "wrong-token").statusCode()).isEqualTo(403);
    }

    @Test
    void theOpaqueNullOriginIsRefused(@TempDir Path tmp) throws Exception {
        start(tmp, null);
        assertThat(initialize("null", TOKEN).statusCode()).isEqualTo(403);
    }

    @Test
    void loopbackPagesOnAnyPortAreServedByDefault(@TempDir Path tmp) throws Exception {
        start(tmp, null);
        for (String origin : List.of("http://localhost:5173", "http://127.0.0.1:8080", "http://[::1]:3000",
                "https://LOCALHOST", "http://localhost")) {
            HttpResponse<String> r = initialize(origin, TOKEN);
            assertThat(r.statusCode()).as(origin).isEqualTo(200);
            assertThat(r.body()).as(origin).contains("\"serverInfo\"");
        }
    }

    @Test
    void aClientThatSendsNoOriginIsJudgedByItsTokenAlone(@TempDir Path tmp) throws Exception {
        start(tmp, null);
        assertThat(initialize(null, TOKEN).statusCode()).isEqualTo(200);
        assertThat(initialize(null, null).statusCode()).isEqualTo(401);
    }

    @Test
    void theHostsListReplacesTheDefault(@TempDir Path tmp) throws Exception {
        start(tmp, List.of("https://app.example.com", "http://tools.example.com:*"));
        assertThat(initialize("https://app.example.com", TOKEN).statusCode()).isEqualTo(200);
        assertThat(initialize("http://tools.example.com:9000", TOKEN).statusCode()).isEqualTo(200);
        assertThat(initialize("https://app.example.com:8443", TOKEN).statusCode())
                .as("an entry without a port allows only the default port").isEqualTo(403);
        assertThat(initialize("http://app.example.com", TOKEN).statusCode()).as("another scheme").isEqualTo(403);
        assertThat(initialize("http://localhost:5173", TOKEN).statusCode()).as("loopback was not listed")
                .isEqualTo(403);
    }

    @Test
    void anEmptyListRefusesEveryBrowserOriginButNotOtherClients(@TempDir Path tmp) throws Exception {
        start(tmp, List.of());
        assertThat(initialize("http://localhost:5173", TOKEN).statusCode()).isEqualTo(403);
        assertThat(initialize(null, TOKEN).statusCode()).isEqualTo(200);
    }

    @Test
    void anEntryNotOfTheFormSchemeHostPortIsRefusedByTheBuilder() {
        for (String bad : List.of("localhost:3000", "http://", "http://host/path", "*", "http://*:80",
                "http://host:port", "http://user@host")) {
            assertThatThrownBy(() -> McpWorkTargetServer.builder().allowedOrigins(List.of(bad)))
                    .as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + bad + "'").hasMessageContaining("scheme://host:*");
        }
    }
}
