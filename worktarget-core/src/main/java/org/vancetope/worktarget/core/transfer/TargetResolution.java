package org.vancetope.worktarget.core.transfer;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The answer of a {@link TargetResolver}: the root directory of a transfer, or a refusal whose
 * message goes to the peer verbatim (so it never names host paths).
 *
 * @param root the root directory, or null when refused
 * @param error the refusal, or null when resolved
 */
public record TargetResolution(Path root, String error) {

    /**
     * Exactly one of the two is set.
     *
     * @param root the root directory, or null when refused
     * @param error the refusal, or null when resolved
     */
    public TargetResolution {
        if ((root == null) == (error == null)) {
            throw new IllegalArgumentException("exactly one of root and error must be set");
        }
    }

    /**
     * A root.
     *
     * @param root the directory
     * @return the resolution
     */
    public static TargetResolution resolved(Path root) {
        return new TargetResolution(Objects.requireNonNull(root, "root"), null);
    }

    /**
     * A refusal.
     *
     * @param error the message for the peer, e.g. {@code "dirName not found"}
     * @return the resolution
     */
    public static TargetResolution refused(String error) {
        return new TargetResolution(null, Objects.requireNonNull(error, "error"));
    }

    /**
     * Whether a root was found.
     *
     * @return true when {@link #root()} is set
     */
    public boolean ok() {
        return root != null;
    }
}
