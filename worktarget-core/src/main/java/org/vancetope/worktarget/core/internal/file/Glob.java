package org.vancetope.worktarget.core.internal.file;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A glob on {@code '/'}-separated relative paths, the same on every file system.
 *
 * <ul>
 *   <li>{@code *} any characters except {@code '/'}; {@code ?} one such character;</li>
 *   <li>{@code **} any characters including {@code '/'}; {@code **}{@code /} also matches nothing,
 *       so {@code **}{@code /X} matches {@code X} at the walk root;</li>
 *   <li>{@code [abc]}, {@code [a-z]}, {@code [!a]} character classes; {@code {a,b}} alternatives;</li>
 *   <li>a glob without {@code '/'} matches the file name only (like {@code find -name}), so
 *       {@code *.java} finds Java files at any depth.</li>
 * </ul>
 */
final class Glob {
    /** The characters that make a glob more than plain text. */
    private static final String SPECIAL = "*?[]{},\\/";

    private final Pattern pattern;
    private final boolean nameOnly;
    /** How a simple name glob is matched without the regex: 0 = use the regex, else one of the kinds below. */
    private final int kind;
    /** The plain text of a simple name glob. */
    private final String text;
    private static final int EXACT = 1;
    private static final int SUFFIX = 2;
    private static final int PREFIX = 3;

    private Glob(Pattern pattern, boolean nameOnly, int kind, String text) {
        this.pattern = pattern;
        this.nameOnly = nameOnly;
        this.kind = kind;
        this.text = text;
    }

    /**
     * The common globs that need no regex: {@code NAME}, {@code *TEXT} and {@code TEXT*} on the file name,
     * also behind a leading {@code **}{@code /} (which lets the rest match the last component at any
     * depth, so it equals the name glob), where the text has no glob character. {@code *} never matches
     * {@code '/'} and names hold none, so these equal the regex.
     *
     * @return {@code {kind, text}} or null
     */
    private static Object[] simple(String g) {
        String rest = g;
        while (rest.startsWith("**/")) {
            rest = rest.substring(3);
        }
        if (rest.isEmpty()) {
            return null;
        }
        int kind = EXACT;
        String text = rest;
        if (rest.startsWith("*")) {
            kind = SUFFIX;
            text = rest.substring(1);
        } else if (rest.endsWith("*")) {
            kind = PREFIX;
            text = rest.substring(0, rest.length() - 1);
        }
        for (int i = 0; i < text.length(); i++) {
            if (SPECIAL.indexOf(text.charAt(i)) >= 0) {
                return null;
            }
        }
        return new Object[] {kind, text};
    }

    /**
     * Compiles a glob.
     *
     * @param glob the glob, or null / empty for "everything"
     * @return the glob, or null when everything matches
     * @throws ToolException {@code invalid_params} for a malformed glob
     */
    static Glob compile(String glob) throws ToolException {
        return compile(glob, "pathGlob");
    }

    /**
     * Compiles a glob given as a named parameter.
     *
     * @param glob the glob, or null / empty for "everything"
     * @param param the parameter it came from, for error messages (e.g. {@code "exclude"})
     * @return the glob, or null when everything matches
     * @throws ToolException {@code invalid_params} for a malformed glob
     */
    static Glob compile(String glob, String param) throws ToolException {
        if (glob == null || glob.isEmpty() || glob.equals("**") || glob.equals("**/*")) {
            return null;
        }
        if (glob.indexOf('\\') >= 0) {
            throw Params.invalid(param + " '" + glob + "' contains a backslash; use '/' as the separator.");
        }
        String g = glob.startsWith("./") ? glob.substring(2) : glob;
        boolean nameOnly = g.indexOf('/') < 0;
        StringBuilder re = new StringBuilder();
        int braces = 0;
        for (int i = 0; i < g.length(); i++) {
            char c = g.charAt(i);
            switch (c) {
                case '*' -> {
                    if (i + 1 < g.length() && g.charAt(i + 1) == '*') {
                        boolean slashAfter = i + 2 < g.length() && g.charAt(i + 2) == '/';
                        boolean atSegmentStart = i == 0 || g.charAt(i - 1) == '/';
                        if (slashAfter && atSegmentStart) {
                            re.append("(?:.*/)?");
                            i += 2;
                        } else {
                            re.append(".*");
                            i += 1;
                        }
                    } else {
                        re.append("[^/]*");
                    }
                }
                case '?' -> re.append("[^/]");
                case '[' -> {
                    int end = g.indexOf(']', i + 2);
                    if (end < 0) {
                        throw Params.invalid(param + " '" + glob + "' has an unclosed '['.");
                    }
                    String body = g.substring(i + 1, end);
                    re.append('[');
                    if (body.startsWith("!") || body.startsWith("^")) {
                        re.append('^');
                        body = body.substring(1);
                    }
                    for (char b : body.toCharArray()) {
                        if (b == '[' || b == '&' || b == '\\') {
                            re.append('\\');
                        }
                        re.append(b);
                    }
                    re.append(']');
                    i = end;
                }
                case '{' -> {
                    braces++;
                    re.append("(?:");
                }
                case '}' -> {
                    if (braces == 0) {
                        re.append("\\}");
                    } else {
                        braces--;
                        re.append(')');
                    }
                }
                case ',' -> re.append(braces > 0 ? "|" : ",");
                default -> {
                    if ("\\.^$+()|".indexOf(c) >= 0) {
                        re.append('\\');
                    }
                    re.append(c);
                }
            }
        }
        if (braces != 0) {
            throw Params.invalid(param + " '" + glob + "' has an unclosed '{'.");
        }
        try {
            Object[] simple = simple(g);
            return simple == null ? new Glob(Pattern.compile(re.toString()), nameOnly, 0, null)
                    : new Glob(Pattern.compile(re.toString()), true, (Integer) simple[0], (String) simple[1]);
        } catch (PatternSyntaxException e) {
            throw Params.invalid(param + " '" + glob + "' is not a valid glob: " + e.getDescription() + ".");
        }
    }

    /**
     * Whether a relative path matches.
     *
     * @param relative the path relative to the walk root, {@code '/'}-separated
     * @param name its last component
     * @return true on a match
     */
    boolean matches(String relative, String name) {
        return switch (kind) {
            case EXACT -> name.equals(text);
            case SUFFIX -> name.endsWith(text);
            case PREFIX -> name.startsWith(text);
            default -> pattern.matcher(nameOnly ? name : relative).matches();
        };
    }
}
