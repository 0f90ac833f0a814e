package org.vancetope.worktarget.spi;

import java.util.Objects;

/**
 * The hints about a tool that MCP clients read ({@code annotations} of an MCP tool), derived from a
 * {@link ToolSpec}'s title and {@link ToolLabel labels} by {@link ToolSpec#annotations()}.
 *
 * <p>They are hints for a client's confirmation prompts and retries, not a security boundary.
 * {@code destructiveHint} and {@code idempotentHint} are meaningful only when {@code readOnlyHint} is
 * false; for a read-only tool they are false and true.
 *
 * @param title a short human-readable name, e.g. {@code "Read file"}
 * @param readOnlyHint the tool does not change its environment
 * @param destructiveHint the tool may overwrite or delete (false: it only creates or sets state back)
 * @param idempotentHint calling it again with the same parameters has no further effect
 * @param openWorldHint the tool may reach beyond the layer's own domain (a shell command may reach anything)
 */
public record ToolAnnotations(String title, boolean readOnlyHint, boolean destructiveHint, boolean idempotentHint,
                              boolean openWorldHint) {

    /**
     * Checks the title.
     *
     * @param title a short human-readable name, e.g. {@code "Read file"}
     * @param readOnlyHint the tool does not change its environment
     * @param destructiveHint the tool may overwrite or delete (false: it only creates or sets state back)
     * @param idempotentHint calling it again with the same parameters has no further effect
     * @param openWorldHint the tool may reach beyond the layer's own domain (a shell command may reach anything)
     */
    public ToolAnnotations {
        Objects.requireNonNull(title, "title");
    }
}
