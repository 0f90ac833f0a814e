package org.vancetope.worktarget.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ToolSpecAnnotationsTest {
    private static final Map<String, Object> OBJECT = Map.of("type", "object");

    private static ToolSpec spec(Set<ToolLabel> labels) {
        return new ToolSpec("file_x", "d", true, labels, OBJECT, "X a file", null);
    }

    @Test
    void aSpecWithOnlyTheWriteLabelGetsMcpsCautiousDefaults() {
        assertThat(spec(Set.of(ToolLabel.WRITE)).annotations())
                .isEqualTo(new ToolAnnotations("X a file", false, true, false, true));
    }

    @Test
    void aSpecWithoutAnyLabelIsTreatedAsDestructiveAndOpenWorld() {
        assertThat(spec(Set.of()).annotations()).isEqualTo(new ToolAnnotations("X a file", false, true, false, true));
    }

    @Test
    void aReadOnlySpecIsNeitherDestructiveNorRepeatedlyEffective() {
        assertThat(spec(Set.of(ToolLabel.READ_ONLY, ToolLabel.CLOSED_WORLD)).annotations())
                .isEqualTo(new ToolAnnotations("X a file", true, false, true, false));
    }

    @Test
    void aReadOnlySpecWithoutClosedWorldIsOpenWorld() {
        assertThat(spec(Set.of(ToolLabel.READ_ONLY)).annotations().openWorldHint()).isTrue();
    }

    @Test
    void nonDestructiveAndIdempotentLiftTheirDefaultsIndependently() {
        assertThat(spec(Set.of(ToolLabel.WRITE, ToolLabel.NON_DESTRUCTIVE)).annotations())
                .isEqualTo(new ToolAnnotations("X a file", false, false, false, true));
        assertThat(spec(Set.of(ToolLabel.WRITE, ToolLabel.IDEMPOTENT)).annotations())
                .isEqualTo(new ToolAnnotations("X a file", false, true, true, true));
    }

    @Test
    void theNewLabelsHaveHyphenatedWireNames() {
        assertThat(ToolLabel.NON_DESTRUCTIVE.wire()).isEqualTo("non-destructive");
        assertThat(ToolLabel.IDEMPOTENT.wire()).isEqualTo("idempotent");
        assertThat(ToolLabel.CLOSED_WORLD.wire()).isEqualTo("closed-world");
    }

    @Test
    void withoutATitleTheNameGivesOne() {
        assertThat(new ToolSpec("work_file_read", "d", true, Set.of(), OBJECT).title()).isEqualTo("Work file read");
        assertThat(new ToolSpec("my-tool", "d", true, Set.of(), OBJECT, "  ", null).title()).isEqualTo("My tool");
    }

    @Test
    void anExplicitTitleIsKeptStripped() {
        assertThat(new ToolSpec("t", "d", true, Set.of(), OBJECT, " Read file ", null).annotations().title())
                .isEqualTo("Read file");
    }

    @Test
    void withoutAnOutputSchemaTheResultIsAnyObject() {
        assertThat(new ToolSpec("t", "d", true, Set.of(), OBJECT).outputSchema()).isEqualTo(Map.of("type", "object"));
    }

    @Test
    void anOutputSchemaIsCopied() {
        java.util.Map<String, Object> out = new java.util.LinkedHashMap<>(Map.of("type", "object"));
        ToolSpec s = new ToolSpec("t", "d", true, Set.of(), OBJECT, null, out);
        out.put("required", java.util.List.of("x"));
        assertThat(s.outputSchema()).isEqualTo(Map.of("type", "object"));
        assertThatThrownBy(() -> s.outputSchema().put("x", 1)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void anOutputSchemaThatIsNotAnObjectSchemaIsRefusedNamingTheTool() {
        assertThatThrownBy(() -> new ToolSpec("t", "d", true, Set.of(), OBJECT, null, Map.of("type", "array")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outputSchema of t")
                .hasMessageContaining("type=object");
    }

    @Test
    void annotationsNeedATitle() {
        assertThatThrownBy(() -> new ToolAnnotations(null, true, false, true, false))
                .isInstanceOf(NullPointerException.class);
    }
}
