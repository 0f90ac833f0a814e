package org.vancetope.worktarget.spi;

import java.util.Map;

/**
 * One backend tool, e.g. {@code work_file_read}: a {@link ToolSpec} plus the code that runs it.
 *
 * <p>Parameters and results are JSON-shaped trees: {@code String}, {@code Number}, {@code Boolean},
 * {@code null}, {@code List} and {@code Map<String, ?>}. A backend never sees a WorkTarget: the
 * dispatcher has already routed the call and adjusted the parameters.
 *
 * <pre>{@code
 * BackendTool hello = BackendTool.of(spec, (params, ctx) -> Map.of("greeting", "hi " + ctx.processId()));
 * }</pre>
 */
public interface BackendTool {

    /**
     * The tool's description.
     *
     * @return the spec; its name is the backend tool name
     */
    ToolSpec spec();

    /**
     * Runs the tool.
     *
     * @param params the parameters, already checked against {@link ToolSpec#parameterNames()}
     * @param context who calls
     * @return the JSON-shaped result
     * @throws ToolException with a stable code when the call fails
     */
    Map<String, Object> invoke(Map<String, Object> params, ToolContext context) throws ToolException;

    /**
     * The body of a tool, for {@link #of(ToolSpec, Body)}.
     */
    @FunctionalInterface
    interface Body {
        /**
         * Runs the tool.
         *
         * @param params the parameters
         * @param context who calls
         * @return the result
         * @throws ToolException on failure
         */
        Map<String, Object> invoke(Map<String, Object> params, ToolContext context) throws ToolException;
    }

    /**
     * Builds a tool from a spec and a body.
     *
     * @param spec the spec
     * @param body the code
     * @return the tool
     */
    static BackendTool of(ToolSpec spec, Body body) {
        java.util.Objects.requireNonNull(spec, "spec");
        java.util.Objects.requireNonNull(body, "body");
        return new BackendTool() {
            @Override
            public ToolSpec spec() {
                return spec;
            }

            @Override
            public Map<String, Object> invoke(Map<String, Object> params, ToolContext context) throws ToolException {
                return body.invoke(params, context);
            }

            @Override
            public String toString() {
                return "BackendTool[" + spec.name() + "]";
            }
        };
    }
}
