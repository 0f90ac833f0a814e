package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.mcp.internal.McpToolMapping;
import org.vancetope.worktarget.spi.ToolLabel;
import org.vancetope.worktarget.spi.ToolSpec;

class McpToolMappingTest {
    private static ToolSpec spec(String name, ToolLabel... labels) {
        return new ToolSpec(name, "d", true, Set.of(labels), Map.of("type", "object"));
    }

    @Test
    void readersAreReadOnlyIdempotentAndClosedWorld() {
        McpSchema.ToolAnnotations a = McpToolMapping.annotations(spec("file_read", ToolLabel.READ_ONLY));
        assertThat(List.of(a.readOnlyHint(), a.destructiveHint(), a.idempotentHint(), a.openWorldHint()))
                .containsExactly(true, false, true, false);
        assertThat(a.title()).isEqualTo("File read");
    }

    @Test
    void writersAreDestructiveAndSideEffectsOpenWorld() {
        McpSchema.ToolAnnotations w = McpToolMapping.annotations(spec("file_write", ToolLabel.WRITE));
        assertThat(List.of(w.readOnlyHint(), w.destructiveHint(), w.idempotentHint(), w.openWorldHint()))
                .containsExactly(false, true, false, false);
        McpSchema.ToolAnnotations x = McpToolMapping.annotations(spec("exec_run", ToolLabel.SIDE_EFFECT));
        assertThat(List.of(x.readOnlyHint(), x.destructiveHint(), x.idempotentHint(), x.openWorldHint()))
                .containsExactly(false, true, false, true);
    }

    @Test
    void everyCatalogToolKeepsItsNameDescriptionAndInputSchemaAndGetsAnObjectOutputSchema() {
        List<ToolSpec> all = new ArrayList<>(ToolCatalog.wrappers());
        all.addAll(ToolCatalog.metaTools());
        for (ToolSpec s : all) {
            McpSchema.Tool t = McpToolMapping.tool(s);
            assertThat(t.name()).isEqualTo(s.name());
            assertThat(t.description()).isEqualTo(s.description());
            assertThat(t.inputSchema()).isEqualTo(s.paramsSchema());
            assertThat(t.outputSchema()).containsEntry("type", "object");
            assertThat(t.annotations().readOnlyHint()).isEqualTo(s.labels().equals(Set.of(ToolLabel.READ_ONLY)));
        }
    }
}
