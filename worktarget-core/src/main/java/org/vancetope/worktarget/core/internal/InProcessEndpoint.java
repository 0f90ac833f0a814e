package org.vancetope.worktarget.core.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The endpoint of tools that run in this JVM, on the caller's thread: the WORK target's backends, and
 * a {@code LocalBackend} as the client of every session. The timeout is not enforced (the tools have
 * limits of their own); there is no transfer connection.
 */
public final class InProcessEndpoint implements Endpoint {
    private final String description;
    private final Map<String, BackendTool> tools;
    private final List<ToolSpec> manifest;

    /**
     * Creates the endpoint.
     *
     * @param description who it is in messages, e.g. {@code the local client (/home/me/work)}
     * @param tools its tools
     */
    public InProcessEndpoint(String description, List<BackendTool> tools) {
        this.description = description;
        Map<String, BackendTool> byName = new LinkedHashMap<>();
        tools.forEach(t -> byName.put(t.spec().name(), t));
        this.tools = byName;
        this.manifest = tools.stream().map(BackendTool::spec).toList();
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public List<ToolSpec> manifest() {
        return manifest;
    }

    @Override
    public Map<String, Object> invoke(String tool, Map<String, Object> params, ToolContext context, Duration timeout)
            throws ToolException {
        BackendTool t = tools.get(tool);
        if (t == null) {
            throw new ToolException(ErrorCode.UNKNOWN_TOOL, description + " does not offer '" + tool + "'. It offers: "
                    + String.join(", ", tools.keySet()) + ".");
        }
        return t.invoke(params == null ? Map.of() : params, context);
    }
}
