package org.vancetope.worktarget.core.internal.home;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Builds the sealed child environment of an exec job: never inherited, always built in
 * this order — a base allow-list copied from the host ({@code PATH}, {@code LANG}, {@code LC_*},
 * {@code TZ}, {@code TERM} …), then the settings for a job that no one answers
 * ({@link #NON_INTERACTIVE}: editors, pagers, git's prompts, apt's dialogs, Python's buffer), then the scoped HOME (with
 * {@code XDG_CACHE_HOME} and {@code XDG_CONFIG_HOME} under it), then the caller's extras, which may
 * override anything, {@code HOME} and {@code PATH} included. A secret in the host environment is
 * invisible to a job.
 *
 * <pre>{@code
 * ExecEnvPolicy work = ExecEnvPolicy.work(System.getenv());
 * Map<String, String> env = work.environment(home.dir(), Map.of("CI", "true"));
 * }</pre>
 *
 * <p>The CLIENT preset ({@link #client}) keeps the user's own HOME (and USER, LOGNAME, SHELL): on the
 * user's machine their home is the right one. It does not pass anything else of the host.
 */
public final class ExecEnvPolicy {
    /** The default base allow-list; names ending in {@code *} are prefixes. */
    public static final List<String> DEFAULT_ALLOW = List.of("PATH", "LANG", "LANGUAGE", "LC_*", "TZ", "TERM", "TMPDIR");
    /** What the CLIENT preset keeps in addition. */
    public static final List<String> CLIENT_IDENTITY = List.of("HOME", "USER", "LOGNAME", "SHELL");
    /**
     * What every job gets unless the allow-list copied the variable from the host or the caller sets it: a job
     * has no terminal and no one to answer, so an editor accepts what it is given ({@code git commit --amend},
     * {@code git rebase --continue}, {@code git revert} keep their default message instead of starting
     * {@code vi}, which waits on a missing terminal and fills the output with its escape sequences), pagers
     * print, git fails at once instead of asking for a user name or password, Debian's package tools take
     * their defaults instead of trying one dialog after another, and Python writes what it prints at once
     * rather than in blocks of 8 KiB (a running job's {@code exec_status} and {@code exec_tail} show its
     * progress, and what it printed before it was killed is not lost).
     */
    public static final Map<String, String> NON_INTERACTIVE = Map.of("GIT_EDITOR", "true", "EDITOR", "true",
            "VISUAL", "true", "GIT_PAGER", "cat", "PAGER", "cat", "GIT_TERMINAL_PROMPT", "0",
            "DEBIAN_FRONTEND", "noninteractive", "PYTHONUNBUFFERED", "1");
    /** PATH when the host has none. */
    public static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    private final Map<String, String> hostEnv;
    private final Set<String> allow;
    private final boolean keepHostHome;

    private ExecEnvPolicy(Map<String, String> hostEnv, Set<String> allow, boolean keepHostHome) {
        this.hostEnv = Map.copyOf(hostEnv);
        this.allow = Set.copyOf(allow);
        this.keepHostHome = keepHostHome;
    }

    /**
     * The WORK preset: the default allow-list and the scoped HOME.
     *
     * @param hostEnv the host environment, e.g. {@code System.getenv()}
     * @return the policy
     */
    public static ExecEnvPolicy work(Map<String, String> hostEnv) {
        return new ExecEnvPolicy(hostEnv, new LinkedHashSet<>(DEFAULT_ALLOW), false);
    }

    /**
     * The CLIENT preset: the default allow-list plus the user's HOME, USER, LOGNAME and SHELL.
     *
     * @param hostEnv the host environment
     * @return the policy
     */
    public static ExecEnvPolicy client(Map<String, String> hostEnv) {
        Set<String> allow = new LinkedHashSet<>(DEFAULT_ALLOW);
        allow.addAll(CLIENT_IDENTITY);
        return new ExecEnvPolicy(hostEnv, allow, true);
    }

    /**
     * A policy with an own allow-list.
     *
     * @param hostEnv the host environment
     * @param allow the names to copy from the host; a name ending in {@code *} is a prefix
     * @param keepHostHome whether HOME comes from the host (CLIENT) instead of the scoped home
     * @return the policy
     */
    public static ExecEnvPolicy of(Map<String, String> hostEnv, Set<String> allow, boolean keepHostHome) {
        return new ExecEnvPolicy(Objects.requireNonNull(hostEnv, "hostEnv"), allow, keepHostHome);
    }

    /**
     * Whether HOME comes from the host.
     *
     * @return true for the CLIENT preset
     */
    public boolean keepsHostHome() {
        return keepHostHome;
    }

    /**
     * Builds a job's environment.
     *
     * @param scopedHome the scoped HOME, or null (ignored when the policy keeps the host's HOME)
     * @param extras the caller's extras, applied last
     * @return the environment, in build order
     * @throws ToolException {@code invalid_params} for an extra whose name is empty or holds {@code =} or
     *                       NUL, or whose value holds NUL
     */
    public Map<String, String> environment(Path scopedHome, Map<String, String> extras) throws ToolException {
        Map<String, String> env = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : hostEnv.entrySet()) {
            if (allowed(e.getKey())) {
                env.put(e.getKey(), e.getValue());
            }
        }
        env.putIfAbsent("PATH", DEFAULT_PATH);
        NON_INTERACTIVE.forEach(env::putIfAbsent);
        if (!keepHostHome && scopedHome != null) {
            String home = scopedHome.toString();
            env.put("HOME", home);
            env.put("XDG_CACHE_HOME", scopedHome.resolve(".cache").toString());
            env.put("XDG_CONFIG_HOME", scopedHome.resolve(".config").toString());
        }
        return withExtras(env, extras);
    }

    /**
     * Applies caller extras on top of an environment: the last step of the build order, where extras
     * may override anything, {@code HOME} and {@code PATH} included.
     *
     * @param env the environment so far
     * @param extras the caller's extras
     * @return a new map: {@code env} overridden by {@code extras}
     * @throws ToolException {@code invalid_params} for an extra whose name is empty or holds {@code =} or
     *                       NUL, or whose value holds NUL
     */
    public static Map<String, String> withExtras(Map<String, String> env, Map<String, String> extras) throws ToolException {
        Map<String, String> out = new LinkedHashMap<>(env);
        for (Map.Entry<String, String> e : extras.entrySet()) {
            String k = e.getKey();
            String v = e.getValue();
            if (k == null || k.isEmpty() || k.indexOf('=') >= 0 || k.indexOf('\0') >= 0) {
                throw new ToolException(ErrorCode.INVALID_PARAMS, "Environment variable names in 'env' must be non-empty "
                        + "and must not contain '=' or NUL.");
            }
            if (v == null || v.indexOf('\0') >= 0) {
                throw new ToolException(ErrorCode.INVALID_PARAMS, "The value of environment variable '" + k
                        + "' must be a string without NUL characters.");
            }
            out.put(k, v);
        }
        return out;
    }

    private boolean allowed(String name) {
        if (allow.contains(name)) {
            return true;
        }
        for (String a : allow) {
            if (a.endsWith("*") && name.startsWith(a.substring(0, a.length() - 1))) {
                return true;
            }
        }
        return false;
    }
}
