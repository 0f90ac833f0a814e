package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.testfixtures.RawHttp;

/**
 * The Streamable HTTP endpoint judges a request on its head before it buffers the body, bounds the body, and
 * closes connections that send too slowly or sit idle, as serve's admin API does (the same guards): on raw
 * sockets on loopback, with a request timeout of {@value #TIMEOUT_MS} ms.
 */
class HttpConnectionGuardsTest {
    private static final int TIMEOUT_MS = 2000;

    private LocalHttpServer server;
    private URI uri;

    @BeforeEach
    void start(@TempDir Path tmp) throws Exception {
        server = new LocalHttpServer(tmp, UnaryOperator.identity(),
                b -> b.httpRequestTimeout(Duration.ofMillis(TIMEOUT_MS)));
        uri = URI.create(server.url);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** A POST head for {@code /mcp} announcing a JSON body of this length, with these extra header lines. */
    private String head(long contentLength, String extraHeaders) {
        return "POST /mcp HTTP/1.1\r\nHost: " + uri.getAuthority() + "\r\nContent-Type: application/json\r\n"
                + "Accept: application/json, text/event-stream\r\nContent-Length: " + contentLength + "\r\n"
                + extraHeaders + "\r\n";
    }

    private static String token() {
        return "Authorization: Bearer " + LocalHttpServer.TOKEN + "\r\n";
    }

    /** Sends these bytes on a new connection and returns everything the server writes until it closes. */
    private String untilClosed(String sent) throws IOException {
        try (Socket socket = new Socket(uri.getHost(), uri.getPort())) {
            socket.setSoTimeout(60_000);
            OutputStream out = socket.getOutputStream();
            out.write(sent.getBytes(StandardCharsets.UTF_8));
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aRequestWithoutTheTokenIsRefusedOnItsHeadBeforeItsBodyIsSent() throws Exception {
        String answer = untilClosed(head(15L << 20, ""));
        assertThat(answer).startsWith("HTTP/1.1 401").containsIgnoringCase("www-authenticate: Bearer")
                .containsIgnoringCase("connection: close").contains("Authorization: Bearer");
    }

    @Test
    void aRequestForAnotherPathIsRefusedOnItsHead() throws Exception {
        String answer = untilClosed(head(15L << 20, token()).replace("POST /mcp ", "POST /other "));
        assertThat(answer).startsWith("HTTP/1.1 404").contains("the MCP endpoint is /mcp");
    }

    @Test
    void aBodyOverTheLimitGets413WithAMessageAndTheConnectionCloses() throws Exception {
        String answer = untilClosed(head(20L << 20, token()));
        assertThat(answer).startsWith("HTTP/1.1 413").containsIgnoringCase("connection: close")
                .contains("over 16 MiB", "client_file_upload");
    }

    @Test
    void aBodyAnnouncedOverTheLimitGets413InsteadOf100Continue() throws Exception {
        String answer = untilClosed(head(20L << 20, token() + "Expect: 100-continue\r\n"));
        assertThat(answer).startsWith("HTTP/1.1 413").doesNotContain("100 Continue")
                .contains("over 16 MiB", "client_file_upload");
    }

    @Test
    void aHeadThatIsNotHttpIsRefusedAsMalformed() throws Exception {
        String answer = untilClosed("POST /mcp HTTP/1.1\r\nContent-Length: many\r\n\r\n");
        assertThat(answer).startsWith("HTTP/1.1 400").contains("not valid HTTP/1.1");
    }

    @Test
    void aConnectionThatSendsNothingGets408AfterTheRequestTimeoutAndCloses() throws Exception {
        assertThat(untilClosed("")).startsWith("HTTP/1.1 408").contains("within " + TIMEOUT_MS + " ms");
    }

    @Test
    void aClientThatSendsItsBodyTooSlowlyGets408AndIsClosed() throws Exception {
        // the head and a tenth of the body, then nothing
        assertThat(untilClosed(head(100, token()) + "{\"jsonrpc\"")).startsWith("HTTP/1.1 408");
    }

    @Test
    void aCallThatRunsLongerThanTheRequestTimeoutIsAnswered() throws Exception {
        String session = post(null, LocalHttpServer.INITIALIZE).headers().firstValue("Mcp-Session-Id").orElseThrow();
        assertThat(post(session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").statusCode())
                .isEqualTo(202);
        HttpResponse<String> r = post(session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                + "{\"name\":\"exec_run\",\"arguments\":{\"command\":\"sleep " + (TIMEOUT_MS * 2 / 1000)
                + "; echo slept\",\"waitMs\":60000}}}");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"id\":2", "exited", "\"isError\":false").doesNotContain("must arrive within");   // not the 408 text
    }

    @Test
    void requestsSentBackToBackAreAnsweredWholeAndInOrder() throws Exception {
        String session = post(null, LocalHttpServer.INITIALIZE).headers().firstValue("Mcp-Session-Id").orElseThrow();
        post(session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        String slow = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"exec_run\","
                + "\"arguments\":{\"command\":\"sleep 1; echo slow-one\",\"waitMs\":60000}}}";
        String quick = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"work_target_get\","
                + "\"arguments\":{}}}";
        String both = head(slow.length(), token() + "Mcp-Session-Id: " + session + "\r\n") + slow
                + head(quick.length(), token() + "Mcp-Session-Id: " + session + "\r\nConnection: close\r\n") + quick;

        String answer = untilClosed(both);

        int second = answer.indexOf("HTTP/1.1 200", 1);
        assertThat(answer).startsWith("HTTP/1.1 200");
        assertThat(second).as("two answers").isPositive();
        String first = answer.substring(0, second);
        assertThat(first).as("the first answer, whole: its events and the end of its chunks")
                .contains("\"id\":2", "slow-one").endsWith("0\r\n\r\n").doesNotContain("\"id\":3");
        assertThat(answer.substring(second)).contains("\"id\":3", "\"isError\":false");
    }

    /** One POST on a client of its own (a new connection: none is left idle across the server's timeout). */
    private HttpResponse<String> post(String sessionId, String body) throws IOException, InterruptedException {
        HttpRequest.Builder r = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .header("Authorization", "Bearer " + LocalHttpServer.TOKEN).POST(HttpRequest.BodyPublishers.ofString(body));
        if (sessionId != null) {
            r.header("Mcp-Session-Id", sessionId);
        }
        return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build()
                .send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void connectionsOverTheCapAreClosedAtOnceAndTheOthersAreServed(@TempDir Path tmp) throws Exception {
        try (LocalHttpServer capped = new LocalHttpServer(tmp, UnaryOperator.identity(),
                b -> b.httpRequestTimeout(Duration.ofMillis(TIMEOUT_MS)).httpMaxConnections(2))) {
            URI at = URI.create(capped.url);
            java.util.List<Socket> sockets = new java.util.ArrayList<>();
            java.util.List<String> answers = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 5; i++) {
                    Socket s = new Socket(at.getHost(), at.getPort());
                    s.setSoTimeout(60_000);
                    sockets.add(s);
                }
                for (Socket s : sockets) {
                    answers.add(new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
                }
            } finally {
                for (Socket s : sockets) {
                    s.close();
                }
            }
            // which ones were over the cap depends on the order the event loops saw them; how many does not
            assertThat(answers).filteredOn(String::isEmpty).as("closed at once, over the cap").hasSize(3);
            assertThat(answers).filteredOn(a -> a.startsWith("HTTP/1.1 408")).as("served (idle, then timed out)")
                    .hasSize(2);
        }
    }

    /** A server that lets one address hold 2 connections that have not yet sent an accepted token. */
    private static LocalHttpServer twoUnauthenticatedPerAddress(Path tmp) throws IOException {
        return new LocalHttpServer(tmp, UnaryOperator.identity(), b -> b.httpRequestTimeout(
                Duration.ofMillis(TIMEOUT_MS * 10)).httpMaxConnections(100).httpMaxUnauthenticatedPerAddress(2));
    }

    @Test
    void oneHostWithoutATokenCannotTakeThePlacesOfAnother(@TempDir Path tmp) throws Exception {
        try (LocalHttpServer capped = twoUnauthenticatedPerAddress(tmp)) {
            int port = URI.create(capped.url).getPort();
            java.util.List<Socket> flood = new java.util.ArrayList<>();
            try {
                flood.add(RawHttp.connectFrom(port, "127.0.0.2", 60_000));
                flood.add(RawHttp.connectFrom(port, "127.0.0.2", 60_000));
                flood.add(RawHttp.connectFrom(port, "127.0.0.2", 60_000));
                assertThat(RawHttp.readUntilClosed(flood.get(0))).as("the oldest of the flooding host's").isEmpty();

                try (Socket other = RawHttp.connectFrom(port, "127.0.0.1", 60_000)) {
                    RawHttp.send(other, "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + token() + "\r\n");
                    assertThat(RawHttp.readOne(other)).as("another host is served").startsWith("HTTP/1.1 4")
                            .doesNotStartWith("HTTP/1.1 401");
                }
            } finally {
                for (Socket f : flood) {
                    f.close();
                }
            }
        }
    }

    @Test
    void aConnectionWhoseRequestCarriedATokenNoLongerCountsAgainstItsHost(@TempDir Path tmp) throws Exception {
        try (LocalHttpServer capped = twoUnauthenticatedPerAddress(tmp)) {
            int port = URI.create(capped.url).getPort();
            Socket idle = null;
            try (Socket trusted = RawHttp.connectFrom(port, "127.0.0.3", 60_000)) {
                idle = RawHttp.connectFrom(port, "127.0.0.3", 60_000);
                RawHttp.send(trusted, "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + token() + "\r\n");
                assertThat(RawHttp.readOne(trusted)).startsWith("HTTP/1.1 4").doesNotStartWith("HTTP/1.1 401");

                try (Socket second = RawHttp.connectFrom(port, "127.0.0.3", 60_000)) {
                    RawHttp.send(second, "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                    assertThat(RawHttp.readUntilClosed(second)).as("the second one without a token was accepted")
                            .startsWith("HTTP/1.1 401");
                }
                RawHttp.send(trusted, "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + token() + "\r\n");
                assertThat(RawHttp.readOne(trusted)).as("the trusted one was not closed to make room")
                        .startsWith("HTTP/1.1 4").doesNotStartWith("HTTP/1.1 401");
            } finally {
                if (idle != null) {
                    idle.close();
                }
            }
        }
    }

    @Test
    void socketsThatSendNothingFromAClientsOwnAddressCannotKeepItOut(@TempDir Path tmp) throws Exception {
        // on a loopback bind (the default), or behind a proxy, every client has the same address
        try (LocalHttpServer capped = twoUnauthenticatedPerAddress(tmp)) {
            int port = URI.create(capped.url).getPort();
            java.util.List<Socket> idle = new java.util.ArrayList<>();
            try {
                idle.add(RawHttp.connectFrom(port, "127.0.0.1", 60_000));
                idle.add(RawHttp.connectFrom(port, "127.0.0.1", 60_000));
                try (Socket client = RawHttp.connectFrom(port, "127.0.0.1", 60_000)) {
                    RawHttp.send(client, "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + token() + "\r\n");
                    assertThat(RawHttp.readOne(client)).as("the client is served").startsWith("HTTP/1.1 4")
                            .doesNotStartWith("HTTP/1.1 401");
                }
                assertThat(RawHttp.readUntilClosed(idle.get(0))).as("the oldest idle one made room").isEmpty();
            } finally {
                for (Socket s : idle) {
                    s.close();
                }
            }
        }
    }

    @Test
    @org.junit.jupiter.api.Disabled("racy: the third head can be counted before the second slow one; wait for each "
            + "head to be accepted (Expect: 100-continue) before re-enabling")
    void oneTokensConnectionsTakeAtMostAQuarterOfTheCapAndOtherTokensStillGetIn(@TempDir Path tmp) throws Exception {
        try (LocalHttpServer capped = new LocalHttpServer(tmp, UnaryOperator.identity(),
                b -> b.httpMaxConnections(8).httpRequestTimeout(Duration.ofSeconds(60)))) {
            int port = URI.create(capped.url).getPort();
            String slowHead = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n";
            java.util.List<Socket> slow = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 2; i++) {     // a quarter of 8: head accepted, body trickling
                    Socket s = RawHttp.connectFrom(port, "127.0.0.1", 60_000);
                    RawHttp.send(s, slowHead + token() + "\r\n{");
                    slow.add(s);
                }
                try (Socket third = RawHttp.connectFrom(port, "127.0.0.1", 60_000)) {
                    RawHttp.send(third, slowHead + token() + "\r\n{");
                    assertThat(RawHttp.readUntilClosed(third)).startsWith("HTTP/1.1 429")
                            .contains("'agent' holds 2 connections", "a quarter of its 8", "keep-alive");
                }
                try (Socket other = RawHttp.connectFrom(port, "127.0.0.1", 60_000)) {
                    RawHttp.send(other, "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                            + LocalHttpServer.SECOND_TOKEN + "\r\n\r\n");
                    assertThat(RawHttp.readOne(other)).as("another token is served").startsWith("HTTP/1.1 4")
                            .doesNotStartWith("HTTP/1.1 429").doesNotStartWith("HTTP/1.1 401");
                }
                slow.remove(0).close();
                org.vancetope.worktarget.testfixtures.Await.until("a closed connection gives its place back", () -> {
                    try (Socket again = RawHttp.connectFrom(port, "127.0.0.1", 60_000)) {
                        RawHttp.send(again, "DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n" + token() + "\r\n");
                        return !RawHttp.readOne(again).startsWith("HTTP/1.1 429");
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
            } finally {
                for (Socket s : slow) {
                    s.close();
                }
            }
        }
    }

    @Test
    void theCapPerAddressMayBeOffButNotNegative() {
        assertThat(McpWorkTargetServer.DEFAULT_HTTP_MAX_UNAUTHENTICATED_PER_ADDRESS).isEqualTo(128);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> McpWorkTargetServer.builder()
                .httpMaxUnauthenticatedPerAddress(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("httpMaxUnauthenticatedPerAddress must be 0 (no cap) or more");
    }
}
