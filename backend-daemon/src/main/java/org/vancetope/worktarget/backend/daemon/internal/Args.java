package org.vancetope.worktarget.backend.daemon.internal;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command line's parser, for every command of {@code worktarget.jar} ({@code daemon}, {@code serve},
 * {@code call}, {@code mcp}): {@code --name value} and {@code --name=value} options, {@code --flag}s, and
 * positional words; the checks of a value (a number in a range, a directory) with the messages a user sees.
 */
public final class Args {
    /** Thrown for a usage error; the message says what to pass instead. */
    public static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        /**
         * A usage error.
         *
         * @param message what was wrong and what to pass instead
         */
        public UsageException(String message) {
            super(message);
        }
    }

    private final Map<String, String> options = new LinkedHashMap<>();
    private final List<String> positional = new ArrayList<>();
    private final Set<String> flags;

    private Args(Set<String> flags) {
        this.flags = flags;
    }

    /**
     * Parses arguments.
     *
     * @param argv the arguments after the command name
     * @param known the option names accepted (without {@code --})
     * @param flags the options that take no value
     * @return the parsed arguments
     * @throws UsageException for an unknown option, a missing value, or an option given twice (a flag may be
     *                        repeated)
     */
    public static Args parse(List<String> argv, Set<String> known, Set<String> flags) throws UsageException {
        Args a = new Args(flags);
        for (int i = 0; i < argv.size(); i++) {
            String s = argv.get(i);
            if ("-h".equals(s) && flags.contains("help")) {
                a.options.put("help", "true");
            } else if (s.startsWith("--") && s.length() > 2) {
                String name = s.substring(2);
                String value = null;
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                }
                if (!known.contains(name) && !flags.contains(name)) {
                    throw new UsageException("Unknown option --" + name + ".");
                }
                if (flags.contains(name)) {
                    a.options.put(name, "true");
                    continue;
                }
                if (value == null) {
                    if (i + 1 >= argv.size()) {
                        throw new UsageException("Option --" + name + " needs a value.");
                    }
                    value = argv.get(++i);
                }
                String earlier = a.options.put(name, value);
                if (earlier != null) {
                    throw new UsageException("Option --" + name + " is given twice ('" + earlier + "' and '" + value
                            + "'); give it once.");
                }
            } else {
                a.positional.add(s);
            }
        }
        return a;
    }

    /**
     * Whether a word asks for help.
     *
     * @param s a command-line word
     * @return true for {@code --help} and {@code -h}
     */
    public static boolean isHelp(String s) {
        return "--help".equals(s) || "-h".equals(s);
    }

    /**
     * Whether a flag was given.
     *
     * @param name the flag
     * @return true when it is on the command line
     */
    public boolean flag(String name) {
        return flags.contains(name) && options.containsKey(name);
    }

    /**
     * An option's value.
     *
     * @param name the option
     * @param fallback the value when it is not given
     * @return the value
     */
    public String get(String name, String fallback) {
        return options.getOrDefault(name, fallback);
    }

    /**
     * An option that must be given.
     *
     * @param name the option
     * @return its value
     * @throws UsageException when it is missing or blank
     */
    public String require(String name) throws UsageException {
        String v = options.get(name);
        if (v == null || v.isBlank()) {
            throw new UsageException("Missing --" + name + ".");
        }
        return v;
    }

    /**
     * A whole-number option within a range.
     *
     * @param name the option
     * @param fallback the value when it is not given
     * @param min the smallest value accepted
     * @param max the largest value accepted
     * @return the value
     * @throws UsageException when it is not a number or out of range (also when too long for an int), naming
     *                        the range
     */
    public int intOption(String name, int fallback, int min, int max) throws UsageException {
        String v = options.get(name);
        if (v == null) {
            return fallback;
        }
        BigInteger n;
        try {
            n = new BigInteger(v.trim());
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be a number, got '" + v + "'.");
        }
        boolean low = n.compareTo(BigInteger.valueOf(min)) < 0;
        if (low || n.compareTo(BigInteger.valueOf(max)) > 0) {
            // an option without a chosen maximum still ends where an int does: say the bound that was crossed
            String range = max != Integer.MAX_VALUE ? "between " + min + " and " + max
                    : low ? "at least " + min : "at most " + max;
            throw new UsageException("--" + name + " must be " + range + ", got " + n + ".");
        }
        return n.intValue();
    }

    /**
     * Whether an option was given.
     *
     * @param name the option
     * @return true when it is on the command line
     */
    public boolean has(String name) {
        return options.containsKey(name);
    }

    /**
     * A directory option: the directory, absolute and normalised.
     *
     * @param name the option
     * @param fallback the value when it is not given, or null when it must be given
     * @return the directory
     * @throws UsageException when it is missing, or is not a directory
     */
    public Path directory(String name, String fallback) throws UsageException {
        String v = fallback == null ? require(name) : get(name, fallback);
        Path p = Path.of(v).toAbsolutePath().normalize();
        if (!Files.isDirectory(p)) {
            throw new UsageException("--" + name + " " + p + " is not a directory. Create it, or give another.");
        }
        return p;
    }

    /**
     * A directory option whose directory may not exist yet (it is made when first needed): the path,
     * absolute and normalised.
     *
     * @param name the option
     * @return the path, or null when the option is not given
     * @throws UsageException when it is blank, or names something that exists and is not a directory
     */
    public Path directoryOrAbsent(String name) throws UsageException {
        if (!has(name)) {
            return null;
        }
        Path p = Path.of(require(name)).toAbsolutePath().normalize();
        if (Files.exists(p) && !Files.isDirectory(p)) {
            throw new UsageException("--" + name + " " + p + " exists and is not a directory. Give a directory, or a path "
                    + "that does not exist yet (it is created when first needed).");
        }
        return p;
    }

    /**
     * The words that are not options, in order.
     *
     * @return the words
     */
    public List<String> positional() {
        return positional;
    }
}
