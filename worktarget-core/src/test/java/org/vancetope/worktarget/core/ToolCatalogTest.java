package org.vancetope.worktarget.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.ToolLabel;
import org.vancetope.worktarget.spi.ToolSpec;

class ToolCatalogTest {
    private static final List<String> WRAPPERS = List.of("file_read", "file_write", "file_edit", "file_list",
            "file_find", "file_grep", "file_head_tail", "file_count", "file_delete", "file_move", "file_mkdir",
            "file_stat", "file_tree", "exec_run", "exec_status", "exec_tail", "exec_kill");
    private static final Path GOLDEN = Path.of("src/test/resources/golden/manifest.json");

    @Test
    void thereAreSeventeenPrimaryWrappers() {
        assertThat(ToolCatalog.wrappers()).extracting(ToolSpec::name).containsExactlyElementsOf(WRAPPERS);
        assertThat(ToolCatalog.wrappers()).allMatch(ToolSpec::primary);
    }

    @Test
    void theMetaToolsAreNotPrimary() {
        assertThat(ToolCatalog.metaTools()).extracting(ToolSpec::name)
                .containsExactly("work_target_get", "work_target_set");
        assertThat(ToolCatalog.metaTools()).noneMatch(ToolSpec::primary);
    }

    @Test
    void thereAreThirtyFourBackendsOneClientAndOneWorkPerWrapper() {
        assertThat(ToolCatalog.backendTools()).hasSize(34);
        for (String w : WRAPPERS) {
            assertThat(ToolCatalog.backend("client_" + w)).isPresent();
            assertThat(ToolCatalog.backend("work_" + w)).isPresent();
        }
    }

    @Test
    void allowedToolsAreWrappersMetaToolsAndBackends() {
        assertThat(ToolCatalog.allowedTools()).hasSize(53)
                .containsAll(WRAPPERS).contains("work_target_get", "work_target_set", "client_exec_kill", "work_file_read");
    }

    @Test
    void deferredToolsAreExactlyTheBackends() {
        assertThat(ToolCatalog.deferredTools()).hasSize(34).allMatch(n -> n.startsWith("client_") || n.startsWith("work_"));
    }

    @Test
    void clientBackendsDoNotDeclareDirName() {
        assertThat(ToolCatalog.backendTools()).filteredOn(s -> s.name().startsWith("client_"))
                .allMatch(s -> !s.parameterNames().contains("dirName"));
    }

    @Test
    void workBackendsDeclareTheSameParametersAsTheirWrapper() {
        for (ToolSpec w : ToolCatalog.wrappers()) {
            assertThat(ToolCatalog.backend("work_" + w.name()).orElseThrow().parameterNames())
                    .containsExactlyElementsOf(w.parameterNames());
        }
    }

    @Test
    void backendNameRoutesClientAndDaemonToClientToolsAndWorkToWorkTools() {
        assertThat(ToolCatalog.backendName("file_read", WorkTargetKind.CLIENT)).isEqualTo("client_file_read");
        assertThat(ToolCatalog.backendName("file_read", WorkTargetKind.DAEMON)).isEqualTo("client_file_read");
        assertThat(ToolCatalog.backendName("file_read", WorkTargetKind.WORK)).isEqualTo("work_file_read");
    }

    @Test
    void everyWrapperHasLabels() {
        assertThat(ToolCatalog.wrappers()).allMatch(s -> !s.labels().isEmpty());
        assertThat(ToolCatalog.wrapper("file_read").orElseThrow().labels())
                .containsExactlyInAnyOrder(ToolLabel.READ_ONLY, ToolLabel.CLOSED_WORLD);
        assertThat(ToolCatalog.wrapper("file_write").orElseThrow().labels())
                .containsExactlyInAnyOrder(ToolLabel.WRITE, ToolLabel.IDEMPOTENT, ToolLabel.CLOSED_WORLD);
        assertThat(ToolCatalog.wrapper("exec_run").orElseThrow().labels()).containsExactly(ToolLabel.SIDE_EFFECT);
    }

    @Test
    @SuppressWarnings("unchecked")
    void definitionsAreValidFunctionCallingAndMcpSchemas() {
        Pattern toolName = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");
        List<ToolSpec> all = new java.util.ArrayList<>(ToolCatalog.wrappers());
        all.addAll(ToolCatalog.metaTools());
        all.addAll(ToolCatalog.backendTools());
        for (Map<String, Object> d : ToolCatalog.toolDefinitions(all)) {
            assertThat((String) d.get("name")).matches(toolName);
            assertThat((String) d.get("description")).isNotBlank();
            Map<String, Object> schema = (Map<String, Object>) d.get("inputSchema");
            assertThat(schema.get("type")).isEqualTo("object");
            assertThat(schema.get("additionalProperties")).isEqualTo(false);
            Map<String, Object> props = (Map<String, Object>) schema.get("properties");
            assertThat(props).isNotNull();
            assertThat((List<String>) schema.get("required")).allMatch(props::containsKey);
            for (Object p : props.values()) {
                Map<String, Object> prop = (Map<String, Object>) p;
                assertThat(prop.get("type")).isIn("string", "integer", "boolean", "object", "array");
                assertThat((String) prop.get("description")).isNotBlank();
                if ("array".equals(prop.get("type"))) {
                    // OpenAI function calling refuses an array without items
                    assertThat(prop.get("items")).isInstanceOf(Map.class);
                }
            }
        }
    }

    @Test
    void workTargetSetDeclaresKindRequiredAsTheToolRequiresIt() {
        ToolSpec set = ToolCatalog.metaTools().stream().filter(t -> t.name().equals(ToolCatalog.WORK_TARGET_SET))
                .findFirst().orElseThrow();
        assertThat(set.requiredParameters()).containsExactly("kind");
    }

    @Test
    void theManifestMatchesTheGoldenFile() throws IOException {
        String actual = ToolCatalog.manifestJson();
        if (Boolean.getBoolean("worktarget.updateGolden")) {
            Files.createDirectories(GOLDEN.getParent());
            Files.writeString(GOLDEN, actual, StandardCharsets.UTF_8);
        }
        assertThat(GOLDEN).as("golden manifest; after a deliberate schema change run "
                + "mvn -pl worktarget-core test -Dtest=ToolCatalogTest -Dworktarget.updateGolden=true").exists();
        assertThat(actual).as("the LLM-facing manifest changed; if deliberate, regenerate the golden file with "
                + "-Dworktarget.updateGolden=true and review the diff").isEqualTo(Files.readString(GOLDEN));
    }
}
