package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;

/**
 * The {@code .gitignore} rules that apply to one directory of a walk: a chain of layers, one per
 * ignore file, the deepest first. {@code file_grep} and {@code file_find} skip what they ignore unless
 * {@code includeIgnored} is true.
 *
 * <p>Read: the {@code .gitignore} of every directory from the root of the gate down to the searched
 * directory and of every directory walked below it, each applying to its own subtree; and
 * {@code .git/info/exclude} of a directory that holds a {@code .git} directory, below that directory's
 * {@code .gitignore} in precedence. Ignore files are read through the walk's open directories without
 * following links (a {@code .gitignore} that is a link is not read), never above the gate's root, and
 * only up to {@value #MAX_FILE_BYTES} bytes (a larger one is not read at all). A directory that holds a
 * {@code .git} (a directory, or the file of a submodule or worktree) starts a repository of its own: the
 * ignore files above it do not apply inside it, as for git and ripgrep.
 *
 * <p>Supported, as git does: blank lines and {@code #} comments; {@code \#}, {@code \!} and
 * {@code \ } (a kept trailing space) escapes; {@code !} negation (the last matching rule of the deepest
 * file wins; a file in an ignored directory cannot be re-included, since that directory is not
 * entered); a trailing {@code /} matches directories only; a pattern with a {@code /} at its start or
 * in its middle is anchored to its file's directory, one without matches a name at any depth;
 * {@code *}, {@code ?} and {@code [...]} (with {@code !} or {@code ^} negation, and the classes
 * {@code [:alnum:]}, {@code [:digit:]} and the others of git, in ASCII) never match {@code /};
 * a leading {@code **}{@code /}, a trailing {@code /**} and an inner {@code /**}{@code /} match any
 * number of directories; other runs of {@code *} act as one {@code *}.
 *
 * <p>Not supported: the global {@code core.excludesFile}, {@code .gitignore} files above the gate's
 * root, git's case-folding setting {@code core.ignorecase} (matching is case-sensitive), and tracked
 * files (git never ignores a committed file; this matcher only sees the patterns).
 */
final class GitIgnore {
    /** The largest ignore file read. */
    static final int MAX_FILE_BYTES = 256 * 1024;

    /**
     * One pattern line.
     *
     * @param pattern the compiled pattern
     * @param negated whether it re-includes ({@code !})
     * @param dirOnly whether it matches directories only (a trailing {@code /})
     * @param anchored whether it matches the path from its file's directory, not the name
     */
    record Rule(Glob.Nfa pattern, boolean negated, boolean dirOnly, boolean anchored) {
        boolean matches(String path, String name, boolean isDir) {
            if (dirOnly && !isDir) {
                return false;
            }
            return pattern.matches(anchored ? path : name);
        }
    }

    private final GitIgnore parent;
    private final List<Rule> rules;
    /** What goes before a walk-relative path (after {@code strip}) to make it relative to this layer's directory. */
    private final String lead;
    /** The layer's directory relative to the walk base, with a trailing {@code '/'} ({@code ""} for the base or above). */
    private final String strip;

    private GitIgnore(GitIgnore parent, List<Rule> rules, String lead, String strip) {
        this.parent = parent;
        this.rules = rules;
        this.lead = lead;
        this.strip = strip;
    }

    /**
     * The rules above a walk: those of the ignore files from the gate's root down to the parent of
     * {@code base} ({@code base}'s own are read by the walk).
     *
     * @param gate the gate
     * @param base the directory walked
     * @return the chain (never null; possibly without rules)
     */
    static GitIgnore above(ConfinedRoot gate, Path base) {
        GitIgnore chain = new GitIgnore(null, List.of(), "", "");
        String rel = gate.relative(base);
        if (rel.equals(".")) {
            return chain;
        }
        String[] parts = rel.split("/");
        Path dir = gate.root();
        for (int i = 0; i < parts.length; i++) {
            StringBuilder lead = new StringBuilder();
            for (int j = i; j < parts.length; j++) {
                lead.append(parts[j]).append('/');
            }
            try (SafeDirectory d = gate.open(dir)) {
                chain = chain.read(d, lead.toString(), "");
            } catch (IOException | RuntimeException e) {
                // an unreadable ancestor adds no rules
            }
            dir = dir.resolve(parts[i]);
        }
        return chain;
    }

    /**
     * The chain for a directory of the walk: this chain plus the directory's own ignore files.
     *
     * @param dir the directory, open
     * @param entries its entries (as {@link SafeDirectory#entries()} gives them)
     * @param rel its path relative to the walk base ({@code ""} for the base)
     * @return the chain, this one when the directory has no ignore file
     */
    GitIgnore enter(SafeDirectory dir, List<Path> entries, String rel) {
        for (Path e : entries) {
            String n = e.toString();
            if (n.equals(".gitignore") || n.equals(".git")) {
                return read(dir, "", rel.isEmpty() ? "" : rel + "/");
            }
        }
        return this;
    }

    private GitIgnore read(SafeDirectory dir, String lead, String strip) {
        GitIgnore chain = this;
        try {
            BasicFileAttributes git = dir.attributes(".git");
            if (git.isDirectory() || git.isRegularFile()) {
                // a repository of its own (a nested clone, a submodule's .git file): as for git and ripgrep,
                // the ignore files of the directories above it are another repository's and do not apply
                chain = new GitIgnore(null, List.of(), lead, strip);
            }
            if (git.isDirectory()) {
                try (SafeDirectory g = dir.openChild(".git"); SafeDirectory info = g.openChild("info")) {
                    List<Rule> r = parse(readSmall(info, "exclude"));
                    if (!r.isEmpty()) {
                        chain = new GitIgnore(chain, r, lead, strip);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // no .git/info/exclude
        }
        try {
            List<Rule> r = parse(readSmall(dir, ".gitignore"));
            if (!r.isEmpty()) {
                chain = new GitIgnore(chain, r, lead, strip);
            }
        } catch (IOException | RuntimeException e) {
            // no readable .gitignore
        }
        return chain;
    }

    /** A regular file's text (links are not followed), or "" when it is missing, not regular or too large. */
    private static String readSmall(SafeDirectory dir, String name) throws IOException {
        BasicFileAttributes a = dir.attributes(name);
        if (!a.isRegularFile() || a.size() > MAX_FILE_BYTES) {
            return "";
        }
        ByteBuffer bb = ByteBuffer.allocate((int) a.size() + 1);
        try (SeekableByteChannel ch = dir.openRead(name)) {
            while (bb.hasRemaining() && ch.read(bb) > 0) {
                // read it whole
            }
        }
        if (bb.position() > MAX_FILE_BYTES) {
            return "";
        }
        return new String(bb.array(), 0, bb.position(), StandardCharsets.UTF_8);
    }

    /**
     * Whether an entry of the walk is ignored.
     *
     * @param rel its path relative to the walk base
     * @param name its name
     * @param isDir whether it is a directory
     * @return true when the deciding rule ignores it
     */
    boolean ignored(String rel, String name, boolean isDir) {
        for (GitIgnore g = this; g != null; g = g.parent) {
            if (g.rules.isEmpty() || !rel.startsWith(g.strip)) {
                continue;
            }
            String path = g.lead + rel.substring(g.strip.length());
            for (int i = g.rules.size() - 1; i >= 0; i--) {
                Rule r = g.rules.get(i);
                if (r.matches(path, name, isDir)) {
                    return !r.negated();
                }
            }
        }
        return false;
    }

    /**
     * Parses the text of an ignore file.
     *
     * @param text the text
     * @return its rules, in file order
     */
    static List<Rule> parse(String text) {
        List<Rule> out = new ArrayList<>();
        // git skips a UTF-8 byte order mark at the start of the file (editors on Windows write one)
        String body = text.startsWith("\uFEFF") ? text.substring(1) : text;
        for (String raw : body.split("\n", -1)) {
            Rule r = rule(raw);
            if (r != null) {
                out.add(r);
            }
        }
        return out;
    }

    /**
     * One line as a rule.
     *
     * @param raw the line
     * @return the rule, or null for a blank line, a comment or a line that matches nothing
     */
    static Rule rule(String raw) {
        String line = raw.endsWith("\r") ? raw.substring(0, raw.length() - 1) : raw;
        int end = line.length();
        while (end > 0 && line.charAt(end - 1) == ' ' && (end < 2 || line.charAt(end - 2) != '\\')) {
            end--;
        }
        line = line.substring(0, end);
        if (line.isEmpty() || line.startsWith("#")) {
            return null;
        }
        boolean negated = false;
        if (line.startsWith("!")) {
            negated = true;
            line = line.substring(1);
        }
        boolean dirOnly = false;
        if (line.endsWith("/") && !line.endsWith("\\/")) {
            dirOnly = true;
            line = line.substring(0, line.length() - 1);
        }
        boolean anchored = line.indexOf('/') >= 0;
        if (line.startsWith("/")) {
            line = line.substring(1);
        }
        if (line.isEmpty()) {
            return null;
        }
        List<Object> parts = parts(line);
        return parts == null ? null : new Rule(Glob.Nfa.of(parts), negated, dirOnly, anchored);
    }

    /**
     * The parts of a pattern (without its leading {@code '/'}, {@code '!'} and trailing {@code '/'}) for the
     * glob automaton ({@link Glob.Nfa}): matched one character at a time, never backtracking, so that an
     * ignore file in a tree the agent did not write cannot make a search take minutes per name.
     *
     * @return the parts, or null for a pattern git would not match anything with (a range whose end comes
     *         before its start)
     */
    static List<Object> parts(String p) {
        List<Object> out = new ArrayList<>();
        int n = p.length();
        for (int i = 0; i < n; i++) {
            char c = p.charAt(i);
            switch (c) {
                case '*' -> {
                    int j = i;
                    while (j < n && p.charAt(j) == '*') {
                        j++;
                    }
                    boolean segmentStart = i == 0 || p.charAt(i - 1) == '/';
                    if (j - i == 2 && segmentStart && j == n) {
                        out.add(Glob.Nfa.DOUBLE_STAR);      // trailing /** (or a lone **): everything inside
                    } else if (j - i == 2 && segmentStart && p.charAt(j) == '/') {
                        out.add(Glob.Nfa.DIRS);             // **/ : zero or more directories
                        j++;
                    } else {
                        out.add(Glob.Nfa.STAR);
                    }
                    i = j - 1;
                }
                case '?' -> out.add(Glob.Nfa.ONE);
                case '[' -> {
                    int close = classEnd(p, i);
                    if (close < 0) {
                        out.add((int) '[');
                    } else {
                        int[][] cls = charClass(p, i + 1, close);
                        if (cls == null) {
                            return null;
                        }
                        out.add(cls);
                        i = close;
                    }
                }
                case '\\' -> {
                    if (i + 1 < n) {
                        int cp = p.codePointAt(i + 1);
                        out.add(cp);
                        i += Character.charCount(cp);
                    }
                }
                default -> {
                    int cp = p.codePointAt(i);
                    out.add(cp);
                    i += Character.charCount(cp) - 1;
                }
            }
        }
        return out;
    }

    /**
     * The class between {@code '['} (before {@code from}) and {@code close}: a leading {@code '!'} or
     * {@code '^'} negates it, a backslash takes the next character as it is, and an unescaped {@code '-'}
     * between two characters makes a range.
     */
    private static int[][] charClass(String p, int from, int close) {
        int k = from;
        boolean negated = p.charAt(k) == '!' || p.charAt(k) == '^';
        if (negated) {
            k++;
        }
        List<int[]> items = new ArrayList<>();     // {character, escaped}
        List<Integer> named = new ArrayList<>();   // the ranges of [:name:] classes
        while (k < close) {
            int cp = p.codePointAt(k);
            int nameEnd = cp == '[' && k + 1 < close && p.charAt(k + 1) == ':' ? p.indexOf(":]", k + 2) : -1;
            if (nameEnd > 0 && nameEnd < close) {
                int[] posix = POSIX_CLASSES.get(p.substring(k + 2, nameEnd));
                if (posix == null) {
                    return null;        // git matches nothing with an unknown class
                }
                for (int v : posix) {
                    named.add(v);
                }
                k = nameEnd + 2;
            } else if (cp == '\\' && k + 1 < close) {
                int next = p.codePointAt(k + 1);
                items.add(new int[] {next, 1});
                k += 1 + Character.charCount(next);
            } else {
                items.add(new int[] {cp, 0});
                k += Character.charCount(cp);
            }
        }
        int[] ranges = new int[items.size() * 2];
        int r = 0;
        for (int i = 0; i < items.size(); i++) {
            int first = items.get(i)[0];
            int last = first;
            if (i + 2 < items.size() && items.get(i + 1)[0] == '-' && items.get(i + 1)[1] == 0) {
                last = items.get(i + 2)[0];
                if (last < first) {
                    return null;
                }
                i += 2;
            }
            ranges[r++] = first;
            ranges[r++] = last;
        }
        int[] all = java.util.Arrays.copyOf(ranges, r + named.size());
        for (int v : named) {
            all[r++] = v;
        }
        return Glob.Nfa.charClass(all, negated);
    }

    /** The character classes git accepts in brackets ({@code [[:digit:]]}), as ASCII ranges. */
    private static final java.util.Map<String, int[]> POSIX_CLASSES = java.util.Map.ofEntries(
            java.util.Map.entry("alnum", new int[] {'0', '9', 'A', 'Z', 'a', 'z'}),
            java.util.Map.entry("alpha", new int[] {'A', 'Z', 'a', 'z'}),
            java.util.Map.entry("blank", new int[] {' ', ' ', '\t', '\t'}),
            java.util.Map.entry("cntrl", new int[] {0, 31, 127, 127}),
            java.util.Map.entry("digit", new int[] {'0', '9'}),
            java.util.Map.entry("graph", new int[] {'!', '~'}),
            java.util.Map.entry("lower", new int[] {'a', 'z'}),
            java.util.Map.entry("print", new int[] {' ', '~'}),
            java.util.Map.entry("punct", new int[] {'!', '/', ':', '@', '[', '`', '{', '~'}),
            java.util.Map.entry("space", new int[] {'\t', '\r', ' ', ' '}),
            java.util.Map.entry("upper", new int[] {'A', 'Z'}),
            java.util.Map.entry("xdigit", new int[] {'0', '9', 'A', 'F', 'a', 'f'}));

    /** The index of the {@code ']'} closing a class opened at {@code open}, or -1. */
    private static int classEnd(String p, int open) {
        int k = open + 1;
        if (k < p.length() && (p.charAt(k) == '!' || p.charAt(k) == '^')) {
            k++;
        }
        if (k < p.length() && p.charAt(k) == ']') {
            k++;              // a ']' first in the class is a literal
        }
        for (; k < p.length(); k++) {
            char c = p.charAt(k);
            if (c == '\\') {
                k++;
            } else if (c == '[' && k + 1 < p.length() && p.charAt(k + 1) == ':' && p.indexOf(":]", k + 2) > 0) {
                k = p.indexOf(":]", k + 2) + 1;     // a [:name:] inside the class: its ']' does not close it
            } else if (c == ']') {
                return k;
            }
        }
        return -1;
    }
}
