package org.vancetope.worktarget.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SpiValuesTest {

    @Test
    void errorCodesHaveTheWireNamesOfTheProtocol() {
        assertThat(List.of(ErrorCode.values())).extracting(ErrorCode::wire).containsExactly("bad_frame", "unauthorized",
                "forbidden", "superseded", "unknown_tool", "invalid_params", "offline", "timeout", "cancelled",
                "path_escape", "not_found", "exists", "size_limit", "disk_full", "hash_mismatch", "budget_exceeded",
                "zstd_refused", "source_changed", "internal");
    }

    @Test
    void errorCodesParseFromTheWireAndUnknownOnesAreEmpty() {
        assertThat(ErrorCode.fromWire(" PATH_ESCAPE ")).contains(ErrorCode.PATH_ESCAPE);
        assertThat(ErrorCode.fromWire("nope")).isEmpty();
        assertThat(ErrorCode.fromWire(null)).isEmpty();
    }

    @Test
    void labelsHaveHyphenatedWireNames() {
        assertThat(ToolLabel.READ_ONLY.wire()).isEqualTo("read-only");
        assertThat(ToolLabel.SIDE_EFFECT.wire()).isEqualTo("side-effect");
    }

    @Test
    void aToolSpecNeedsAnObjectSchema() {
        assertThatThrownBy(() -> new ToolSpec("t", "d", true, Set.of(), Map.of("type", "string")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("type=object");
    }

    @Test
    @SuppressWarnings("unchecked")
    void aToolSpecsSchemasCannotBeChangedAtAnyLevelNorThroughTheMapsItWasBuiltFrom() {
        Map<String, Object> limit = new java.util.LinkedHashMap<>(Map.of("type", "integer"));
        Map<String, Object> props = new java.util.LinkedHashMap<>(Map.of("limit", limit));
        List<Object> required = new ArrayList<>(List.of("limit"));
        Map<String, Object> schema = new java.util.LinkedHashMap<>(Map.of("type", "object", "properties", props,
                "required", required));
        ToolSpec s = new ToolSpec("t", "d", true, Set.of(), schema, null, schema);

        props.put("q", Map.of("type", "string"));
        limit.put("maximum", 5);
        required.add("q");
        assertThat(s.parameterNames()).containsExactly("limit");
        assertThat((Map<String, Object>) ((Map<String, Object>) s.paramsSchema().get("properties")).get("limit"))
                .doesNotContainKey("maximum");

        Map<String, Object> theirs = (Map<String, Object>) s.paramsSchema().get("properties");
        assertThatThrownBy(() -> theirs.remove("limit")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> ((List<Object>) s.paramsSchema().get("required")).clear())
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> ((Map<String, Object>) s.outputSchema().get("properties")).clear())
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    @SuppressWarnings("unchecked")
    void setsAndArraysInAToolSpecsSchemaAreCopiedToo() {
        Set<Object> values = new java.util.HashSet<>(Set.of("a", "b"));
        Object[] examples = {"x"};
        Map<String, Object> mode = new java.util.LinkedHashMap<>(Map.of("type", "string", "enum", values,
                "examples", examples));
        ToolSpec s = new ToolSpec("t", "d", true, Set.of(), Map.of("type", "object", "properties", Map.of("mode", mode)));

        values.add("c");
        examples[0] = "changed";
        Map<String, Object> theirs = (Map<String, Object>) ((Map<String, Object>) s.paramsSchema().get("properties"))
                .get("mode");
        assertThat((java.util.Collection<Object>) theirs.get("enum")).containsExactlyInAnyOrder("a", "b");
        assertThat((List<Object>) theirs.get("examples")).containsExactly("x");
        assertThatThrownBy(() -> ((java.util.Collection<Object>) theirs.get("enum")).add("d"))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aToolSpecWhoseSchemaContainsItselfIsRefused() {
        Map<String, Object> schema = new java.util.LinkedHashMap<>(Map.of("type", "object"));
        schema.put("self", schema);
        assertThatThrownBy(() -> new ToolSpec("t", "d", true, Set.of(), schema))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("deeper than 128 levels");
    }

    @Test
    void aToolSpecNeedsANonBlankName() {
        assertThatThrownBy(() -> new ToolSpec(" ", "d", true, Set.of(), Map.of("type", "object")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aToolSpecListsItsParametersAndRequiredOnes() {
        ToolSpec s = new ToolSpec("t", null, true, Set.of(), Map.of("type", "object",
                "properties", Map.of("a", Map.of("type", "string")), "required", List.of("a")));
        assertThat(s.parameterNames()).containsExactly("a");
        assertThat(s.requiredParameters()).containsExactly("a");
        assertThat(s.description()).isEmpty();
    }

    @Test
    void aPrincipalServesOnlyItsTenantAndGrantedProjects() {
        AuthPrincipal p = new AuthPrincipal("daemon-1", "acme", Set.of("proj"), null);
        assertThat(p.mayServe("acme", "proj")).isTrue();
        assertThat(p.mayServe("acme", "other")).isFalse();
        assertThat(p.mayServe("evil", "proj")).isFalse();
        assertThat(new AuthPrincipal("all", "acme", Set.of("*"), null).mayServe("acme", "any")).isTrue();
    }

    @Test
    void theSettingsCascadeReadsUserThenProjectThenTenant() {
        List<String> asked = new ArrayList<>();
        SettingsCascade cascade = (level, tenant, id, key) -> {
            asked.add(level + ":" + id);
            return level == SettingLevel.TENANT ? Optional.of("tenant-value") : Optional.empty();
        };
        assertThat(cascade.resolve("acme", "proj", "alice", "home-scope")).contains("tenant-value");
        assertThat(asked).containsExactly("USER:alice", "PROJECT:proj", "TENANT:acme");
    }

    @Test
    void theSettingsCascadeSkipsTheUserLevelWithoutAUser() {
        List<String> asked = new ArrayList<>();
        SettingsCascade cascade = (level, tenant, id, key) -> {
            asked.add(level.name());
            return level == SettingLevel.PROJECT ? Optional.of("p") : Optional.empty();
        };
        assertThat(cascade.resolve("acme", "proj", null, "k")).contains("p");
        assertThat(asked).containsExactly("PROJECT");
    }

    @Test
    void processInfoCopiesItsEngineParams() {
        Map<String, Object> params = new java.util.HashMap<>(Map.of("a", 1));
        ProcessInfo p = new ProcessInfo("id", null, null, "t", "p", null, params);
        params.put("b", 2);
        assertThat(p.engineParams()).containsOnlyKeys("a");
        assertThatThrownBy(() -> p.engineParams().put("c", 3)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void daemonNamesFollowTheOneRule() {
        assertThat(List.of("box", "build-box-01", "a", "0_x", "a".repeat(64))).allMatch(DaemonKey::isValidName);
        assertThat(Arrays.asList(null, "", "Box", "-box", "_box", "box.1", "box 1", "a".repeat(65), "bøx"))
                .noneMatch(DaemonKey::isValidName);
        assertThat(DaemonKey.NAME_RULE).contains("1 to 64", "a-z");
    }
}
