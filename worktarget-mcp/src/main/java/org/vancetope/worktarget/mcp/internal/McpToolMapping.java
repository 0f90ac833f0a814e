package org.vancetope.worktarget.mcp.internal;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.Map;
import org.vancetope.worktarget.spi.ToolAnnotations;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The one place where a {@link ToolSpec} becomes an MCP {@link McpSchema.Tool}: name, title,
 * description, input schema, annotations and output schema, each as the spec says it
 * ({@link ToolSpec#annotations()}, derived from the spec's labels, and {@link ToolSpec#outputSchema()}).
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
                .title(spec.title())
                .description(spec.description())
                .outputSchema(outputSchema(spec))
                .annotations(annotations(spec))
                .build();
    }

    /**
     * The annotations of a spec: its {@link ToolSpec#annotations()} in the SDK's type.
     *
     * @param spec the spec
     * @return the annotations
     */
    public static McpSchema.ToolAnnotations annotations(ToolSpec spec) {
        ToolAnnotations a = spec.annotations();
        return McpSchema.ToolAnnotations.builder().title(a.title()).readOnlyHint(a.readOnlyHint())
                .destructiveHint(a.destructiveHint()).idempotentHint(a.idempotentHint())
                .openWorldHint(a.openWorldHint()).build();
    }

    /**
     * The output schema of a spec: a copy of its {@link ToolSpec#outputSchema()}.
     *
     * @param spec the spec
     * @return the JSON-Schema object
     */
    public static Map<String, Object> outputSchema(ToolSpec spec) {
        return new LinkedHashMap<>(spec.outputSchema());
    }
}
