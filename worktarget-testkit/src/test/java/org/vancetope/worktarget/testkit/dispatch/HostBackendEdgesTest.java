package org.vancetope.worktarget.testkit.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.BackendToolProvider;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testkit.FakePeers;

/** What the dispatcher does with a host's own backend and host code that misbehaves: clear errors, one shape. */
class HostBackendEdgesTest {
    private InMemoryProcessStore store;

    @BeforeEach
    void setUp() {
        store = new InMemoryProcessStore();
        store.process("p1").tenant("acme").project("proj").session("s1").user("alice").add();
    }

    private static BackendToolProvider provider(String name, List<BackendTool> tools) {
        return WorkTargetDispatcherTest.provider(name, tools);
    }

    private static BackendTool workRead(BackendTool.Body body) {
        return BackendTool.of(ToolCatalog.backend("work_file_read").orElseThrow(), body);
    }

    @Test
    void numbersOfAHostBackendComeOutAsJsonGivesThemIntegerWhenTheyFit() throws ToolException {
        WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store).backend(provider("mine",
                List.of(workRead((p, c) -> Map.of("totalLines", 2L, "big", 5_000_000_000L,
                        "nested", List.of(Map.of("n", (short) 3))))))).build();

        Map<String, Object> r = d.invoke("p1", "file_read", Map.of("path", "a.txt"));

        assertThat(r.get("totalLines")).isEqualTo(2);
        assertThat(r.get("big")).isEqualTo(5_000_000_000L);
        assertThat(r.get("nested")).isEqualTo(List.of(Map.of("n", 3)));
    }

    @Test
    void aProviderGivenToTheBuilderForAnotherSpiVersionIsRefused() {
        assertThatThrownBy(() -> WorkTargetDispatcher.builder().processStore(store).backend(new FutureSpiBackend())
                .build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("was built for SPI version " + (BackendToolProvider.SPI_VERSION + 1))
                .hasMessageContaining("Use a matching version of the provider's jar");
    }

    @Test
    void aProviderWhoseToolsAreNullIsRefusedByName() {
        assertThatThrownBy(() -> WorkTargetDispatcher.builder().processStore(store).backend(provider("broken", null))
                .build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'broken'", "returned null from tools()", "an empty list");
    }

    @Test
    void aProviderThatOffersOneToolTwiceIsToldSoNotThatTwoBackendsClash() {
        BackendTool t = workRead((p, c) -> Map.of());
        assertThatThrownBy(() -> WorkTargetDispatcher.builder().processStore(store)
                .backend(provider("dupe", List.of(t, t))).build()).isInstanceOf(IllegalStateException.class)
                .hasMessage("BackendToolProvider 'dupe' offers the tool 'work_file_read' twice; its tools() must name "
                        + "each tool once.");
    }

    @Test
    void aProviderWithANullToolIsRefusedByName() {
        assertThatThrownBy(() -> WorkTargetDispatcher.builder().processStore(store)
                .backend(provider("holey", Arrays.asList(workRead((p, c) -> Map.of()), null))).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("'holey' returned a null tool");
    }

    @Test
    void aCallThatNamesNoToolIsUnknownToolWithTheToolsAvailable() {
        WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store).build();
        assertThatThrownBy(() -> d.invoke("p1", null, Map.of())).isInstanceOfSatisfying(ToolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_TOOL);
            assertThat(e.getMessage()).startsWith("The call names no tool (null). Available: ")
                    .contains("work_target_get");
        });
    }

    @Test
    void workTargetSetOfAProcessTheHostRemovedMeanwhileIsNotFound() {
        WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store)
                .backend(provider("work", List.of(workRead((p, c) -> Map.of()))))
                .interceptor(chain -> {
                    store.remove("p1");
                    return chain.proceed(chain.invocation());
                }).build();

        assertThatThrownBy(() -> d.invoke("p1", "work_target_set", Map.of("kind", "WORK")))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
                    assertThat(e.getMessage()).contains("Process 'p1' was removed from the host's ProcessStore",
                            "Register the process again");
                });
        assertThat(store.find("p1")).isEmpty();
    }

    @Test
    void theStrictPeersFakeTakesAParameterSentAsNull() throws ToolException {
        try (FakePeers peers = new FakePeers().client("acme", "s1", List.of(BackendTool.of(
                ToolCatalog.backend("client_file_read").orElseThrow(), (p, c) -> Map.of("ok", true))))) {
            WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store).peers(peers).build();
            store.putEngineParam("p1", WorkTarget.ENGINE_PARAM_KEY, WorkTarget.CLIENT.toMap());
            Map<String, Object> params = new HashMap<>();
            params.put("path", "a.txt");
            params.put("maxLines", null);

            assertThat(d.invoke("p1", "file_read", params)).containsEntry("ok", true);
            assertThat(peers.calls()).singleElement().satisfies(c -> assertThat(c.params()).containsEntry("maxLines", null));
        }
    }
}
