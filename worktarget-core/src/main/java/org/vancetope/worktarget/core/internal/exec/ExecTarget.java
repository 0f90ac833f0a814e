package org.vancetope.worktarget.core.internal.exec;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;

/**
 * Where and how a backend runs an {@code exec_run} call: the confined root (the working directory,
 * and the home of the job's output files), the sealed environment before the caller's extras, and the
 * scoped HOME (for the isolation wrapper).
 *
 * @param root the root the job runs in, as the backend's file tools see it
 * @param env the environment up to and including the scoped HOME; the caller's {@code env} extras are
 *            applied on top by {@link ExecTools}
 * @param home the scoped HOME, or null
 */
public record ExecTarget(ConfinedRoot root, Map<String, String> env, Path home) {
    /** Validates and copies. */
    public ExecTarget {
        Objects.requireNonNull(root, "root");
        env = Map.copyOf(Objects.requireNonNull(env, "env"));
    }
}
