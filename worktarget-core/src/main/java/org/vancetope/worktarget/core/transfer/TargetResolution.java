package org.vancetope.worktarget.core.transfer;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The answer of a {@link TargetResolver}: a validated path, or a refusal whose message goes to the
 * peer verbatim (so it never names host paths outside the root).
 *
 * @param path the validated path, or null when refused
 * @param error the refusal, or null when resolved
 */
public record TargetResolution(Path path, String error) {

    /** Exactly one of the two is set. */
    public TargetResolution {
        if ((path == null) == (error == null)) {
            throw new IllegalArgumentException("exactly one of path and error must be set");
        }
    }

    /**
     * A validated path.
     *
     * @param path the path
     * @return the resolution
     */
    public static TargetResolution resolved(Path path) {
        return new TargetResolution(Objects.requireNonNull(path, "path"), null);
    }

    /**
     * A refusal.
     *
     * @param error the message for the peer, e.g. {@code "path escapes project sandbox"}
     * @return the resolution
     */
    public static TargetResolution refused(String error) {
        return new TargetResolution(null, Objects.requireNonNull(error, "error"));
    }

    /**
     * Whether the path was resolved.
     *
     * @return true when {@link #path()} is set
     */
    public boolean ok() {
        return path != null;
    }
}
