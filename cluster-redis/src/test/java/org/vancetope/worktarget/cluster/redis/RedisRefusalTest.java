package org.vancetope.worktarget.cluster.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.AclSetuserArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.CommandType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * A Redis that answers but refuses the node is a setting to fix, not an outage: the link does not start,
 * and says what Redis answered and what to change; one that does not answer is waited for.
 */
class RedisRefusalTest {
    private static RedisServer redis;

    @BeforeAll
    static void redis() throws Exception {
        redis = RedisServer.started();
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    /** Starts a link to {@code uri} and asserts on why it did not start. */
    private static AbstractThrowableAssert<?, ? extends Throwable> startFails(String uri) {
        RedisFleetLink link = RedisFleetLink.builder().uri(uri).nodeId("refused").presenceTtl(Duration.ofSeconds(3))
                .keyPrefix("r" + System.nanoTime() + ":").build();
        try {
            return assertThatThrownBy(() -> link.start(Fleet.listener(null))).isInstanceOf(IOException.class)
                    .hasMessageContaining("refused node 'refused'");
        } finally {
            link.close();
        }
    }

    @Test
    void aWrongPasswordStopsTheStartSayingHowToGiveThePassword() {
        startFails(redis.uri().replace("redis://", "redis://nobody" + System.nanoTime() + ":wrong@"))
                .hasMessageContaining("WRONGPASS").hasMessageContaining("redis://USER:PASSWORD@HOST:PORT");
    }

    @Test
    void aMissingPasswordStopsTheStartSayingHowToGiveThePassword() throws Exception {
        try (RedisServer guarded = RedisServer.started()) {
            RedisClient admin = RedisClient.create(guarded.uri());
            try (StatefulRedisConnection<String, String> c = admin.connect()) {
                c.sync().configSet("requirepass", "sekret-of-the-test");
            } finally {
                admin.shutdown();
            }
            startFails(guarded.uri()).hasMessageContaining("NOAUTH")
                    .hasMessageContaining("redis://:PASSWORD@HOST:PORT");
        }
    }

    @Test
    void aDatabaseTheRedisDoesNotHaveStopsTheStart() {
        startFails(redis.uri() + "/99").hasMessageContaining("DB index is out of range")
                .hasMessageContaining("0 always does");
    }

    @Test
    void aUserWithoutTheCommandsTheLinkNeedsStopsTheStartNamingThem() {
        String user = "meagre" + System.nanoTime();
        RedisClient admin = RedisClient.create(redis.uri());
        try (StatefulRedisConnection<String, String> c = admin.connect()) {
            c.sync().aclSetuser(user, AclSetuserArgs.Builder.on().addPassword("pw-" + user).allKeys().allChannels()
                    .addCommand(CommandType.HELLO)
                    .addCommand(CommandType.PING));
            try {
                startFails(redis.uri().replace("redis://", "redis://" + user + ":pw-" + user + "@"))
                        .hasMessageContaining("NOPERM").hasMessageContaining(RedisFleetLink.COMMANDS);
            } finally {
                c.sync().aclDeluser(user);
            }
        } finally {
            admin.shutdown();
        }
    }

    @Test
    void aServerThatIsNotRedisStopsTheStartNamingTheAddress() throws Exception {
        try (ServerSocket http = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread answering = new Thread(() -> {
                while (!http.isClosed()) {
                    try (Socket s = http.accept()) {
                        InputStream in = s.getInputStream();
                        in.read(new byte[1024]);
                        OutputStream out = s.getOutputStream();
                        out.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
                                .getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "not-redis");
            answering.setDaemon(true);
            answering.start();

            startFails("redis://127.0.0.1:" + http.getLocalPort()).hasMessageContaining("not in the Redis protocol")
                    .hasMessageContaining("127.0.0.1:" + http.getLocalPort());
        }
    }

    @Test
    void aRedisThatDoesNotListenYetIsWaitedForAndTheWaitSaysWhy() throws Exception {
        try (LatePort nothing = LatePort.to(redis.port())) {
            RedisFleetLink link = RedisFleetLink.builder().uri("redis://127.0.0.1:" + nothing.port()).nodeId("waiting")
                    .keyPrefix("w" + System.nanoTime() + ":").reconnectDelay(Duration.ofMillis(50)).build();
            try {
                link.start(Fleet.listener(null));

                assertThatThrownBy(link::peers).isInstanceOf(IOException.class)
                        .hasMessageContaining("Redis is unreachable").hasMessageContaining("Connection refused");
                nothing.open();
                Await.until("the link joins once Redis answers", () -> {
                    try {
                        return link.peers().isEmpty() && link.isAlive("waiting");
                    } catch (IOException e) {
                        return false;
                    }
                });
            } finally {
                link.close();
            }
        }
    }
}
