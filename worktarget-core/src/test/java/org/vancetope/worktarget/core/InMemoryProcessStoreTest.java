package org.vancetope.worktarget.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.ProcessInfo;

class InMemoryProcessStoreTest {

    @Test
    void aProcessIsAddedByNamingItsScope() {
        InMemoryProcessStore store = new InMemoryProcessStore();
        ProcessInfo added = store.process("agent-1").tenant("acme").project("shop").session("s-42").user("alice")
                .parent("root").engineParam("k", "v").add();
        assertThat(store.find("agent-1")).contains(added);
        assertThat(added).isEqualTo(new ProcessInfo("agent-1", "root", "s-42", "acme", "shop", "alice", Map.of("k", "v")));
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.ids()).containsExactly("agent-1");
    }

    @Test
    void aProcessWithoutTenantOrProjectIsRefusedSayingWhatToCall() {
        InMemoryProcessStore store = new InMemoryProcessStore();
        assertThatThrownBy(() -> store.process("p").tenant("acme").add()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("project(..)");
        assertThat(store.size()).isZero();
    }

    @Test
    void anEngineParameterIsSetAndRemoved() {
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p").tenant("acme").project("shop").add();
        store.putEngineParam("p", "workTarget", Map.of("kind", "WORK"));
        assertThat(store.find("p").orElseThrow().engineParams()).containsEntry("workTarget", Map.of("kind", "WORK"));
        store.putEngineParam("p", "workTarget", null);
        assertThat(store.find("p").orElseThrow().engineParams()).isEmpty();
        assertThat(store.writeCount()).isEqualTo(2);
    }

    @Test
    void anEngineParameterOfAnUnknownProcessFailsSayingHowToAddIt() {
        assertThatThrownBy(() -> new InMemoryProcessStore().putEngineParam("ghost", "k", "v"))
                .isInstanceOf(NoSuchElementException.class).hasMessageContaining("'ghost'")
                .hasMessageContaining("process(id)");
    }

    @Test
    void aSnapshotDoesNotChangeWithLaterWrites() {
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p").tenant("acme").project("shop").add();
        ProcessInfo before = store.find("p").orElseThrow();
        store.putEngineParam("p", "k", "v");
        assertThat(before.engineParams()).isEmpty();
    }

    @Test
    void removeForgetsTheProcess() {
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p").tenant("acme").project("shop").add();
        assertThat(store.remove("p")).isTrue();
        assertThat(store.remove("p")).isFalse();
        assertThat(store.find("p")).isEmpty();
    }

    @Test
    void concurrentWritesOfDifferentKeysAreAllKept() throws InterruptedException {
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p").tenant("acme").project("shop").add();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int n = t;
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 500; i++) {
                    store.putEngineParam("p", "k" + n + "-" + i, i);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(store.find("p").orElseThrow().engineParams()).hasSize(2_000);
    }
}
