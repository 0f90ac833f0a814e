package org.vancetope.worktarget.cluster.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.backend.daemon.FleetLink;
import org.vancetope.worktarget.backend.daemon.ServerRefusedException;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.Await;

/** Three server nodes on loopback ports, one real redis-server: DAEMON and CLIENT calls across nodes. */
class FleetRoutingTest {
    private static final Duration LONG = Duration.ofMinutes(5);
    private static RedisServer redis;
    private Fleet fleet;
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @BeforeAll
    static void redis() throws Exception {
        redis = RedisServer.started();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void nodes() throws Exception {
        fleet = new Fleet(redis, 3, 64 * 1024);
    }

    @AfterEach
    void stop() {
        callers.shutdownNow();
        fleet.close();
    }

    private static DaemonKey daemon(String name) {
        return new DaemonKey("acme", "proj", name);
    }

    private void awaitSeenEverywhere(DaemonKey key) {
        for (int n = 1; n <= 3; n++) {
            int node = n;
            Await.until("node" + n + " sees " + key, () -> fleet.sees(node, key));
        }
    }

    private static ToolException failure(Future<?> f) throws Exception {
        try {
            f.get(Await.LIMIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(ToolException.class);
            return (ToolException) e.getCause();
        }
        throw new AssertionError("the call succeeded");
    }

    /** A client_file_read that signals it started and blocks until interrupted. */
    private static BackendTool blocking(CountDownLatch started, CountDownLatch interrupted) {
        return Fleet.tool("client_file_read", (p, c) -> {
            started.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.countDown();
                Thread.currentThread().interrupt();
            }
            return Map.of();
        });
    }

    @Test
    void sixtyFourConcurrentCallsFromEveryNodeReachEveryDaemon() throws Exception {
        for (int n = 1; n <= 3; n++) {
            fleet.daemon(n, "box-" + n, List.of(Fleet.echoRead("box-" + n)));
        }
        for (int n = 1; n <= 3; n++) {
            awaitSeenEverywhere(daemon("box-" + n));
        }
        List<Future<Map<String, Object>>> calls = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        for (int i = 0; i < 64; i++) {
            int from = 1 + i % 3;
            String to = "box-" + (1 + (i / 3) % 3);
            String path = "f" + i;
            expected.add(to + ":" + path);
            calls.add(callers.submit(() -> {
                go.await();
                return fleet.call(from, daemon(to), "client_file_read", Map.of("path", path), LONG);
            }));
        }
        go.countDown();
        for (int i = 0; i < 64; i++) {
            assertThat(calls.get(i).get(Await.LIMIT.toSeconds(), TimeUnit.SECONDS))
                    .containsEntry("content", expected.get(i));
        }
    }

    @Test
    void everyNodeListsTheDaemonsOfEveryNode() throws Exception {
        fleet.daemon(1, "alpha", List.of(Fleet.echoRead("alpha")));
        fleet.daemon(3, "gamma", List.of(Fleet.echoRead("gamma")));
        for (int n = 1; n <= 3; n++) {
            int node = n;
            Await.until("node" + n + " lists both daemons", () -> fleet.node(node).peers()
                    .onlineDaemons("acme", "proj").equals(List.of("alpha", "gamma")));
        }
    }

    @Test
    void theAdminListingOfEveryNodeShowsThePeersOfTheOtherNodesWithTheirNode() throws Exception {
        fleet.daemon(2, "beta", List.of(Fleet.echoRead("beta")));
        fleet.foot(3, "s-9", List.of(Fleet.echoRead("foot")));
        DaemonKey beta = daemon("beta");
        SessionKey foot = new SessionKey("acme", "s-9");
        Await.until("node1 lists the daemon of node2 and the foot of node3", () -> {
            try {
                Map<PeerKey, FleetLink.Presence> peers = fleet.node(1).fleetPeers();
                return peers.containsKey(beta) && peers.containsKey(foot);
            } catch (java.io.IOException e) {
                return false;
            }
        });
        Map<PeerKey, FleetLink.Presence> seenFrom1 = fleet.node(1).fleetPeers();
        assertThat(seenFrom1.get(beta).node()).isEqualTo("node2");
        assertThat(seenFrom1.get(foot).node()).isEqualTo("node3");
        assertThat(seenFrom1.get(beta).connectionId()).isEqualTo(fleet.node(2).connections().get(0).connectionId());
        Map<PeerKey, FleetLink.Presence> seenFrom2 = fleet.node(2).fleetPeers();
        assertThat(seenFrom2).as("a node lists its own peers among its connections, not as fleet peers")
                .containsOnlyKeys(foot);
    }

    @Test
    void aSingleNodeHasNoFleetPeers() throws Exception {
        try (WorkTargetServer single = WorkTargetServer.builder().authenticator(
                org.vancetope.worktarget.backend.daemon.TokenAuthenticator.builder().build()).build().start()) {
            assertThat(single.fleetPeers()).isEmpty();
        }
    }

    @Test
    void withRedisGoneTheFleetListingFailsSayingSo() throws Exception {
        fleet.daemon(2, "box", List.of(Fleet.echoRead("box")));
        awaitSeenEverywhere(daemon("box"));
        redis.stop();
        try {
            assertThatThrownBy(() -> fleet.node(1).fleetPeers()).isInstanceOf(java.io.IOException.class)
                    .hasMessageContaining("Redis is unreachable");
        } finally {
            redis.start();
        }
    }

    @Test
    void aFootsClientCallRunsFromAnotherNode() throws Exception {
        fleet.foot(2, "s-1", List.of(Fleet.echoRead("foot")));
        SessionKey foot = new SessionKey("acme", "s-1");
        Await.until("node1 sees the foot", () -> fleet.sees(1, foot));
        assertThat(fleet.call(1, foot, "client_file_read", Map.of("path", "a.txt"), LONG))
                .containsEntry("content", "foot:a.txt");
    }

    @Test
    void aForwardedCallThatTimesOutIsCancelledOnTheDaemonAndItsLateResultIsDropped() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        fleet.daemon(2, "slow", List.of(blocking(started, interrupted),
                Fleet.tool("client_file_stat", (p, c) -> Map.of("ok", true))));
        awaitSeenEverywhere(daemon("slow"));
        assertThatThrownBy(() -> fleet.call(1, daemon("slow"), "client_file_read", Map.of("path", "x"),
                Duration.ofMillis(700)))
                .isInstanceOf(ToolException.class).extracting(e -> ((ToolException) e).code())
                .isEqualTo(ErrorCode.TIMEOUT);
        assertThat(interrupted.await(Await.LIMIT.toSeconds(), TimeUnit.SECONDS))
                .as("the daemon's call was cancelled").isTrue();
        assertThat(fleet.call(1, daemon("slow"), "client_file_stat", Map.of("path", "x"), LONG))
                .containsEntry("ok", true);
    }

    @Test
    void aForwardedInvocationLargerThanTheFrameLimitFailsSizeLimitBeforeAnythingIsSent() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        fleet.daemon(2, "box", List.of(Fleet.tool("client_file_write", (p, c) -> {
            ran.countDown();
            return Map.of();
        })));
        awaitSeenEverywhere(daemon("box"));
        String big = "x".repeat(100 * 1024);
        assertThatThrownBy(() -> fleet.call(1, daemon("box"), "client_file_write",
                Map.of("path", "a", "content", big), LONG))
                .isInstanceOf(ToolException.class).hasMessageContaining("Nothing ran")
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.SIZE_LIMIT);
        assertThat(ran.getCount()).isEqualTo(1);
    }

    @Test
    void aDaemonReconnectingToAnotherNodeSupersedesItsOldConnectionAndItsPendingCallsFailAtOnce()
            throws Exception {
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch interrupted = new CountDownLatch(2);
        WorkTargetClient first = fleet.daemon(1, "box", List.of(blocking(started, interrupted)));
        awaitSeenEverywhere(daemon("box"));
        Future<Map<String, Object>> local = callers.submit(() ->
                fleet.call(1, daemon("box"), "client_file_read", Map.of("path", "a"), LONG));
        Future<Map<String, Object>> forwarded = callers.submit(() ->
                fleet.call(2, daemon("box"), "client_file_read", Map.of("path", "b"), LONG));
        assertThat(started.await(Await.LIMIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        fleet.daemon(3, "box", List.of(Fleet.echoRead("second")));

        assertThat(failure(local).code()).isEqualTo(ErrorCode.SUPERSEDED);
        assertThat(failure(forwarded).code()).isEqualTo(ErrorCode.SUPERSEDED);
        assertThatThrownBy(() -> first.terminated().get(Await.LIMIT.toSeconds(), TimeUnit.SECONDS)).cause()
                .isInstanceOf(ServerRefusedException.class)
                .satisfies(e -> assertThat(((ServerRefusedException) e).status()).isEqualTo(4409));
        for (int n = 1; n <= 3; n++) {
            assertThat(fleet.call(n, daemon("box"), "client_file_read", Map.of("path", "x"), LONG))
                    .containsEntry("content", "second:x");
        }
    }

    /** What client_file_read of "x" on a peer answers from a node, or null when the call failed. */
    private Object contentOrNull(int node, PeerKey key) {
        try {
            return fleet.call(node, key, "client_file_read", Map.of("path", "x"), Duration.ofSeconds(10)).get("content");
        } catch (ToolException e) {
            return null;
        }
    }

    @Test
    void aFootOfAnotherSubjectOnAnotherNodeIsRefusedAndTheSessionKeepsItsFoot() throws Exception {
        WorkTargetClient alice = fleet.foot(2, "s-1", List.of(Fleet.echoRead("alice")));
        SessionKey session = new SessionKey("acme", "s-1");
        for (int n = 1; n <= 3; n++) {
            int node = n;
            Await.until("node" + n + " sees the foot", () -> fleet.sees(node, session));
        }

        WorkTargetClient intruder = fleet.unstartedFoot(3, Fleet.OTHER_FOOT_TOKEN, "s-1",
                List.of(Fleet.echoRead("mallory")));
        intruder.start();

        assertThatThrownBy(() -> intruder.terminated().get(Await.LIMIT.toSeconds(), TimeUnit.SECONDS)).cause()
                .isInstanceOf(ServerRefusedException.class)
                .satisfies(e -> assertThat(((ServerRefusedException) e).status()).isEqualTo(4403))
                .hasMessageContaining("another token's subject");
        assertThat(alice.terminated()).isNotDone();
        for (int n = 1; n <= 3; n++) {
            int node = n;
            Await.until("node" + n + " routes the session to its own foot",
                    () -> "alice:x".equals(contentOrNull(node, session)));
        }
        assertThat(alice.terminated()).isNotDone();
    }

    @Test
    void aCallRightAfterTheDaemonMovedToAnotherNodeLandsOnTheNewNodeThoughTheCallerCachedTheOldOne()
            throws Exception {
        WorkTargetClient first = fleet.daemon(2, "box", List.of(Fleet.echoRead("first")));
        awaitSeenEverywhere(daemon("box"));
        assertThat(fleet.call(1, daemon("box"), "client_file_read", Map.of("path", "a"), LONG))
                .containsEntry("content", "first:a");     // node1 now caches "box is on node2"

        fleet.daemon(3, "box", List.of(Fleet.echoRead("second")));
        assertThatThrownBy(() -> first.terminated().get(Await.LIMIT.toSeconds(), TimeUnit.SECONDS)).cause()
                .isInstanceOf(ServerRefusedException.class);

        // node2 answers "not here" to node1's cached route; node1 looks up afresh and retries once
        assertThat(fleet.call(1, daemon("box"), "client_file_read", Map.of("path", "b"), LONG))
                .containsEntry("content", "second:b");
    }

    @Test
    void aCallToADaemonThatLeftItsNodeFailsOfflineAndDidNotRun() throws Exception {
        WorkTargetClient box = fleet.daemon(2, "box", List.of(Fleet.echoRead("box")));
        awaitSeenEverywhere(daemon("box"));
        Endpoint cached = fleet.node(1).peers().find(daemon("box")).orElseThrow();

        box.close();
        Await.until("node2 no longer holds the daemon", () -> fleet.node(2).connections().isEmpty());

        assertThatThrownBy(() -> cached.invoke("client_file_read", Map.of("path", "x"), Fleet.ctx(), LONG))
                .isInstanceOf(ToolException.class).hasMessageContaining("did not run")
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.OFFLINE);
    }

    @Test
    void callsWaitingForANodeThatDiesFailOfflineWithinThePresenceBoundNotTheirTimeout() throws Exception {
        CountDownLatch started = new CountDownLatch(3);
        fleet.daemon(2, "box", List.of(blocking(started, new CountDownLatch(3))));
        awaitSeenEverywhere(daemon("box"));
        List<Future<Map<String, Object>>> calls = new ArrayList<>();
        for (int from : new int[] {1, 3, 1}) {
            calls.add(callers.submit(() -> fleet.call(from, daemon("box"), "client_file_read", Map.of("path", "a"),
                    LONG)));
        }
        assertThat(started.await(Await.LIMIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

        fleet.links.get(1).halt();     // node2 stops heartbeating and listening, as a crashed node would

        long t0 = System.nanoTime();
        for (Future<Map<String, Object>> f : calls) {
            ToolException e = failure(f);       // within Await.LIMIT (30 s), far below the 5-minute call timeout
            assertThat(e.code()).isEqualTo(ErrorCode.OFFLINE);
            assertThat(e.getMessage()).contains("node2");
        }
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(LONG);
        Await.until("node1 no longer finds the daemon", () -> !fleet.sees(1, daemon("box")));
    }

    @Test
    void withRedisGoneRemoteCallsFailClearlyAndLocalCallsKeepWorkingAndPresenceReturnsWithRedis()
            throws Exception {
        fleet.daemon(2, "box", List.of(Fleet.echoRead("box")));
        awaitSeenEverywhere(daemon("box"));
        redis.stop();
        try {
            assertThatThrownBy(() -> fleet.call(1, daemon("box"), "client_file_read", Map.of("path", "x"), LONG))
                    .isInstanceOf(ToolException.class).hasMessageContaining("Redis")
                    .hasMessageContaining("unreachable")
                    .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.OFFLINE);
            assertThat(fleet.call(2, daemon("box"), "client_file_read", Map.of("path", "x"), LONG))
                    .containsEntry("content", "box:x");
        } finally {
            redis.start();      // empty: no persistence
        }
        Await.until("node1 reaches the daemon on node2 again", () -> {
            try {
                return fleet.call(1, daemon("box"), "client_file_read", Map.of("path", "y"), LONG)
                        .get("content").equals("box:y");
            } catch (ToolException e) {
                return false;
            }
        });
    }

    /** A dispatcher on a node with process p-7 of session s-7 (user alice), as serve's admin API builds one. */
    private WorkTargetDispatcher dispatcherOn(int n) {
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p-7").tenant("acme").project("proj").session("s-7").user("alice").add();
        return WorkTargetDispatcher.builder().processStore(store).peers(fleet.node(n).peers()).build();
    }

    /** The result's fields are the ones work_target_get's output schema declares. */
    @SuppressWarnings("unchecked")
    private static void assertDeclared(Map<String, Object> result) {
        Map<String, Object> schema = ToolCatalog.metaTools().stream().filter(w -> w.name().equals("work_target_get"))
                .findFirst().orElseThrow().outputSchema();
        Map<String, Object> properties = (Map<String, Object>) schema.get("properties");
        assertThat(properties.keySet()).containsAll(result.keySet());
        assertThat((List<String>) schema.get("required")).doesNotContain("clientBoundUnknown");
        assertThat(properties.get("clientBoundUnknown")).isEqualTo(Map.of("type", "string"));
    }

    @Test
    void withRedisGoneWorkTargetGetSaysItCannotTellWhetherTheClientIsBoundInsteadOfClaimingIt() throws Exception {
        WorkTargetDispatcher node1 = dispatcherOn(1);
        Map<String, Object> before = node1.invoke("p-7", "work_target_get", Map.of());
        assertThat(before).containsEntry("clientBound", false).doesNotContainKey("clientBoundUnknown");
        redis.stop();
        Map<String, Object> during;
        try {
            during = node1.invoke("p-7", "work_target_get", Map.of());
        } finally {
            redis.start();
        }
        assertThat(during).as("no foot of s-7 exists anywhere; the node cannot know that")
                .containsEntry("clientBound", false);
        assertThat((String) during.get("clientBoundUnknown")).contains("cannot tell", "session 's-7'", "Redis",
                "unreachable", "node1");
        assertDeclared(during);
    }

    @Test
    void workTargetGetReportsAFootConnectedToAnotherNodeAsBound() throws Exception {
        fleet.foot(2, "s-7", List.of(Fleet.echoRead("foot")));
        Await.until("node1 sees the foot", () -> fleet.sees(1, new SessionKey("acme", "s-7")));
        Map<String, Object> r = dispatcherOn(1).invoke("p-7", "work_target_get", Map.of());
        assertThat(r).containsEntry("clientBound", true).doesNotContainKey("clientBoundUnknown");
        assertDeclared(r);
    }

    /**
     * Daemons box-1, box-2 and box-3 on nodes 1–3, the foot of s-1 on node 3 and the foot of s-2 on node 2,
     * all seen by node 1; each records the process ids it is told ended, under its name ("box-1", "foot s-1", …).
     */
    private Map<String, ConcurrentLinkedQueue<String>> peersHearingProcessEnds() throws Exception {
        Map<String, ConcurrentLinkedQueue<String>> told = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.function.Function<String, java.util.function.Consumer<ToolContext>> hook = who -> ctx ->
                told.computeIfAbsent(who, k -> new ConcurrentLinkedQueue<>()).add(ctx.processId());
        for (int n = 1; n <= 3; n++) {
            fleet.daemon(n, "box-" + n, List.of(Fleet.echoRead("box-" + n)), hook.apply("box-" + n));
        }
        fleet.foot(3, "s-1", List.of(Fleet.echoRead("foot")), hook.apply("foot s-1"));
        fleet.foot(2, "s-2", List.of(Fleet.echoRead("other")), hook.apply("foot s-2"));
        for (int n = 1; n <= 3; n++) {
            awaitSeenEverywhere(daemon("box-" + n));
        }
        Await.until("node1 sees both foots", () -> fleet.sees(1, new SessionKey("acme", "s-1"))
                && fleet.sees(1, new SessionKey("acme", "s-2")));
        return told;
    }

    /** A call of a process from node 1 to a peer on another node: the end of such a process concerns the fleet. */
    private void callAs(ToolContext process, PeerKey peer) throws ToolException {
        fleet.node(1).peers().find(peer).orElseThrow().invoke("client_file_read", Map.of("path", "x"), process, LONG);
    }

    @Test
    void processEndReachesThePeersOfTheProcessOnEveryNodeAndNoOtherFoot() throws Exception {
        Map<String, ConcurrentLinkedQueue<String>> told = peersHearingProcessEnds();
        callAs(Fleet.ctx(), daemon("box-2"));
        ToolContext proc2 = new ToolContext("proc-2", "s-2", "acme", "proj", "alice");
        callAs(proc2, new SessionKey("acme", "s-2"));

        fleet.node(1).peers().processEnded(Fleet.ctx());       // proc-1 of session s-1, as the dispatcher ends it
        for (String who : List.of("box-1", "box-2", "box-3", "foot s-1")) {
            Await.until(who + " is told proc-1 ended", () -> told.getOrDefault(who, new ConcurrentLinkedQueue<>())
                    .contains("proc-1"));
        }
        // then a process of session s-2: its foot hears of that one only (node2's messages arrive in order)
        fleet.node(1).peers().processEnded(proc2);
        Await.until("the foot of s-2 is told proc-2 ended", () -> told.containsKey("foot s-2")
                && told.get("foot s-2").contains("proc-2"));
        assertThat(told.get("foot s-2")).containsExactly("proc-2");
        assertThat(told.get("foot s-1")).containsExactly("proc-1");
    }

    @Test
    void theEndOfAProcessThatCalledNoPeerOnAnotherNodeIsNotSentToTheFleet() throws Exception {
        Map<String, ConcurrentLinkedQueue<String>> told = peersHearingProcessEnds();
        ToolContext local = new ToolContext("proc-9", "s-1", "acme", "proj", "alice");
        callAs(local, daemon("box-1"));         // a peer of its own node only
        callAs(Fleet.ctx(), daemon("box-2"));

        fleet.node(1).peers().processEnded(local);
        fleet.node(1).peers().processEnded(Fleet.ctx());     // sent after proc-9's end would have been

        for (String who : List.of("box-2", "box-3", "foot s-1")) {
            Await.until(who + " is told proc-1 ended", () -> told.containsKey(who) && told.get(who).contains("proc-1"));
            assertThat(told.get(who)).as(who).doesNotContain("proc-9");
        }
        assertThat(told.get("box-1")).as("node 1 tells its own peers of every end").contains("proc-9", "proc-1");
    }

    @Test
    void aProcessEndDuringARedisOutageReachesThePeersOnTheOtherNodesOnceRedisIsBack() throws Exception {
        Map<String, ConcurrentLinkedQueue<String>> told = peersHearingProcessEnds();
        callAs(Fleet.ctx(), daemon("box-2"));
        redis.stop();
        try {
            fleet.node(1).peers().processEnded(Fleet.ctx());      // proc-1 of session s-1, with Redis gone
            Await.until("box-1, on the ending node, is told at once", () -> told.containsKey("box-1"));
        } finally {
            redis.start();      // empty: the nodes write their presence again with their next heartbeat
        }
        for (String who : List.of("box-2", "box-3", "foot s-1")) {
            Await.until(who + " is told proc-1 ended once Redis is back", () -> told.containsKey(who)
                    && told.get(who).contains("proc-1"));
        }
        assertThat(told.get("box-1")).containsExactly("proc-1");
        assertThat(told).as("the foot of another session is not told").doesNotContainKey("foot s-2");
    }

    @Test
    void aNodeStartsWhileRedisIsDownServesItsOwnPeersAndJoinsTheFleetWhenRedisComesUp() throws Exception {
        RedisServer late = RedisServer.notStarted();
        try (Fleet early = new Fleet(late, 2, 64 * 1024)) {
            early.daemon(1, "box", List.of(Fleet.echoRead("box")));
            assertThat(early.call(1, daemon("box"), "client_file_read", Map.of("path", "a"), LONG))
                    .as("a local call works without Redis").containsEntry("content", "box:a");
            assertThatThrownBy(() -> early.node(1).fleetPeers()).isInstanceOf(java.io.IOException.class)
                    .hasMessageContaining("Redis is unreachable").hasMessageContaining("joins the fleet when Redis "
                            + "answers");
            assertThatThrownBy(() -> early.call(2, daemon("box"), "client_file_read", Map.of("path", "b"), LONG))
                    .isInstanceOf(ToolException.class).hasMessageContaining("unreachable")
                    .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.OFFLINE);

            late.start();

            Await.until("node2 finds the daemon of node1 in Redis", () -> {
                try {
                    return early.node(2).fleetPeers().containsKey(daemon("box"));
                } catch (java.io.IOException e) {
                    return false;
                }
            });
            assertThat(early.call(2, daemon("box"), "client_file_read", Map.of("path", "c"), LONG))
                    .containsEntry("content", "box:c");
        } finally {
            late.close();
        }
    }
}
