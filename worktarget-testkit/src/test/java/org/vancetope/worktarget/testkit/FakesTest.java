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
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.DaemonStatus;
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
        store.add("p1", null, null, "acme", "proj", null);
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
        store.add("p1", null, null, "acme", "proj", null);
        var before = store.find("p1").orElseThrow();
        store.putEngineParam("p1", "k", "v");
        assertThat(before.engineParams()).isEmpty();
    }

    @Test
    void theClientFakeFailsTeardownWhileACallIsInFlight() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        FakeClientConnectivity clients = new FakeClientConnectivity()
                .bind("acme", "s1", List.of(blocking("client_file_read", entered, release)));
        CompletableFuture<Map<String, Object>> call = CompletableFuture.supplyAsync(() -> {
            try {
                return clients.invoke("acme", "s1", "client_file_read", Map.of(), CTX, Duration.ofSeconds(5));
            } catch (ToolException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(clients::assertNoCallsInFlight).isInstanceOf(AssertionError.class)
                .hasMessageContaining("in flight");
        release.countDown();
        call.get(10, TimeUnit.SECONDS);
        clients.assertNoCallsInFlight();
    }

    @Test
    void theClientFakeFailsOfflineForAnUnboundSession() {
        FakeClientConnectivity clients = new FakeClientConnectivity();
        assertThatThrownBy(() -> clients.invoke("acme", "s1", "client_file_read", Map.of(), CTX, Duration.ofSeconds(1)))
                .isInstanceOf(ToolException.class)
                .satisfies(e -> assertThat(((ToolException) e).code()).isEqualTo(ErrorCode.OFFLINE));
    }

    @Test
    void theDaemonFakeTimesOutAndFailsTeardownWhenTheCallIgnoresCancellation() throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        DaemonKey key = new DaemonKey("acme", "proj", "box");
        FakeDaemonInvoker daemons = new FakeDaemonInvoker()
                .register(key, DaemonStatus.State.ONLINE, List.of(blocking("client_exec_run", entered, release)));
        try {
            assertThatThrownBy(() -> daemons.invoke(key, "client_exec_run", Map.of(), CTX, Duration.ofMillis(20)))
                    .isInstanceOf(ToolException.class)
                    .satisfies(e -> assertThat(((ToolException) e).code()).isEqualTo(ErrorCode.TIMEOUT));
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(daemons::close).isInstanceOf(AssertionError.class).hasMessageContaining("in flight");
        } finally {
            release.countDown();
        }
    }

    @Test
    void theDaemonFakeListsOnlyOnlineDaemonsOfTheProject() {
        try (FakeDaemonInvoker daemons = new FakeDaemonInvoker()) {
            daemons.register(new DaemonKey("acme", "proj", "b"), DaemonStatus.State.ONLINE, List.of());
            daemons.register(new DaemonKey("acme", "proj", "a"), DaemonStatus.State.ONLINE, List.of());
            daemons.register(new DaemonKey("acme", "proj", "s"), DaemonStatus.State.STALE, List.of());
            daemons.register(new DaemonKey("acme", "other", "c"), DaemonStatus.State.ONLINE, List.of());
            assertThat(daemons.onlineDaemons("acme", "proj")).containsExactly("a", "b");
            assertThat(daemons.status(new DaemonKey("acme", "proj", "zzz"))).isEqualTo(DaemonStatus.OFFLINE);
        }
    }
}
