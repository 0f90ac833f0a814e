package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.backend.daemon.FleetLink;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.testfixtures.Await;

/** The calling node's cache of where peers of other nodes are: it holds presences only while they are fresh. */
class FleetRouterCacheTest {

    /** A store in memory where every peer asked for is connected to node "other", which is alive. */
    private static final class EverywhereElsewhere implements FleetLink {
        @Override
        public String nodeId() {
            return "self";
        }

        @Override
        public Duration presenceTtl() {
            return Duration.ofMillis(1200);     // cached for 200 ms, checked every 300 ms
        }

        @Override
        public void start(Listener listener) {
        }

        @Override
        public Optional<Presence> claim(PeerKey key, String connectionId, String manifest) {
            return Optional.empty();
        }

        @Override
        public void release(PeerKey key, String connectionId) {
        }

        @Override
        public Optional<Presence> locate(PeerKey key) {
            return Optional.of(new Presence("other", "c-1", ""));
        }

        @Override
        public List<String> daemons(String tenant, String project) {
            return List.of();
        }

        @Override
        public Map<PeerKey, Presence> peers() {
            return Map.of();
        }

        @Override
        public boolean send(String node, String message) {
            return true;
        }

        @Override
        public boolean isAlive(String node) {
            return true;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void presencesOfPeersThatAreNeverCalledAgainLeaveTheCacheOnceTheyExpire() throws Exception {
        FleetRouter router = new FleetRouter(new EverywhereElsewhere(), new PeerRegistry(), new Ids(), 1 << 20);
        try {
            router.start();
            for (int i = 0; i < 1000; i++) {
                assertThat(router.find(new SessionKey("acme", "s-" + i))).isPresent();
            }
            long before = System.nanoTime();
            assertThat(router.find(new SessionKey("acme", "last"))).isPresent();
            int cached = router.cachedPresences();
            if (System.nanoTime() - before < FleetRouter.cacheTtl(Duration.ofMillis(1200)).toNanos()) {
                assertThat(cached).as("a lookup is cached while it is fresh").isPositive();
            }

            Await.until("the expired presences are dropped", () -> router.cachedPresences() == 0);
        } finally {
            router.close();
        }
    }
}
