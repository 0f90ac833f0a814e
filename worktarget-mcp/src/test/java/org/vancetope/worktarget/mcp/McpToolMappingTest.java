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
import org.vancetope.worktarget.spi.ToolAnnotations;
import org.vancetope.worktarget.spi.ToolLabel;
import org.vancetope.worktarget.spi.ToolSpec;

/** A tool spec becomes an MCP tool with the spec's own title, annotations and output schema. */
class McpToolMappingTest {
    private static List<ToolSpec> catalog() {
        List<ToolSpec> all = new ArrayList<>(ToolCatalog.wrappers());
        all.addAll(ToolCatalog.metaTools());
        return all;
    }

    private static ToolSpec wrapper(String name) {
        return ToolCatalog.wrapper(name).orElseThrow();
    }

    private static List<Boolean> hints(McpSchema.ToolAnnotations a) {
        return List.of(a.readOnlyHint(), a.destructiveHint(), a.idempotentHint(), a.openWorldHint());
    }

    @Test
    void aReaderIsReadOnlyNonDestructiveIdempotentAndClosedWorld() {
        McpSchema.ToolAnnotations a = McpToolMapping.annotations(wrapper("file_read"));
        assertThat(hints(a)).containsExactly(true, false, true, false);
        assertThat(a.title()).isEqualTo(wrapper("file_read").title());
    }

    @Test
    void aWriterThatReplacesFilesIsDestructiveButIdempotent() {
        assertThat(hints(McpToolMapping.annotations(wrapper("file_write")))).containsExactly(false, true, true, false);
    }

    @Test
    void exec_runIsDestructiveNotIdempotentAndOpenWorld() {
        assertThat(hints(McpToolMapping.annotations(wrapper("exec_run")))).containsExactly(false, true, false, true);
    }

    @Test
    void aSpecWithTheOldLabelsOnlyGetsTheCautiousHints() {
        ToolSpec old = new ToolSpec("client_custom", "d", true, Set.of(ToolLabel.WRITE), Map.of("type", "object"));
        assertThat(hints(McpToolMapping.annotations(old))).containsExactly(false, true, false, true);
    }

    @Test
    void everyCatalogToolKeepsItsNameTitleDescriptionSchemasAndAnnotations() {
        for (ToolSpec s : catalog()) {
            McpSchema.Tool t = McpToolMapping.tool(s);
            ToolAnnotations a = s.annotations();
            assertThat(t.name()).isEqualTo(s.name());
            assertThat(t.title()).isEqualTo(s.title());
            assertThat(t.description()).isEqualTo(s.description());
            assertThat(t.inputSchema()).isEqualTo(s.paramsSchema());
            assertThat(t.outputSchema()).as(s.name()).isEqualTo(s.outputSchema());
            assertThat(hints(t.annotations())).as(s.name())
                    .containsExactly(a.readOnlyHint(), a.destructiveHint(), a.idempotentHint(), a.openWorldHint());
        }
    }
}
