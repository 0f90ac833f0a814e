package org.vancetope.worktarget.core.transfer;

import java.nio.file.Path;
import java.util.Objects;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The answer of a {@link TargetResolver}: the root directory of a transfer, or a refusal whose
 * message goes to the peer verbatim (so it never names host paths), with its stable code.
 *
 * <pre>{@code
 * return found ? TargetResolution.resolved(dir) : TargetResolution.refused(ErrorCode.NOT_FOUND, "dirName not found");
 * }</pre>
 *
 * @param root the root directory, or null when refused
 * @param error the refusal, or null when resolved
 * @param code the refusal's code, or null when resolved
 */
public record TargetResolution(Path root, String error, ErrorCode code) {

    /**
     * Exactly one of root and error is set; a refusal has a code.
     *
     * @param root the root directory, or null when refused
     * @param error the refusal, or null when resolved
     * @param code the refusal's code, or null when resolved
     */
    public TargetResolution {
        if ((root == null) == (error == null)) {
            throw new IllegalArgumentException("exactly one of root and error must be set");
        }
        if ((error == null) != (code == null)) {
            throw new IllegalArgumentException("a refusal has a code, and a root none");
        }
    }

    /**
     * A root.
     *
     * @param root the directory
     * @return the resolution
     */
    public static TargetResolution resolved(Path root) {
        return new TargetResolution(Objects.requireNonNull(root, "root"), null, null);
    }

    /**
     * A refusal.
     *
     * @param code its stable code, e.g. {@link ErrorCode#NOT_FOUND}
     * @param error the message for the peer, e.g. {@code "dirName not found"}
     * @return the resolution
     */
    public static TargetResolution refused(ErrorCode code, String error) {
        return new TargetResolution(null, Objects.requireNonNull(error, "error"), Objects.requireNonNull(code, "code"));
    }

    /**
     * A refusal of the confinement gate or the file system, with its code and message.
     *
     * @param e the failure
     * @return the resolution
     */
    public static TargetResolution refused(ToolException e) {
        return refused(e.code(), e.getMessage());
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
