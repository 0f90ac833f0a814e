package org.vancetope.worktarget.testkit.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetService;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.testkit.FakePeers;
import org.vancetope.worktarget.core.InMemoryProcessStore;

class WorkTargetServiceTest {
    private InMemoryProcessStore store;
    private FakePeers clients;
    private WorkTargetService service;

    @BeforeEach
    void setUp() {
        store = new InMemoryProcessStore();
        clients = new FakePeers();
        service = WorkTargetService.builder().processStore(store).peers(clients).build();
        store.process("parent").tenant("acme").project("proj").session("s1").user("alice").add();
    }

    @AfterEach
    void noLeaks() {
        clients.close();
    }

    private void storeRaw(String processId, Object raw) {
        store.putEngineParam(processId, WorkTarget.ENGINE_PARAM_KEY, raw);
    }

    @Test
    void currentReturnsTheStoredTarget() {
        storeRaw("parent", Map.of("kind", "DAEMON", "targetName", "box"));
        assertThat(service.current("parent")).isEqualTo(WorkTarget.daemon("box"));
    }

    @Test
    void currentFallsBackToTheDefaultWhenTheStoredEntryIsMalformed() {
        storeRaw("parent", Map.of("kind", "SPACESHIP"));
        assertThat(service.current("parent")).isEqualTo(WorkTarget.WORK_TEMP);
    }

    @Test
    void currentFallsBackToTheDefaultWhenTheStoredEntryIsNotAnObject() {
        storeRaw("parent", "WORK");
        assertThat(service.current("parent")).isEqualTo(WorkTarget.WORK_TEMP);
    }

    @Test
    void currentOfAnUnknownProcessFails() {
        assertThatThrownBy(() -> service.current("nope")).isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void theDefaultIsClientWhenAClientIsBoundToTheSession() {
        clients.client("acme", "s1", List.of());
        assertThat(service.current("parent")).isEqualTo(WorkTarget.CLIENT);
    }

    @Test
    void theDefaultIsWorkTempWhenNoClientIsBound() {
        clients.client("acme", "other-session", List.of());
        assertThat(service.current("parent")).isEqualTo(WorkTarget.WORK_TEMP);
    }

    @Test
    void theDefaultIsWorkTempForAProcessWithoutSession() {
        store.process("lonely").tenant("acme").project("proj").add();
        clients.client("acme", "s1", List.of());
        assertThat(service.current("lonely")).isEqualTo(WorkTarget.WORK_TEMP);
    }

    @Test
    void theDefaultIsWorkTempWithoutPeers() {
        WorkTargetService noClients = WorkTargetService.builder().processStore(store).build();
        assertThat(noClients.current("parent")).isEqualTo(WorkTarget.WORK_TEMP);
    }

    @Test
    void aClientBoundInAnotherTenantDoesNotCount() {
        clients.client("other-tenant", "s1", List.of());
        assertThat(service.current("parent")).isEqualTo(WorkTarget.WORK_TEMP);
    }

    @Test
    void setPersistsTheTargetUnderEngineParamsWorkTarget() {
        service.set("parent", WorkTarget.work("src"));
        assertThat(store.find("parent").orElseThrow().engineParams())
                .containsEntry("workTarget", Map.of("kind", "WORK", "targetName", "src"));
    }

    @Test
    void aTargetSetIsReadBackWithoutParsingItAgain() {
        WorkTarget box = WorkTarget.daemon("box");
        service.set("parent", box);
        assertThat(service.stored(store.find("parent").orElseThrow())).containsSame(box);
    }

    @Test
    void setReturnsThePreviousTarget() {
        assertThat(service.set("parent", WorkTarget.work("src"))).isEqualTo(WorkTarget.WORK_TEMP);
        assertThat(service.set("parent", WorkTarget.daemon("box"))).isEqualTo(WorkTarget.work("src"));
    }

    @Test
    void setOnAnUnknownProcessFails() {
        assertThatThrownBy(() -> service.set("nope", WorkTarget.CLIENT)).isInstanceOf(NoSuchElementException.class);
    }

    @Test
    void setIsAFieldLevelUpdateThatLeavesOtherEngineParamsAlone() {
        store.putEngineParam("parent", "model", "gpt");
        service.set("parent", WorkTarget.CLIENT);
        assertThat(store.find("parent").orElseThrow().engineParams()).containsEntry("model", "gpt");
    }

    @Test
    void concurrentSetsAndWritesOfOtherKeysNeverLoseEachOthersUpdates() throws Exception {
        int threads = 16;
        int perThread = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        List<WorkTarget> candidates = List.of(WorkTarget.CLIENT, WorkTarget.work("a"), WorkTarget.daemon("b"));
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        if (thread % 2 == 0) {
                            service.set("parent", candidates.get((thread + i) % candidates.size()));
                        } else {
                            store.putEngineParam("parent", "key-" + thread + "-" + i, i);
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Map<String, Object> params = store.find("parent").orElseThrow().engineParams();
        for (int t = 1; t < threads; t += 2) {
            for (int i = 0; i < perThread; i++) {
                assertThat(params).containsEntry("key-" + t + "-" + i, i);
            }
        }
        assertThat(service.stored(store.find("parent").orElseThrow())).isPresent()
                .get().isIn(candidates);
        assertThat(store.writeCount()).isEqualTo((long) threads * perThread);
    }

    @Test
    void spawnTakesTheCallersParameterFirst() {
        storeRaw("parent", WorkTarget.daemon("box").toMap());
        Map<String, Object> child = service.resolveSpawnParams(
                Map.of("workTarget", Map.of("kind", "WORK", "dirName", "foo")),
                Map.of("workTarget", Map.of("kind", "CLIENT")), "parent");
        assertThat(child.get("workTarget")).isEqualTo(WorkTarget.work("foo").toMap());
    }

    @Test
    void spawnTakesTheRecipeDefaultOverTheParent() {
        storeRaw("parent", WorkTarget.daemon("box").toMap());
        Map<String, Object> child = service.resolveSpawnParams(null, Map.of("workTarget", Map.of("kind", "client")),
                "parent");
        assertThat(child.get("workTarget")).isEqualTo(WorkTarget.CLIENT.toMap());
    }

    @Test
    void spawnCopiesTheParentsTargetWhenNeitherCallerNorRecipeSetOne() {
        storeRaw("parent", WorkTarget.daemon("box").toMap());
        Map<String, Object> child = service.resolveSpawnParams(Map.of(), Map.of(), "parent");
        assertThat(child.get("workTarget")).isEqualTo(WorkTarget.daemon("box").toMap());
    }

    @Test
    void spawnWritesNoTargetWhenNothingAppliesSoTheDefaultIsResolvedAtFirstUse() {
        Map<String, Object> child = service.resolveSpawnParams(null, null, "parent");
        assertThat(child).doesNotContainKey("workTarget");
        store.add(new ProcessInfo("child", "parent", "s1", "acme", "proj", "alice", child));
        clients.client("acme", "s1", List.of());
        assertThat(service.current("child")).isEqualTo(WorkTarget.CLIENT);
    }

    @Test
    void spawnDoesNotInheritAMalformedParentEntry() {
        storeRaw("parent", Map.of("kind", "DAEMON"));
        Map<String, Object> child = service.resolveSpawnParams(null, null, "parent");
        assertThat(child).doesNotContainKey("workTarget");
    }

    @Test
    void spawnFromAnUnknownParentInheritsNothing() {
        assertThat(service.resolveSpawnParams(null, null, "ghost")).doesNotContainKey("workTarget");
    }

    @Test
    void spawnRejectsAMalformedCallerParameter() {
        assertThatThrownBy(() -> service.resolveSpawnParams(Map.of("workTarget", Map.of("kind", "MOON")), null, "parent"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("caller").hasMessageContaining("CLIENT, WORK, DAEMON");
    }

    @Test
    void spawnRejectsAMalformedRecipeDefault() {
        assertThatThrownBy(() -> service.resolveSpawnParams(null, Map.of("workTarget", "WORK"), "parent"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("recipe");
    }

    @Test
    void spawnCopiesOtherRecipeKeysAndTheCallerOverridesThem() {
        Map<String, Object> child = service.resolveSpawnParams(Map.of("model", "big"),
                Map.of("model", "small", "temperature", 0.2), null);
        assertThat(child).containsEntry("model", "big").containsEntry("temperature", 0.2);
    }

    @Test
    void aChildsLaterSetNeverChangesItsParentOrSiblings() {
        storeRaw("parent", WorkTarget.work("shared").toMap());
        store.add(new ProcessInfo("child-1", "parent", "s1", "acme", "proj", "alice",
                service.resolveSpawnParams(null, null, "parent")));
        store.add(new ProcessInfo("child-2", "parent", "s1", "acme", "proj", "alice",
                service.resolveSpawnParams(null, null, "parent")));
        service.set("child-1", WorkTarget.daemon("box"));
        assertThat(service.current("child-1")).isEqualTo(WorkTarget.daemon("box"));
        assertThat(service.current("parent")).isEqualTo(WorkTarget.work("shared"));
        assertThat(service.current("child-2")).isEqualTo(WorkTarget.work("shared"));
    }

    @Test
    void theChildGetsACopyNotTheParentsMapInstance() {
        Map<String, Object> parentTarget = new LinkedHashMap<>(WorkTarget.work("shared").toMap());
        storeRaw("parent", parentTarget);
        Map<String, Object> child = service.resolveSpawnParams(null, null, "parent");
        assertThat(child.get("workTarget")).isNotSameAs(parentTarget).isEqualTo(parentTarget);
    }

    @Test
    void buildingWithoutAProcessStoreFails() {
        assertThatThrownBy(() -> WorkTargetService.builder().build()).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("processStore");
    }
}
