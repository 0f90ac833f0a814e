package org.vancetope.worktarget.cluster.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
    void serveRefusesAMalformedNodeIdNamingTheRule(@TempDir Path dir) throws Exception {
        Path tokens = Files.writeString(dir.resolve("tokens.json"), "{\"tokens\":[{\"token\":\"token-of-eight\",\"subject\":\"s\","
                + "\"tenant\":\"acme\",\"projects\":[\"proj\"]}]}");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(new String[] {"serve", "--workspace", dir.toString(), "--tokens", tokens.toString(),
                "--port", "0", "--redis-uri", "redis://127.0.0.1:6379", "--node-id", "no spaces"},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(Main.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("nodeId must be 1 to 64");
    }
}
