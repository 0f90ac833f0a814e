package org.vancetope.worktarget.spi;

import java.util.Locale;

/** What a tool does to the world, for allow-lists and audits. */
public enum ToolLabel {
    /** Only reads; safe to retry. */
    READ_ONLY,
    /** Changes files. */
    WRITE,
    /** Has effects beyond files (runs processes, moves data between machines). */
    SIDE_EFFECT;

    /**
     * The label as written in manifests, e.g. {@code "read-only"}.
     *
     * @return the wire form
     */
    public String wire() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
