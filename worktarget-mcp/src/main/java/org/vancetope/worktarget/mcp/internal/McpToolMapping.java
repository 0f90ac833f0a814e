package org.vancetope.worktarget.mcp.internal;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.vancetope.worktarget.spi.ToolLabel;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The one place where a {@link ToolSpec} becomes an MCP {@link McpSchema.Tool}: name, description, input
 * schema, annotations and output schema.
 *
 * <p>The annotations and the output schema are derived here from the spec's labels: {@code read-only} is
 * read-only, non-destructive, idempotent and closed-world; {@code write} changes files (destructive, not
 * idempotent, closed-world); {@code side-effect} reaches beyond files (destructive, not idempotent,
 * open-world). Every result is a JSON object, so the output schema is {@code {"type":"object"}}.
 */
public final class McpToolMapping {
    private McpToolMapping() {
    }

    /**
     * The MCP tool of a spec.
     *
     * @param spec the spec
     * @return the MCP tool
     */
    public static McpSchema.Tool tool(ToolSpec spec) {
        return McpSchema.Tool.builder(spec.name(), new LinkedHashMap<>(spec.paramsSchema()))
                .title(title(spec.name()))
                .description(spec.description())
                .outputSchema(outputSchema(spec))
                .annotations(annotations(spec))
                .build();
    }

    /**
     * The annotations of a spec, derived from its labels.
     *
     * @param spec the spec
     * @return the annotations
     */
    public static McpSchema.ToolAnnotations annotations(ToolSpec spec) {
        Set<ToolLabel> labels = spec.labels();
        boolean readOnly = labels.contains(ToolLabel.READ_ONLY) && labels.size() == 1;
        boolean sideEffect = labels.contains(ToolLabel.SIDE_EFFECT);
        return McpSchema.ToolAnnotations.builder().title(title(spec.name())).readOnlyHint(readOnly)
                .destructiveHint(!readOnly).idempotentHint(readOnly).openWorldHint(sideEffect).build();
    }

    /**
     * The output schema of a spec: every result is a JSON object.
     *
     * @param spec the spec
     * @return the JSON-Schema object
     */
    public static Map<String, Object> outputSchema(ToolSpec spec) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        return schema;
    }

    /**
     * A title for people: {@code file_head_tail} becomes {@code File head tail}.
     *
     * @param name the tool name
     * @return the title
     */
    static String title(String name) {
        String words = name.replace('_', ' ');
        return words.isEmpty() ? words : words.substring(0, 1).toUpperCase(Locale.ROOT) + words.substring(1);
    }
}
