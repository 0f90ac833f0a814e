package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.testfixtures.Await;

/** The calling node's cache of where peers of other nodes are: it holds presences only while they are fresh. */
class FleetRouterCacheTest {

    @Test
    void presencesOfPeersThatAreNeverCalledAgainLeaveTheCacheOnceTheyExpire() throws Exception {
        FleetRouter router = new FleetRouter(new FakeFleetLink(Duration.ofMillis(1200)), new PeerRegistry(), new Ids(),
                1 << 20);
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
