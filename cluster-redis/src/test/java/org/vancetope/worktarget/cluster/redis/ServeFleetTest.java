package org.vancetope.worktarget.cluster.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.daemon.FleetLink;
import org.vancetope.worktarget.backend.daemon.cli.Main;

/** How {@code serve --redis-uri URI --node-id ID} finds this module's link. */
class ServeFleetTest {

    @Test
    void theServiceLoaderFindsTheRedisFactoryForRedisUris() {
        FleetLink.Factory f = ServiceLoader.load(FleetLink.Factory.class).findFirst().orElseThrow();
        assertThat(f).isInstanceOf(RedisFleetLink.Factory.class);
        assertThat(f.accepts("redis://127.0.0.1:6379")).isTrue();
        assertThat(f.accepts("rediss://redis.internal:6380")).isTrue();
        assertThat(f.accepts("http://127.0.0.1:6379")).isFalse();
        try (FleetLink link = f.create("redis://127.0.0.1:6379", "node-7")) {
            assertThat(link.nodeId()).isEqualTo("node-7");
        }
    }

    @Test
    void serveExitsWithUsageWhenALiveNodeOfTheFleetHasItsNodeId(@TempDir Path dir) throws Exception {
        try (RedisServer redis = RedisServer.started();
                RedisFleetLink live = RedisFleetLink.builder().uri(redis.uri()).nodeId("node-5")
                        .presenceTtl(Duration.ofMillis(900)).build()) {
            live.start(Fleet.listener(null));
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = Main.run(new String[] {"serve", "--workspace", dir.toString(), "--tokens", tokens(dir).toString(),
                    "--port", "0", "--admin-port", "0", "--redis-uri", redis.uri(), "--node-id", "node-5"},
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            assertThat(code).isEqualTo(Main.USAGE);
            assertThat(err.toString(StandardCharsets.UTF_8))
                    .contains("Node id 'node-5' is in use by another live server node (pid "
                            + ProcessHandle.current().pid())
                    .contains("Give every node its own id (serve --node-id)")
                    .doesNotContain("--bind");
            assertThat(live.isAlive("node-5")).as("the live node keeps its id").isTrue();
        }
    }

    private static Path tokens(Path dir) throws IOException {
        return Files.writeString(dir.resolve("tokens.json"), "{\"tokens\":[{\"token\":\"token-of-eight\",\"subject\":"
                + "\"s\",\"tenant\":\"acme\",\"projects\":[\"proj\"]}]}");
    }

    @Test
    void serveRefusesAMalformedNodeIdNamingTheRule(@TempDir Path dir) throws Exception {
        Path tokens = tokens(dir);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"serve", "--workspace", dir.toString(), "--tokens", tokens.toString(),
                "--port", "0", "--redis-uri", "redis://127.0.0.1:6379", "--node-id", "no spaces"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("nodeId must be 1 to 64");
    }
}
