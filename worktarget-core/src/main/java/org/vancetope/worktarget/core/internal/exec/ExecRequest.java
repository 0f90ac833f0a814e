package org.vancetope.worktarget.core.internal.exec;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;

/**
 * One {@code exec_run} call as the engine sees it: the confined root the job runs in (its working
 * directory, and where its output files go: {@code .worktarget/exec/} inside it, created by handle),
 * the finished child environment and the job scope. The caller (a backend) has already chosen the
 * root and built {@code env}; the engine adds nothing to the environment but its job cookie.
 *
 * @param scope the job scope (e.g. tenant/project/session); jobs of one scope are invisible to others
 * @param command the shell command, run as {@code /bin/sh -c command}
 * @param root the root the job runs in, on the default file system
 * @param env the complete child environment (never inherited from the host)
 * @param waitMs how long {@code run} waits for the exit, or null for the engine default; capped by the engine
 * @param deadlineSeconds kill the whole tree after this many seconds, or null for no deadline
 * @param home the job's scoped HOME for the isolation wrapper's {@code {home}} placeholder, or null
 * @param stdin text written (as UTF-8) to the job's standard input, which is then closed; null for an empty
 *        input ({@code /dev/null}); at most {@link ExecEngine#MAX_STDIN_BYTES} bytes
 * @param cwd the directory the command runs in, the caller's path relative to {@code root} (checked by the
 *        engine through the root's confinement, like a file tool's path); null or {@code "."} for the root
 */
public record ExecRequest(String scope, String command, ConfinedRoot root, Map<String, String> env, Long waitMs,
                          Long deadlineSeconds, Path home, String stdin, String cwd) {

    /**
     * A request that runs in the root.
     *
     * @param scope the scope
     * @param command the command
     * @param root the root
     * @param env the environment
     * @param waitMs how long {@code run} waits, or null
     * @param deadlineSeconds the deadline, or null
     * @param home the scoped HOME, or null
     * @param stdin the standard input, or null
     */
    public ExecRequest(String scope, String command, ConfinedRoot root, Map<String, String> env, Long waitMs,
                       Long deadlineSeconds, Path home, String stdin) {
        this(scope, command, root, env, waitMs, deadlineSeconds, home, stdin, null);
    }

    /**
     * A request without stdin.
     *
     * @param scope the scope
     * @param command the command
     * @param root the root
     * @param env the environment
     * @param waitMs how long {@code run} waits, or null
     * @param deadlineSeconds the deadline, or null
     * @param home the scoped HOME, or null
     */
    public ExecRequest(String scope, String command, ConfinedRoot root, Map<String, String> env, Long waitMs,
                       Long deadlineSeconds, Path home) {
        this(scope, command, root, env, waitMs, deadlineSeconds, home, null, null);
    }

    /** Validates and copies. */
    public ExecRequest {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(root, "root");
        env = Map.copyOf(Objects.requireNonNull(env, "env"));
    }

    /**
     * A request with engine defaults for wait, no deadline and no home.
     *
     * @param scope the scope
     * @param command the command
     * @param root the root
     * @param env the environment
     * @return the request
     */
    public static ExecRequest of(String scope, String command, ConfinedRoot root, Map<String, String> env) {
        return new ExecRequest(scope, command, root, env, null, null, null, null, null);
    }
}
