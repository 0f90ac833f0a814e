package org.vancetope.worktarget.core.internal.exec;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * Where and how a backend runs an {@code exec_run} call: the validated working directory, the sealed
 * environment before the caller's extras, the scoped HOME (for the isolation wrapper) and the output
 * directory.
 *
 * @param cwd the working directory, already checked by the backend's confinement gate
 * @param env the environment up to and including the scoped HOME; the caller's {@code env} extras are
 *            applied on top by {@link ExecTools}
 * @param home the scoped HOME, or null
 * @param outputDir where the job's output files go, or null for the engine's output root
 */
public record ExecTarget(Path cwd, Map<String, String> env, Path home, Path outputDir) {
    /** Validates and copies. */
    public ExecTarget {
        Objects.requireNonNull(cwd, "cwd");
        env = Map.copyOf(Objects.requireNonNull(env, "env"));
    }
}
