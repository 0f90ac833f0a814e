package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.McpHttpClientTransportAuthorizationException;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MCP Java SDK's own client over Streamable HTTP: with the token it lists and calls the tools, switches
 * to the daemon {@code build-box} and keeps going there, gets progress while exec_run waits; without a
 * token, or with a wrong one, it is refused.
 */
class JavaSdkHttpClientTest {

    private static McpSyncClient client(HttpFixture f, String token, List<McpSchema.ProgressNotification> progress) {
        HttpRequest.Builder req = HttpRequest.newBuilder();
        if (token != null) {
            req.header("Authorization", "Bearer " + token);
        }
        HttpClientStreamableHttpTransport t = HttpClientStreamableHttpTransport.builder(f.baseUrl())
                .endpoint(McpWorkTargetServer.HTTP_PATH).requestBuilder(req).build();
        return McpClient.sync(t).requestTimeout(Duration.ofSeconds(60)).progressConsumer(progress::add).build();
    }

    private static McpSchema.CallToolRequest call(String tool, Map<String, Object> args) {
        return McpSchema.CallToolRequest.builder(tool).arguments(args).build();
    }

    private static Map<?, ?> ok(McpSchema.CallToolResult r) {
        assertThat(r.isError()).as("%s", r.content()).isFalse();
        assertThat(r.structuredContent()).isInstanceOf(Map.class);
        assertThat(r.content()).singleElement().isInstanceOf(McpSchema.TextContent.class);
        return (Map<?, ?>) r.structuredContent();
    }

    @Test
    void withTheTokenTheToolsRunOnWorkAndOnTheDaemonItSwitchesTo(@TempDir Path tmp) throws Exception {
        List<McpSchema.ProgressNotification> progress = new CopyOnWriteArrayList<>();
        try (HttpFixture f = new HttpFixture(tmp); McpSyncClient c = client(f, HttpFixture.AGENT_TOKEN, progress)) {
            c.initialize();
            List<McpSchema.Tool> tools = c.listTools().tools();
            assertThat(tools).extracting(McpSchema.Tool::name).contains("file_read", "exec_run", "work_target_set");
            assertThat(tools).allSatisfy(t -> {
                assertThat(t.outputSchema()).containsEntry("type", "object");
                assertThat(t.annotations().readOnlyHint()).isNotNull();
            });

            Map<?, ?> target = ok(c.callTool(call("work_target_get", Map.of())));
            assertThat(target.toString()).contains("WORK");
            ok(c.callTool(call("file_write", Map.of("path", "w.txt", "content", "on work"))));
            assertThat(ok(c.callTool(call("file_read", Map.of("path", "w.txt"))))
                    .get("content")).isEqualTo("on work");

            McpSchema.CallToolResult escape = c.callTool(call("file_read", Map.of("path", "../x")));
            assertThat(escape.isError()).isTrue();
            assertThat(escape.structuredContent()).as("an error has no structured content").isNull();
            assertThat(((McpSchema.TextContent) escape.content().get(0)).text()).startsWith("path_escape: ");

            ok(c.callTool(call("work_target_set", Map.of("kind", "DAEMON", "targetName", "build-box"))));
            ok(c.callTool(call("file_write", Map.of("path", "d.txt", "content", "on the box"))));
            assertThat(Files.readString(f.boxDir.resolve("d.txt"))).isEqualTo("on the box");

            McpSchema.CallToolResult run = c.callTool(McpSchema.CallToolRequest.builder("exec_run")
                    .arguments(Map.of("command", "sleep 1; echo done", "waitMs", 30000))
                    .meta(Map.of("progressToken", "p-1")).build());
            assertThat(ok(run).get("status")).isEqualTo("exited");
            assertThat(progress).isNotEmpty().allSatisfy(p -> assertThat(p.progressToken()).isEqualTo("p-1"));
            assertThat(f.store.size()).as("one process for the one MCP session").isEqualTo(1);
            c.closeGracefully();
            f.awaitNoProcesses();
        }
    }

    @Test
    void withoutATokenOrWithAWrongOneTheClientIsRefused(@TempDir Path tmp) throws Exception {
        try (HttpFixture f = new HttpFixture(tmp)) {
            for (String token : new String[] {null, "not-a-token"}) {
                try (McpSyncClient c = client(f, token, new CopyOnWriteArrayList<>())) {
                    assertThatThrownBy(c::initialize).hasRootCauseInstanceOf(McpHttpClientTransportAuthorizationException.class);
                }
            }
            HttpResponse<String> raw = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(f.url()))
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(raw.statusCode()).isEqualTo(401);
            assertThat(raw.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
            assertThat(f.store.size()).as("no process for a refused client").isZero();
        }
    }
}
