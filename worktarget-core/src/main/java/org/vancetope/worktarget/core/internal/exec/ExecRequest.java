package org.vancetope.worktarget.core.internal.exec;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;

/**
 * One {@code exec_run} call as the engine sees it: the validated working directory, the finished
 * child environment and the job scope. The caller (a backend) has already run the confinement gate
 * on {@code cwd} and built {@code env}; the engine adds nothing to the environment but its job cookie.
 *
 * @param scope the job scope (e.g. tenant/project/session); jobs of one scope are invisible to others
 * @param command the shell command, run as {@code /bin/sh -c command}
 * @param cwd the working directory, an existing directory on the default file system
 * @param env the complete child environment (never inherited from the host)
 * @param waitMs how long {@code run} waits for the exit, or null for the engine default; capped by the engine
 * @param deadlineSeconds kill the whole tree after this many seconds, or null for no deadline
 * @param home the job's scoped HOME for the isolation wrapper's {@code {home}} placeholder, or null
 * @param outputDir where the job's two output files go, or null for the engine's output root
 */
public record ExecRequest(String scope, String command, Path cwd, Map<String, String> env, Long waitMs,
                          Long deadlineSeconds, Path home, Path outputDir) {

    /** Validates and copies. */
    public ExecRequest {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(cwd, "cwd");
        env = Map.copyOf(Objects.requireNonNull(env, "env"));
    }

    /**
     * A request with engine defaults for wait, no deadline, no home and the default output directory.
     *
     * @param scope the scope
     * @param command the command
     * @param cwd the working directory
     * @param env the environment
     * @return the request
     */
    public static ExecRequest of(String scope, String command, Path cwd, Map<String, String> env) {
        return new ExecRequest(scope, command, cwd, env, null, null, null, null);
    }
}
