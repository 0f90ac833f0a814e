package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.json.McpJsonDefaults;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests the SDK cannot read get a JSON-RPC error with their id over Streamable HTTP, never an empty
 * response stream (which leaves the client waiting for the id) or a 500: params that are not an object,
 * {@code tools/call} without a tool name or with arguments that are not an object, an {@code initialize}
 * whose members have the wrong type (before, the first two got an empty stream and the last a 500); a batch
 * is refused with a message that says what to send; a call whose handling fails (here: the host's process
 * mapping throws an Error) gets an internal error. The session serves the next request as before. A real
 * HTTP client on loopback.
 */
class HttpInvalidRequestTest {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();
    private final AtomicBoolean mappingBreaks = new AtomicBoolean();
    private LocalHttpServer server;

    @BeforeEach
    void start(@TempDir Path tmp) throws Exception {
        Files.writeString(tmp.resolve("a.txt"), "hello\n");
        // the host's mapping fails with an Error once when told to
        server = new LocalHttpServer(tmp, sessions -> caller -> {
            if (mappingBreaks.getAndSet(false)) {
                throw new AssertionError("the host's mapping broke an invariant");
            }
            return sessions.processFor(caller);
        }, UnaryOperator.identity());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private HttpResponse<String> post(String sessionId, String body) throws IOException, InterruptedException {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(server.url)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("Authorization", "Bearer " + LocalHttpServer.TOKEN).POST(HttpRequest.BodyPublishers.ofString(body));
        if (sessionId != null) {
            r.header("Mcp-Session-Id", sessionId);
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    private String session() throws IOException, InterruptedException {
        HttpResponse<String> r = post(null, LocalHttpServer.INITIALIZE);
        assertThat(r.statusCode()).isEqualTo(200);
        String id = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
        assertThat(post(id, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode())
                .isEqualTo(202);
        return id;
    }

    /** The one JSON-RPC message of a response: a JSON body, or the data of the one event of an SSE stream. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> message(HttpResponse<String> r) throws IOException {
        assertThat(r.statusCode()).isEqualTo(200);
        String body = r.body();
        if (r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
            List<String> data = body.lines().filter(l -> l.startsWith("data: ")).toList();
            assertThat(data).as("the events of %s", body).hasSize(1);
            body = data.get(0).substring("data: ".length());
        }
        return McpJsonDefaults.getMapper().readValue(body, Map.class);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> error(Map<String, Object> message, int id, int code) {
        assertThat(message).containsEntry("id", id).doesNotContainKey("result");
        Map<String, Object> error = (Map<String, Object>) message.get("error");
        assertThat(error).containsEntry("code", code);
        return error;
    }

    private String call(int id, String params) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":" + params + "}";
    }

    @Test
    void aBodyThatIsJsonNullIsABadRequestThatSaysWhatToSendNot500() throws Exception {
        HttpResponse<String> r = post(session(), "null");

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("not one JSON-RPC message", "\"method\"").doesNotContain("NullPointer");
    }

    @Test
    void aRequestWithAProtocolVersionTheServerDoesNotSpeakIs400AndOneItSpeaksIsServed() throws Exception {
        String id = session();
        for (String version : List.of("1900-01-01", "not-a-version")) {
            HttpRequest bad = HttpRequest.newBuilder(URI.create(server.url)).timeout(Duration.ofSeconds(60))
                    .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                    .header("Authorization", "Bearer " + LocalHttpServer.TOKEN).header("Mcp-Session-Id", id)
                    .header("MCP-Protocol-Version", version)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}"))
                    .build();
            HttpResponse<String> r = http.send(bad, HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(version).isEqualTo(400);
            assertThat(r.body()).contains("Unsupported MCP-Protocol-Version '" + version + "'", "2025-06-18");
        }
        HttpRequest good = HttpRequest.newBuilder(URI.create(server.url)).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("Authorization", "Bearer " + LocalHttpServer.TOKEN).header("Mcp-Session-Id", id)
                .header("MCP-Protocol-Version", "2025-06-18")
                .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}")).build();
        assertThat(message(http.send(good, HttpResponse.BodyHandlers.ofString()))).containsEntry("id", 4)
                .containsKey("result");
    }

    @Test
    void initializeWithParamsThatAreNotAnObjectGetsInvalidParamsAndNoSession() throws Exception {
        HttpResponse<String> r = post(null, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initialize\",\"params\":\"x\"}");
        assertThat(error(message(r), 7, -32602)).extractingByKey("message").asString()
                .contains("params of initialize must be a JSON object", "a string");
        assertThat(r.headers().firstValue("Mcp-Session-Id")).isEmpty();
    }

    @Test
    void initializeWithoutParamsGetsInvalidParamsThatShowTheirShape() throws Exception {
        HttpResponse<String> r = post(null, "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initialize\"}");
        assertThat(error(message(r), 7, -32602)).extractingByKey("message").asString()
                .contains("\"protocolVersion\"", "\"capabilities\"", "\"clientInfo\"");
    }

    @Test
    void initializeWithCapabilitiesTheSdkCannotReadGetsInvalidParamsNot500() throws Exception {
        HttpResponse<String> top = post(null, LocalHttpServer.INITIALIZE.replace("\"capabilities\":{}", "\"capabilities\":[]"));
        assertThat(error(message(top), 1, -32602)).extractingByKey("message").asString()
                .contains("capabilities must be a JSON object", "an array");
        HttpResponse<String> nested = post(null, LocalHttpServer.INITIALIZE.replace("\"capabilities\":{}",
                "\"capabilities\":{\"roots\":\"x\"}"));
        assertThat(error(message(nested), 1, -32602)).extractingByKey("message").asString()
                .contains("params of initialize cannot be read", "roots");
        assertThat(nested.headers().firstValue("Mcp-Session-Id")).isEmpty();
    }

    @Test
    void toolsCallWithArgumentsThatAreNotAnObjectGetsInvalidParamsAndTheSessionServesOn() throws Exception {
        String session = session();
        for (String arguments : List.of("\"a.txt\"", "[\"a.txt\"]", "42", "true")) {
            HttpResponse<String> r = post(session, call(3, "{\"name\":\"file_read\",\"arguments\":" + arguments + "}"));
            assertThat(error(message(r), 3, -32602)).as(arguments).extractingByKey("message").asString()
                    .contains("arguments of tools/call file_read must be a JSON object", "inputSchema");
        }
        Map<String, Object> ok = message(post(session, call(4, "{\"name\":\"file_read\",\"arguments\":{\"path\":\"a.txt\"}}")));
        assertThat(ok).containsEntry("id", 4).containsKey("result");
        assertThat(ok.get("result").toString()).contains("hello");
    }

    @Test
    void toolsCallWithoutAToolNameGetsInvalidParams() throws Exception {
        String session = session();
        for (String params : List.of("null", "{\"arguments\":{}}", "{\"name\":[\"file_read\"],\"arguments\":{}}")) {
            HttpResponse<String> r = post(session, params.equals("null")
                    ? "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\"}" : call(5, params));
            assertThat(error(message(r), 5, -32602)).as(params).extractingByKey("message").asString()
                    .contains("tools/call needs params {\"name\": TOOL", "tools/list");
        }
    }

    @Test
    void anUnknownLoggingLevelGetsInvalidParamsThatNameTheLevels() throws Exception {
        String session = session();
        HttpResponse<String> r = post(session, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"logging/setLevel\","
                + "\"params\":{\"level\":\"loud\"}}");
        assertThat(error(message(r), 6, -32602)).extractingByKey("message").asString()
                .contains("debug, info, notice, warning, error, critical, alert, emergency", "\"loud\"");
    }

    @Test
    void aBatchIsRefusedWithAMessageThatSaysToSendEachMessageOnItsOwn() throws Exception {
        String session = session();
        HttpResponse<String> r = post(session, "[" + call(8, "{\"name\":\"file_read\",\"arguments\":{}}") + "]");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("batches of JSON-RPC messages are not accepted", "each message on its own");
    }

    @Test
    void aCallWhoseHandlingFailsWithAnErrorGetsAnInternalErrorWithItsId() throws Exception {
        String session = session();
        mappingBreaks.set(true);
        HttpResponse<String> r = post(session, call(9, "{\"name\":\"file_read\",\"arguments\":{\"path\":\"a.txt\"}}"));
        assertThat(error(message(r), 9, -32603)).extractingByKey("message").asString()
                .isEqualTo("the host's mapping broke an invariant");
        Map<String, Object> ok = message(post(session, call(10, "{\"name\":\"file_read\",\"arguments\":{\"path\":\"a.txt\"}}")));
        assertThat(ok).containsEntry("id", 10).containsKey("result");
    }

    @Test
    void aBodyNestedTooDeepGets400ThatSaysSo() throws Exception {
        String session = session();
        HttpResponse<String> r = post(session, call(9, "{\"name\":\"file_read\",\"arguments\":{\"path\":"
                + "[".repeat(5000) + "]".repeat(5000) + "}}"));
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).startsWith("The body is not one JSON-RPC message: ").contains("nesting depth")
                .doesNotContain("Failed to read value").doesNotContain("[[[");
    }

    @Test
    void aBodyThatIsNoMessageGets400WithTheShapeAndNotItsText() throws Exception {
        String session = session();
        HttpResponse<String> r = post(session, "{\"jsonrpc\":\"2.0\",\"blob\":\"" + "x".repeat(1 << 20) + "\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).hasSizeLessThan(1024).doesNotContain("xxxxxxxx")
                .contains("with a \"method\" (a request or notification)");
    }

    private HttpResponse<String> send(String method, String sessionId, Map<String, String> headers, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(server.url)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + LocalHttpServer.TOKEN)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(r::header);
        if (sessionId != null) {
            r.header("Mcp-Session-Id", sessionId);
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static final String PING = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}";

    @Test
    void aPostWhoseContentTypeIsNotJsonIs415ThatNamesTheTypeToSend() throws Exception {
        String id = session();
        HttpResponse<String> r = send("POST", id, Map.of("Content-Type", "application/x-www-form-urlencoded",
                "Accept", "application/json, text/event-stream"), PING);
        assertThat(r.statusCode()).isEqualTo(415);
        assertThat(r.body()).contains("Content-Type: application/json", "'application/x-www-form-urlencoded'");
    }

    @Test
    void aPostThatDoesNotAcceptAnEventStreamIs406ThatNamesBothTypes() throws Exception {
        String id = session();
        for (String accept : List.of("application/json", "text/event-stream", "text/html",
                "application/json, text/event-stream;q=0")) {
            HttpResponse<String> r = send("POST", id, Map.of("Content-Type", "application/json", "Accept", accept), PING);
            assertThat(r.statusCode()).as(accept).isEqualTo(406);
            assertThat(r.body()).as(accept).contains("Accept: application/json, text/event-stream",
                    "'" + accept + "'");
        }
    }

    @Test
    void aPostWithWildcardsOrWithoutTheHeadersIsServed() throws Exception {
        String id = session();
        for (Map<String, String> headers : List.of(Map.<String, String>of(), Map.of("Accept", "*/*"),
                Map.of("Accept", "application/*, text/*", "Content-Type", "application/json; charset=utf-8"))) {
            HttpResponse<String> r = send("POST", id, headers, PING);
            assertThat(r.statusCode()).as(headers.toString()).isEqualTo(200);
            assertThat(message(r)).as(headers.toString()).containsEntry("id", 5).containsKey("result");
        }
    }

    @Test
    void aGetThatDoesNotAcceptAnEventStreamIs406() throws Exception {
        String id = session();
        HttpResponse<String> r = send("GET", id, Map.of("Accept", "application/json"), null);
        assertThat(r.statusCode()).isEqualTo(406);
        assertThat(r.body()).contains("Accept: text/event-stream", "'application/json'");
    }
}
