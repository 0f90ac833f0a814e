package org.vancetope.worktarget.cluster.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * A node's id is its own within the fleet: a second live node given the same id stays out of the fleet
 * (at start, or when it reaches Redis later) instead of receiving the first one's messages, and a new
 * run of a node that ended without closing takes its id once the old presence expires.
 */
class FleetNodeIdTest {
    private static final Duration LONG = Duration.ofMinutes(5);
    private static final DaemonKey BOX = new DaemonKey("acme", "proj", "box");
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

    /** Twenty calls from node2 to the daemon on node1 all land: a twin of node1 would answer some "not here". */
    private static void node2ReachesTheDaemonOnNode1(Fleet fleet) throws Exception {
        Await.until("node2 finds the daemon of node1", () -> fleet.sees(2, BOX));
        for (int i = 0; i < 20; i++) {
            assertThat(fleet.call(2, BOX, "client_file_read", Map.of("path", "p" + i), LONG))
                    .containsEntry("content", "box:p" + i);
        }
    }

    @Test
    void aSecondNodeWithTheIdOfALiveNodeDoesNotStartAndTheFleetKeepsRoutingToTheFirst() throws Exception {
        try (Fleet fleet = new Fleet(redis, 2, 64 * 1024)) {
            fleet.daemon(1, "box", List.of(Fleet.echoRead("box")));
            WorkTargetServer twin = Fleet.server(fleet.link("node1").build()).build();
            try {
                assertThatThrownBy(twin::start).isInstanceOf(IOException.class)
                        .hasMessageContaining("Could not join the fleet as node 'node1'")
                        .hasMessageContaining("Node id 'node1' is in use by another live server node (pid "
                                + ProcessHandle.current().pid())
                        .hasMessageContaining("serve --node-id");
            } finally {
                twin.close();
            }
            node2ReachesTheDaemonOnNode1(fleet);
        }
    }

    @Test
    void aNodeThatReachesRedisLaterStaysOutOfTheFleetWhenALiveNodeHasItsId() throws Exception {
        RedisClient admin = RedisClient.create(redis.uri());
        try (Fleet fleet = new Fleet(redis, 2, 64 * 1024);
                LatePort path = LatePort.to(redis.port());
                StatefulRedisConnection<String, String> connection = admin.connect()) {
            fleet.daemon(1, "box", List.of(Fleet.echoRead("box")));
            RedisFleetLink late = fleet.link("node1").uri("redis://127.0.0.1:" + path.port()).build();
            WorkTargetServer lateNode = Fleet.server(late).build().start();    // Redis not reachable yet: alone
            try {
                assertThatThrownBy(late::peers).isInstanceOf(IOException.class)
                        .hasMessageContaining("Redis is unreachable").hasMessageContaining("Connection refused");

                path.open();

                Await.until("the late node finds node1's id taken and stays out", () -> {
                    try {
                        late.peers();
                        return false;
                    } catch (IOException e) {
                        return e.getMessage().contains("stays out of the fleet");
                    }
                });
                assertThatThrownBy(late::peers).isInstanceOf(IOException.class)
                        .hasMessageContaining("Node id 'node1' is in use by another live server node")
                        .hasMessageContaining("serve --node-id");
                String inbox = fleet.prefix + "inbox:node1";
                assertThat(connection.sync().pubsubNumsub(inbox)).as("only node1 listens to its inbox")
                        .containsEntry(inbox, 1L);
                node2ReachesTheDaemonOnNode1(fleet);
            } finally {
                lateNode.close();
            }
        } finally {
            admin.shutdown();
        }
    }

    @Test
    void aNewRunOfANodeThatEndedWithoutClosingTakesItsIdOnceTheOldPresenceExpires() throws Exception {
        try (Fleet fleet = new Fleet(redis, 1, 64 * 1024)) {
            RedisFleetLink crashed = fleet.link("node7").build();
            crashed.start(Fleet.listener(null));
            crashed.halt();     // stops heartbeating and listening, as a killed process would
            Queue<String> got = new ConcurrentLinkedQueue<>();
            RedisFleetLink next = fleet.link("node7").build();
            try {
                next.start(Fleet.listener(got));     // waits until the old run's presence expires

                assertThat(fleet.links.get(0).isAlive("node7")).isTrue();
                assertThat(fleet.links.get(0).send("node7", "hello")).isTrue();
                Await.until("the new run receives node7's messages", () -> got.contains("hello"));
            } finally {
                next.close();
                crashed.close();
            }
        }
    }

    @Test
    void aNodeThatClosesLeavesTheIdOfAnotherRunThatHoldsIt() throws Exception {
        RedisClient admin = RedisClient.create(redis.uri());
        try (Fleet fleet = new Fleet(redis, 1, 64 * 1024);
                StatefulRedisConnection<String, String> connection = admin.connect()) {
            RedisFleetLink link = fleet.link("node8").build();
            link.start(Fleet.listener(null));
            String key = fleet.prefix + "node:node8";
            // another run took the id while this one could not reach Redis
            connection.sync().set(key, "pid 1 on elsewhere, run 0", SetArgs.Builder.px(60_000));

            link.close();

            assertThat(connection.sync().get(key)).isEqualTo("pid 1 on elsewhere, run 0");
            assertThat(fleet.links.get(0).isAlive("node8")).isTrue();
        } finally {
            admin.shutdown();
        }
    }

    @Test
    void closingANodeThatWaitsForItsIdEndsTheWaitAndTheStart() throws Exception {
        RedisClient admin = RedisClient.create(redis.uri());
        try (Fleet fleet = new Fleet(redis, 0, 64 * 1024);
                StatefulRedisConnection<String, String> connection = admin.connect()) {
            String key = fleet.prefix + "node:node9";
            // a run that ended without closing left the id, for a minute
            connection.sync().set(key, "pid 1 on elsewhere, run 0", SetArgs.Builder.px(60_000));
            RedisFleetLink waiting = fleet.link("node9").build();
            CompletableFuture<Void> start = CompletableFuture.runAsync(() -> {
                try {
                    waiting.start(Fleet.listener(null));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            // the only other client of this Redis is the test's: a connection whose last command is EVAL is the
            // start's, asking for the id
            Await.until("the start asks Redis for the id", () -> connection.sync().clientList().contains("cmd=eval"));

            waiting.close();

            assertThat(connection.sync().pttl(key)).as("closed while the old run still held the id").isPositive();
            assertThatThrownBy(start::get).isInstanceOf(ExecutionException.class).rootCause()
                    .hasMessageContaining("Redis link of node 'node9' was closed while it waited for its id");
            assertThat(connection.sync().get(key)).isEqualTo("pid 1 on elsewhere, run 0");
        } finally {
            admin.shutdown();
        }
    }
}
