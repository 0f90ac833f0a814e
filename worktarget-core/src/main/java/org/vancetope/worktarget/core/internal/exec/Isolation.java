package org.vancetope.worktarget.core.internal.exec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.ExecSettings.IsolationMode;
import org.vancetope.worktarget.core.internal.home.ExecEnvPolicy;

/**
 * Opt-in OS isolation of exec jobs: mode {@code none} runs
 * {@code /bin/sh -c <cmd>} directly; mode {@code custom} wraps it in a tool such as bubblewrap, built
 * from a template whose placeholders are replaced inside argv elements — the template is split into
 * argv once, at build time, and never passes through a shell.
 *
 * <p>Placeholders: {@code {workdir}} (the job's working directory), {@code {home}} (the job's scoped
 * HOME, or the working directory when it has none), {@code {cmd}} (the command, exactly one whole
 * argv element, required) and {@code {env}} (optional, a whole element: expands to
 * {@code --setenv KEY VALUE} for every variable of the sealed environment, for wrappers that clear
 * the environment; the values are then on the wrapper's command line, which every local user sees in
 * {@code ps}, so prefer a wrapper that passes its own environment on, as the shipped template does: the
 * wrapper process gets the sealed environment). Tokens are separated by blanks; single or double quotes group a token
 * literally (no escapes, no expansions).
 *
 * <pre>{@code
 * Isolation iso = Isolation.fromConfig(IsolationMode.CUSTOM, Isolation.defaultBubblewrapTemplate(), System::getenv);
 * }</pre>
 *
 * <p>An invalid configuration fails in {@link #fromConfig} with a message saying what to fix; it
 * never falls back to no isolation. This class does not check that the wrapper actually isolates.
 */
public final class Isolation {
    private static final Logger LOG = LoggerFactory.getLogger(Isolation.class);
    /** The environment variable that overrides the configured mode. */
    public static final String MODE_ENV = "VANCE_EXEC_ISOLATION_MODE";
    /** The placeholder for the working directory. */
    public static final String WORKDIR = "{workdir}";
    /** The placeholder for the scoped HOME. */
    public static final String HOME = "{home}";
    /** The placeholder for the command. */
    public static final String CMD = "{cmd}";
    /** The placeholder for the sealed environment as {@code --setenv} triples. */
    public static final String ENV = "{env}";

    private static final Isolation NONE = new Isolation(IsolationMode.NONE, List.of(), "");

    private final IsolationMode mode;
    private final List<String> template;
    private final String source;

    private Isolation(IsolationMode mode, List<String> template, String source) {
        this.mode = mode;
        this.template = template;
        this.source = source;
    }

    /**
     * No isolation.
     *
     * @return the instance
     */
    public static Isolation none() {
        return NONE;
    }

    /**
     * Isolation by a wrapper template.
     *
     * @param wrapper the template, e.g. {@code "bwrap --bind {workdir} {workdir} --chdir {workdir} /bin/sh -c {cmd}"}
     * @return the isolation
     * @throws IllegalArgumentException when the template is invalid; the message says what to fix
     */
    public static Isolation custom(String wrapper) {
        if (wrapper == null || wrapper.isBlank()) {
            throw new IllegalArgumentException("exec isolation mode 'custom' needs a wrapper template with a "
                    + CMD + " placeholder, e.g. " + defaultBubblewrapTemplate() + "; or set mode 'none'.");
        }
        List<String> tokens = tokenize(wrapper);
        int cmds = 0;
        int envs = 0;
        for (String t : tokens) {
            if (t.equals(CMD)) {
                cmds++;
            } else if (t.contains(CMD)) {
                throw new IllegalArgumentException("exec isolation wrapper: " + CMD + " must be a whole argument on its "
                        + "own (it becomes exactly one argv element), not part of '" + t + "'.");
            }
            if (t.equals(ENV)) {
                envs++;
            } else if (t.contains(ENV)) {
                throw new IllegalArgumentException("exec isolation wrapper: " + ENV + " must be a whole argument on its "
                        + "own, not part of '" + t + "'.");
            }
            String rest = t.replace(CMD, "").replace(ENV, "").replace(WORKDIR, "").replace(HOME, "");
            int open = rest.indexOf('{');
            if (open >= 0 && rest.indexOf('}', open) > open) {
                throw new IllegalArgumentException("exec isolation wrapper: unknown placeholder in '" + t
                        + "'; known are " + WORKDIR + ", " + HOME + ", " + CMD + " and " + ENV + ".");
            }
        }
        if (cmds != 1) {
            throw new IllegalArgumentException("exec isolation wrapper must contain the placeholder " + CMD
                    + " exactly once as its own argument, found " + cmds + " in: " + wrapper);
        }
        if (envs > 1) {
            throw new IllegalArgumentException("exec isolation wrapper may contain " + ENV + " at most once.");
        }
        if (tokens.get(0).startsWith("{")) {
            throw new IllegalArgumentException("exec isolation wrapper must start with the wrapper program, not a "
                    + "placeholder: " + wrapper);
        }
        return new Isolation(IsolationMode.CUSTOM, List.copyOf(tokens), wrapper);
    }

    /**
     * Builds the isolation from configuration, with the mode overridable by the environment variable
     * {@value #MODE_ENV} (read with {@link IsolationMode#parse}; blank or unset means no override).
     *
     * @param mode the configured mode; null means {@link IsolationMode#NONE}
     * @param wrapper the wrapper template (used by {@link IsolationMode#CUSTOM})
     * @param envLookup reads a host environment variable, e.g. {@code System::getenv}
     * @return the isolation
     * @throws IllegalArgumentException when the override is not a mode or the template is invalid
     */
    public static Isolation fromConfig(IsolationMode mode, String wrapper, UnaryOperator<String> envLookup) {
        Objects.requireNonNull(envLookup, "envLookup");
        String override = envLookup.apply(MODE_ENV);
        IsolationMode effective = mode == null ? IsolationMode.NONE : mode;
        if (override != null && !override.isBlank()) {
            try {
                effective = IsolationMode.parse(override);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("exec isolation mode '" + override + "' from environment variable "
                        + MODE_ENV + " is unknown; use 'none' or 'custom' (any case).", e);
            }
        }
        if (effective != IsolationMode.CUSTOM) {
            return NONE;
        }
        // where the jobs find their programs: the host's PATH, or the default a job gets when the host has none
        String path = envLookup.apply("PATH");
        Isolation iso = custom(wrapper).withResolvedProgram(path == null ? ExecEnvPolicy.DEFAULT_PATH : path);
        if (keepsCapabilitiesOfRoot(iso.template) && runsAsRoot()) {
            LOG.warn("The isolation wrapper '{}' runs bubblewrap without --cap-drop ALL while this server runs as root:"
                    + " every job keeps all capabilities (it can mount file systems and open any file of the host)."
                    + " Add --cap-drop ALL to the template, or run the server as another user.", iso.source);
        }
        return iso;
    }

    /** Whether a template runs bubblewrap and leaves root's capabilities to the job. */
    static boolean keepsCapabilitiesOfRoot(List<String> words) {
        return !words.isEmpty() && Path.of(words.get(0)).getFileName().toString().equals("bwrap")
                && !words.contains("--cap-drop") && !words.contains("--unshare-user");
    }

    private static boolean runsAsRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    String[] ids = line.substring(4).trim().split("\\s+");
                    return ids.length > 1 && ids[1].equals("0");
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux: no bubblewrap either
        }
        return false;
    }

    /**
     * The shipped bubblewrap template: read-only {@code /usr}, {@code /bin}, {@code /lib} (and
     * {@code /lib64}, {@code /etc/ssl} where present), a private {@code /dev}, {@code /proc} and
     * {@code /tmp}, the job's HOME and working directory read-write, no network, a new session and PID, IPC
     * and UTS namespace, death with the parent, no capabilities (also when the server runs as root), the
     * kernel's settings ({@code /proc/sys}) read-only and {@code /proc/sysrq-trigger} masked, and the sealed
     * environment as bubblewrap's own (never on its command line).
     *
     * @return the template
     */
    public static String defaultBubblewrapTemplate() {
        return defaultBubblewrapTemplate(p -> Files.exists(Path.of(p)));
    }

    static String defaultBubblewrapTemplate(Predicate<String> exists) {
        // --cap-drop ALL: a server that runs as root would otherwise hand every job all capabilities
        // (mount, open_by_handle_at: the host's whole file system, other tenants' files, leaving the job's group)
        // --unshare-ipc, --unshare-uts: no shared memory or semaphores of the host's processes, and a host and
        // domain name of the job's own
        StringBuilder sb = new StringBuilder("bwrap --die-with-parent --new-session --unshare-pid --unshare-net"
                + " --unshare-ipc --unshare-uts --cap-drop ALL");
        for (String dir : List.of("/usr", "/bin", "/lib", "/lib64", "/etc/ssl")) {
            if (dir.equals("/usr") || dir.equals("/bin") || dir.equals("/lib") || exists.test(dir)) {
                sb.append(" --ro-bind ").append(dir).append(' ').append(dir);
            }
        }
        // /proc/sys read-only: the kernel lets user id 0 write the host's settings there without any capability
        // (kernel.core_pattern runs a program of the job's choosing as root on the host at the next crash)
        sb.append(" --dev /dev --proc /proc --ro-bind /proc/sys /proc/sys");
        if (exists.test("/proc/sysrq-trigger")) {
            sb.append(" --ro-bind /dev/null /proc/sysrq-trigger");     // root could reboot or freeze the host
        }
        sb.append(" --tmpfs /tmp");
        sb.append(" --bind ").append(HOME).append(' ').append(HOME);
        sb.append(" --bind ").append(WORKDIR).append(' ').append(WORKDIR);
        sb.append(" --chdir ").append(WORKDIR);
        // no --clearenv {env}: the job gets bubblewrap's own environment, which the engine seals; as --setenv
        // arguments its values (tokens a caller passed in exec_run.env) would be on a command line that
        // every user of the machine sees in ps
        sb.append(" /bin/sh -c ").append(CMD);
        return sb.toString();
    }

    /**
     * Where a program is on a PATH: the first directory of it that holds an executable file of that name.
     *
     * @param program the name, without a slash
     * @param pathVariable the PATH, or null
     * @return the file, or null when no directory holds one
     */
    static Path onPath(String program, String pathVariable) {
        if (pathVariable == null) {
            return null;
        }
        for (String dir : pathVariable.split(":")) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, program);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    private Isolation withResolvedProgram(String path) {
        String program = template.get(0);
        if (program.contains("/")) {
            if (!Files.isExecutable(Path.of(program))) {
                throw new IllegalArgumentException("exec isolation wrapper program " + program
                        + " does not exist or is not executable; install it or set the isolation mode to 'none'.");
            }
            return this;
        }
        Path found = onPath(program, path);
        if (found != null) {
            List<String> resolved = new ArrayList<>(template);
            resolved.set(0, found.toString());
            return new Isolation(mode, List.copyOf(resolved), source);
        }
        throw new IllegalArgumentException("exec isolation wrapper program '" + program + "' is not on the PATH; "
                + "install it (for bubblewrap: the 'bubblewrap' package) or set the isolation mode to 'none'.");
    }

    /**
     * The mode.
     *
     * @return the mode
     */
    public IsolationMode mode() {
        return mode;
    }

    /**
     * Whether commands are wrapped.
     *
     * @return true for {@link IsolationMode#CUSTOM}
     */
    public boolean active() {
        return mode == IsolationMode.CUSTOM;
    }

    /**
     * Whether what a job leaves running in the background ends with its shell: the wrapper gives it a PID
     * namespace of its own ({@code --unshare-pid} or {@code --unshare-all} of bubblewrap), whose processes the
     * kernel ends when its first one, the wrapper's, exits after the shell.
     *
     * @return true for such a wrapper
     */
    public boolean endsBackgroundWithShell() {
        return active() && (template.contains("--unshare-pid") || template.contains("--unshare-all"));
    }

    /**
     * Whether the wrapper gives a job no network: a network namespace of its own ({@code --unshare-net} or
     * {@code --unshare-all} of bubblewrap, without {@code --share-net}), which holds nothing but a loopback.
     *
     * @return true for such a wrapper
     */
    public boolean cutsNetwork() {
        return active() && (template.contains("--unshare-net") || template.contains("--unshare-all"))
                && !template.contains("--share-net");
    }

    /**
     * Whether the command reaches a shell as its {@code -c} script: always without a wrapper, and with one
     * whose {@value #CMD} follows {@code -c} (the shipped template). Only then may the engine put a line of
     * its own in front of the command.
     *
     * @return true when the command is a shell script
     */
    public boolean takesShellCommand() {
        int at = template.indexOf(CMD);
        return !active() || (at > 0 && template.get(at - 1).equals("-c"));
    }

    /**
     * The argv of a job.
     *
     * @param shell the shell, e.g. {@code /bin/sh}
     * @param command the command
     * @param workdir the working directory
     * @param home the scoped HOME, or null
     * @param env the sealed environment
     * @return the argv
     */
    public List<String> argv(String shell, String command, Path workdir, Path home, Map<String, String> env) {
        if (!active()) {
            return List.of(shell, "-c", command);
        }
        String wd = workdir.toString();
        String hm = home == null ? wd : home.toString();
        List<String> out = new ArrayList<>(template.size() + env.size() * 3);
        for (String t : template) {
            if (t.equals(CMD)) {
                out.add(command);
            } else if (t.equals(ENV)) {
                env.forEach((k, v) -> {
                    out.add("--setenv");
                    out.add(k);
                    out.add(v);
                });
            } else {
                out.add(t.replace(WORKDIR, wd).replace(HOME, hm));
            }
        }
        return out;
    }

    /**
     * Splits a template into tokens: blanks separate, quotes group literally.
     *
     * @param template the template
     * @return the tokens
     * @throws IllegalArgumentException on an unterminated quote or an empty template
     */
    static List<String> tokenize(String template) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean inToken = false;
        char quote = 0;
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    cur.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                inToken = true;
            } else if (Character.isWhitespace(c)) {
                if (inToken) {
                    out.add(cur.toString());
                    cur.setLength(0);
                    inToken = false;
                }
            } else {
                cur.append(c);
                inToken = true;
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("exec isolation wrapper has an unterminated " + quote + " quote: " + template);
        }
        if (inToken) {
            out.add(cur.toString());
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("exec isolation wrapper template is empty");
        }
        return out;
    }

    @Override
    public String toString() {
        return active() ? "Isolation[custom: " + source + "]" : "Isolation[none]";
    }
}
