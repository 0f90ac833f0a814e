package org.vancetope.worktarget.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

class FakesTest {
    private static final ToolContext CTX = new ToolContext("p1", "s1", "acme", "proj", null);

    private static BackendTool blocking(String name, CountDownLatch entered, CountDownLatch release) {
        return BackendTool.of(ToolCatalog.backend(name).orElseThrow(), (p, c) -> {
            entered.countDown();
            boolean released = false;
            while (!released) {
                try {
                    released = release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    // deliberately ignores interruption: a call that does not stop when cancelled
                }
            }
            return Map.of();
        });
    }

    @Test
    void theProcessStoreRemovesAKeyWhenGivenNull() {
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p1").tenant("acme").project("proj").add();
        store.putEngineParam("p1", "k", "v");
        store.putEngineParam("p1", "k", null);
        assertThat(store.find("p1").orElseThrow().engineParams()).doesNotContainKey("k");
    }

    @Test
    void theProcessStoreRefusesUpdatesOfUnknownProcesses() {
        assertThatThrownBy(() -> new InMemoryProcessStore().putEngineParam("ghost", "k", "v"))
                .isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void theProcessStoreReturnsSnapshots() {
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p1").tenant("acme").project("proj").add();
        var before = store.find("p1").orElseThrow();
        store.putEngineParam("p1", "k", "v");
        assertThat(before.engineParams()).isEmpty();
    }

    private static final SessionKey S1 = new SessionKey("acme", "s1");

    private static Map<String, Object> call(FakePeers peers, PeerKey key, String tool, Duration timeout)
            throws ToolException {
        return peers.find(key).orElseThrow(() -> new ToolException(ErrorCode.OFFLINE, key + " is not connected"))
                .invoke(tool, Map.of(), CTX, timeout);
    }

    @Test
    void thePeersFakeFailsTeardownWhileACallIsInFlight() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        FakePeers peers = new FakePeers().client("acme", "s1", List.of(blocking("client_file_read", entered, release)));
        CompletableFuture<Map<String, Object>> running = CompletableFuture.supplyAsync(() -> {
            try {
                return call(peers, S1, "client_file_read", Duration.ofSeconds(60));
            } catch (ToolException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(peers::close).isInstanceOf(AssertionError.class).hasMessageContaining("in flight");
        release.countDown();
        running.get(10, TimeUnit.SECONDS);
    }

    @Test
    void thePeersFakeFindsNoEndpointForAPeerThatIsNotConnected() {
        try (FakePeers peers = new FakePeers()) {
            assertThat(peers.find(S1)).isEmpty();
            assertThat(peers.find(new DaemonKey("acme", "proj", "box"))).isEmpty();
            assertThat(peers.lookups()).isEqualTo(2);
        }
    }

    @Test
    void aDisconnectedPeersEndpointFailsOffline() {
        try (FakePeers peers = new FakePeers().client("acme", "s1", List.of(blocking("client_file_read",
                new CountDownLatch(1), new CountDownLatch(0))))) {
            Endpoint endpoint = peers.find(S1).orElseThrow();
            peers.disconnect(S1);
            assertThatThrownBy(() -> endpoint.invoke("client_file_read", Map.of(), CTX, Duration.ofSeconds(1)))
                    .isInstanceOf(ToolException.class)
                    .satisfies(e -> assertThat(((ToolException) e).code()).isEqualTo(ErrorCode.OFFLINE));
        }
    }

    @Test
    void thePeersFakeTimesOutAndFailsTeardownWhenTheCallIgnoresCancellation() throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        DaemonKey key = new DaemonKey("acme", "proj", "box");
        FakePeers peers = new FakePeers().daemon(key, List.of(blocking("client_exec_run", entered, release)));
        try {
            assertThatThrownBy(() -> call(peers, key, "client_exec_run", Duration.ofMillis(20)))
                    .isInstanceOf(ToolException.class)
                    .satisfies(e -> assertThat(((ToolException) e).code()).isEqualTo(ErrorCode.TIMEOUT));
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(peers::close).isInstanceOf(AssertionError.class).hasMessageContaining("in flight");
        } finally {
            release.countDown();
        }
    }

    @Test
    void thePeersFakeListsOnlyAnsweringDaemonsOfTheProject() {
        try (FakePeers peers = new FakePeers()) {
            peers.daemon(new DaemonKey("acme", "proj", "b"), List.of());
            peers.daemon(new DaemonKey("acme", "proj", "a"), List.of());
            peers.daemon(new DaemonKey("acme", "proj", "s"), List.of()).stale(new DaemonKey("acme", "proj", "s"));
            peers.daemon(new DaemonKey("acme", "other", "c"), List.of());
            peers.client("acme", "s1", List.of());
            assertThat(peers.onlineDaemons("acme", "proj")).containsExactly("a", "b");
            assertThat(peers.find(new DaemonKey("acme", "proj", "s")).orElseThrow().isStale()).isTrue();
        }
    }
}
