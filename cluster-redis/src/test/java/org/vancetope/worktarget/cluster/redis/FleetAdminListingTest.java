package org.vancetope.worktarget.cluster.redis;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * The admin HTTP API of a real {@code serve --redis-uri --node-id} (node1, a child JVM on this test's
 * class path) in a fleet with a second node: {@code GET /admin/v1/connections} lists the other node's
 * peers, and says when Redis is gone.
 */
class FleetAdminListingTest {
    private static final String DAEMON_TOKEN = "daemon-token-acme-proj";
    private static final String ADMIN_TOKEN = "admin-token-of-the-fleet-test";
    private final List<AutoCloseable> open = new ArrayList<>();
    private RedisServer redis;
    private Process serve;
    private Path serveLog;
    private int servePort;
    private int adminPort;

    @BeforeEach
    void fleet(@TempDir Path dir) throws Exception {
        redis = RedisServer.started();
        open.add(redis);
        Path workspace = Files.createDirectories(dir.resolve("ws"));
        Path tokens = Files.writeString(dir.resolve("tokens.json"), "{\"tokens\":[{\"token\":\"" + DAEMON_TOKEN
                + "\",\"subject\":\"box\",\"tenant\":\"acme\",\"projects\":[\"proj\"]}]}");
        serveLog = dir.resolve("serve.log");
        serve = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "org.vancetope.worktarget.backend.daemon.cli.Main",
                "serve", "--workspace", workspace.toString(), "--tokens", tokens.toString(), "--port", "0",
                "--admin-port", "0", "--admin-token", ADMIN_TOKEN, "--redis-uri", redis.uri(), "--node-id", "node1"))
                .redirectErrorStream(true).redirectOutput(serveLog.toFile()).start();
        open.add(0, () -> {
            serve.destroy();        // SIGTERM: serve's shutdown hook closes it
            if (!serve.waitFor(Await.LIMIT.toSeconds(), TimeUnit.SECONDS)) {
                serve.destroyForcibly();
            }
        });
        servePort = Integer.parseInt(awaitLog("listening on ws://127\\.0\\.0\\.1:(\\d+)/worktarget/v1"));
        adminPort = Integer.parseInt(awaitLog("Admin API on http://127\\.0\\.0\\.1:(\\d+)/"));
        WorkTargetServer node2 = WorkTargetServer.builder()
                .authenticator(TokenAuthenticator.builder()
                        .token(DAEMON_TOKEN, new AuthPrincipal("box", "acme", Set.of("proj"), null)).build())
                .fleet(RedisFleetLink.builder().uri(redis.uri()).nodeId("node2").presenceTtl(Duration.ofSeconds(3))
                        .reconnectDelay(Duration.ofMillis(100)).build())
                .build().start();
        open.add(0, node2);
        daemon(servePort, "box-1");
        daemon(node2.port(), "box-2");
    }

    @AfterEach
    void stop() {
        for (AutoCloseable c : open) {
            try {
                c.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** The first group of the pattern in serve's log, once it is there. */
    private String awaitLog(String regex) {
        Pattern p = Pattern.compile(regex);
        String[] found = new String[1];
        Await.until("serve logs " + regex, () -> {
            assertThat(serve.isAlive() || found[0] != null).as("serve exited: " + read(serveLog)).isTrue();
            Matcher m = p.matcher(read(serveLog));
            if (m.find()) {
                found[0] = m.group(1);
            }
            return found[0] != null;
        });
        return found[0];
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return "";
        }
    }

    private void daemon(int port, String name) throws InterruptedException {
        BackendTool read = BackendTool.of(ToolCatalog.backend("client_file_read").orElseThrow(),
                (p, c) -> Map.of("content", name));
        WorkTargetClient c = WorkTargetClient.builder()
                .uri(URI.create("ws://127.0.0.1:" + port + "/worktarget/v1")).token(DAEMON_TOKEN)
                .daemon("acme", "proj", name).tools(List.of(read)).build();
        open.add(0, c);
        c.start();
        assertThat(c.awaitConnected(Duration.ofSeconds(20))).as(name + " connected").isTrue();
    }

    private JsonNode connections() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + adminPort + "/admin/v1/connections"))
                .header("Authorization", "Bearer " + ADMIN_TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return new ObjectMapper().readTree(r.body());
    }

    private boolean lists(String daemon) {
        try {
            return daemonNamed(connections(), daemon) != null;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode daemonNamed(JsonNode listing, String name) {
        for (JsonNode d : listing.path("daemons")) {
            if (d.path("name").asText().equals(name)) {
                return d;
            }
        }
        return null;
    }

    @Test
    void theAdminListingOfServeShowsTheDaemonOfTheOtherNodeWithItsNodeAndTools() throws Exception {
        Await.until("node1's admin API lists box-2", () -> lists("box-2"));
        JsonNode listing = connections();
        JsonNode remote = daemonNamed(listing, "box-2");
        assertThat(remote.path("node").asText()).isEqualTo("node2");
        assertThat(remote.path("project").asText()).isEqualTo("proj");
        assertThat(remote.path("tools").toString()).contains("client_file_read");
        JsonNode local = daemonNamed(listing, "box-1");
        assertThat(local).as("node1's own daemon").isNotNull();
        assertThat(local.has("node")).as("a node's own connection has no node field").isFalse();
        assertThat(listing.has("fleetUnreachable")).isFalse();
    }

    @Test
    void withRedisGoneTheAdminListingShowsTheNodesOwnConnectionsAndSaysTheFleetIsUnreachable() throws Exception {
        Await.until("node1's admin API lists box-2", () -> lists("box-2"));
        redis.stop();
        JsonNode listing;
        try {
            listing = connections();
        } finally {
            redis.start();
        }
        assertThat(daemonNamed(listing, "box-1")).as("node1's own daemon").isNotNull();
        assertThat(daemonNamed(listing, "box-2")).as("the other node's daemon cannot be listed").isNull();
        assertThat(listing.path("fleetUnreachable").asText()).contains("Only this node's connections are listed",
                "Redis is unreachable");
    }
}
