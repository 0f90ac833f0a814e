package org.vancetope.worktarget.spi;

import java.util.Locale;

/**
 * What a tool does to the world, for allow-lists, audits and the hints MCP clients show
 * ({@link ToolSpec#annotations()}).
 *
 * <p>The first three say what kind of effect the tool has. The last three refine a tool that changes
 * something; each of them claims a guarantee, so a spec that carries none of them (for instance one
 * sent by a peer that predates them) gets the cautious reading: it may destroy data, calling it twice
 * may do more than calling it once, and it may reach beyond the layer's own domain. Peers ignore
 * labels they do not know, so the refinements travel to older peers unharmed.
 */
public enum ToolLabel {
    /** Only reads; safe to retry. */
    READ_ONLY,
    /** Changes files. */
    WRITE,
    /** Has effects beyond files (runs processes, moves data between machines). */
    SIDE_EFFECT,
    /**
     * Never destroys anything: it only creates (a directory, an empty RootDir) or changes state that the
     * next call can set back (the work target); it never overwrites or deletes.
     */
    NON_DESTRUCTIVE,
    /** Calling it again with the same parameters has no further effect (deleting a deleted file). */
    IDEMPOTENT,
    /**
     * Acts only inside the layer's own domain: the work directory or RootDir, the process's jobs, its
     * work target, the transfer between the client and the server. A tool without it (a shell command)
     * may reach anything.
     */
    CLOSED_WORLD;

    /**
     * The label as written in manifests, e.g. {@code "read-only"}.
     *
     * @return the wire form
     */
    public String wire() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
