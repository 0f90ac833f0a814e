package org.vancetope.worktarget.core.internal.file;

import java.util.ArrayList;
import java.util.List;
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
 *
 * <p>A glob is matched by a nondeterministic automaton that follows every way through the glob at once,
 * one character at a time: time proportional to the path's length times the glob's, whatever the glob.
 * (A translation into {@link java.util.regex} backtracked: {@code *a*a*a...*ab} against a long name of
 * {@code a}s took longer than a search's whole deadline for one name.)
 */
final class Glob {
    /** The characters that make a glob more than plain text. */
    private static final String SPECIAL = "*?[]{},\\/";

    private final Nfa nfa;
    private final boolean nameOnly;

    private Glob(Nfa nfa, boolean nameOnly) {
        this.nfa = nfa;
        this.nameOnly = nameOnly;
    }

    /**
     * The name glob of the common path globs that equal one: {@code NAME}, {@code *TEXT} and {@code TEXT*}
     * behind leading {@code **}{@code /}s (which let the rest match the last component at any depth),
     * where the text has no glob character; {@code *} never matches {@code '/'} and names hold none. Their
     * automaton then takes its plain path ({@link Nfa#matches}: an equals, endsWith or startsWith).
     *
     * @return the name glob, or null
     */
    private static String nameGlob(String g) {
        String rest = g;
        while (rest.startsWith("**/")) {
            rest = rest.substring(3);
        }
        if (rest.isEmpty()) {
            return null;
        }
        String text = rest.startsWith("*") ? rest.substring(1) : rest.endsWith("*")
                ? rest.substring(0, rest.length() - 1) : rest;
        for (int i = 0; i < text.length(); i++) {
            if (SPECIAL.indexOf(text.charAt(i)) >= 0) {
                return null;
            }
        }
        return rest;
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
        String name = nameGlob(g);
        if (name != null) {
            return new Glob(new Nfa.Builder(name, glob, param).build(), true);
        }
        return new Glob(new Nfa.Builder(g, glob, param).build(), g.indexOf('/') < 0);
    }

    /**
     * Compiles a glob that matches relative paths from the walk root only, even without {@code '/'}
     * ({@code build} then matches {@code build} at the root, not {@code src/build}).
     *
     * @param glob the glob, not empty
     * @param param the parameter it came from, for error messages
     * @return the glob, or null when everything matches
     * @throws ToolException {@code invalid_params} for a malformed glob
     */
    static Glob compileAnchored(String glob, String param) throws ToolException {
        if (glob.equals("**") || glob.equals("**/*")) {
            return null;
        }
        if (glob.indexOf('\\') >= 0) {
            throw Params.invalid(param + " '" + glob + "' contains a backslash; use '/' as the separator.");
        }
        return new Glob(new Nfa.Builder(glob, glob, param).build(), false);
    }

    /**
     * Whether a relative path matches.
     *
     * @param relative the path relative to the walk root, {@code '/'}-separated
     * @param name its last component
     * @return true on a match
     */
    boolean matches(String relative, String name) {
        return nfa.matches(nameOnly ? name : relative);
    }

    /**
     * The automaton of one glob (Thompson's construction): each state either consumes one character that
     * its test accepts, or is a fork to other states without consuming; matching keeps the set of states
     * reached so far.
     */
    static final class Nfa {
        private static final int FORK = 0;
        private static final int LITERAL = 1;
        private static final int NOT_SLASH = 2;
        private static final int ANY = 3;
        private static final int CLASS = 4;
        private static final int ACCEPT = 5;
        private static final int EXACT = 1;
        private static final int SUFFIX = 2;
        private static final int PREFIX = 3;

        private final int[] kind;
        private final int[] literal;
        private final int[] next;
        private final int[][] forks;
        private final int[][] ranges;
        private final boolean[] negated;
        private final int start;

        private final Plain plain;

        private Nfa(Compiler b, int start, Plain plain) {
            this.plain = plain;
            int n = b.kind.size();
            kind = new int[n];
            literal = new int[n];
            next = new int[n];
            forks = new int[n][];
            ranges = new int[n][];
            negated = new boolean[n];
            for (int i = 0; i < n; i++) {
                kind[i] = b.kind.get(i);
                literal[i] = b.literal.get(i);
                next[i] = b.next.get(i);
                forks[i] = b.forks.get(i);
                ranges[i] = b.ranges.get(i);
                negated[i] = b.negated.get(i);
            }
            this.start = start;
        }

        boolean matches(String s) {
            if (plain != null) {
                return plain.matches(s);
            }
            int n = kind.length;
            int[] current = new int[n];
            int[] following = new int[n];
            int[] mark = new int[n];          // the step at which a state was last added (0: never)
            int[] stack = new int[n];
            int size = close(start, current, 0, mark, 1, stack);
            int step = 1;
            for (int i = 0; i < s.length() && size > 0; ) {
                int c = s.codePointAt(i);      // one character, also when it takes two chars (as in a regex)
                i += Character.charCount(c);
                int nextSize = 0;
                step++;
                for (int k = 0; k < size; k++) {
                    int q = current[k];
                    if (accepts(q, c)) {
                        nextSize = close(next[q], following, nextSize, mark, step, stack);
                    }
                }
                int[] t = current;
                current = following;
                following = t;
                size = nextSize;
            }
            for (int k = 0; k < size; k++) {
                if (kind[current[k]] == ACCEPT) {
                    return true;
                }
            }
            return false;
        }

        /**
         * Adds {@code q} and every state its forks reach to {@code set}, each once per step: a state is marked
         * when it is pushed, so the stack never holds more than all the states.
         */
        private int close(int q, int[] set, int size, int[] mark, int step, int[] stack) {
            if (mark[q] == step) {
                return size;
            }
            mark[q] = step;
            int top = 0;
            stack[top++] = q;
            while (top > 0) {
                int s = stack[--top];
                if (kind[s] == FORK) {
                    for (int f = forks[s].length - 1; f >= 0; f--) {
                        int t = forks[s][f];
                        if (mark[t] != step) {
                            mark[t] = step;
                            stack[top++] = t;
                        }
                    }
                } else {
                    set[size++] = s;
                }
            }
            return size;
        }

        private boolean accepts(int q, int c) {
            return switch (kind[q]) {
                case LITERAL -> literal[q] == c;
                case NOT_SLASH -> c != '/';
                case ANY -> true;
                case CLASS -> inClass(ranges[q], c) != negated[q];
                default -> false;
            };
        }

        private static boolean inClass(int[] r, int c) {
            for (int i = 0; i < r.length; i += 2) {
                if (c >= r[i] && c <= r[i + 1]) {
                    return true;
                }
            }
            return false;
        }

        // The parts an automaton is built from, in a sequence: an Integer (one literal character), ONE ('?'),
        // STAR ('*'), DOUBLE_STAR ('**', any characters with '/'), DIRS ('**/': nothing, or anything up to and
        // with a '/'), a class from charClass, or a List of sequences (alternatives).
        static final int[] ONE = {0};
        static final int[] STAR = {1};
        static final int[] DOUBLE_STAR = {2};
        static final int[] DIRS = {3};

        /**
         * A character class part.
         *
         * @param ranges pairs of first and last character, each pair one range
         * @param negated whether the class matches the characters outside the ranges
         * @return the part
         */
        static int[][] charClass(int[] ranges, boolean negated) {
            return new int[][] {ranges, {negated ? 1 : 0}};
        }

        /**
         * The automaton of a sequence of parts, matched against the whole text.
         *
         * @param parts the parts
         * @return the automaton
         */
        static Nfa of(List<Object> parts) {
            Compiler c = new Compiler();
            int accept = c.state(ACCEPT, 0, -1, null, null, false);
            return new Nfa(c, c.compile(parts, accept), plain(parts));
        }

        /**
         * The most common patterns without stepping through states: a text ({@code node_modules}), a
         * {@code '*'} and a text ({@code *.log}), a text and a {@code '*'} ({@code build*}); {@code '*'}
         * matches no {@code '/'}. Null for any other pattern.
         */
        private static Plain plain(List<Object> parts) {
            int n = parts.size();
            boolean starFirst = n > 0 && parts.get(0) == STAR;
            boolean starLast = n > 1 && parts.get(n - 1) == STAR && !starFirst;
            StringBuilder text = new StringBuilder();
            for (int i = starFirst ? 1 : 0; i < (starLast ? n - 1 : n); i++) {
                if (!(parts.get(i) instanceof Integer cp)) {
                    return null;
                }
                text.appendCodePoint(cp);
            }
            return new Plain(text.toString(), starFirst ? SUFFIX : starLast ? PREFIX : EXACT);
        }

        /** A plain pattern: its text and how it is placed. */
        private record Plain(String text, int kind) {
            boolean matches(String s) {
                return switch (kind) {
                    case EXACT -> s.equals(text);
                    case SUFFIX -> s.endsWith(text) && s.lastIndexOf('/', s.length() - text.length() - 1) < 0;
                    default -> s.startsWith(text) && s.indexOf('/', text.length()) < 0;
                };
            }
        }



        /** Parses a glob into parts. */
        static final class Builder {
            private final String g;
            private final String glob;
            private final String param;
            private int pos;

            Builder(String g, String glob, String param) {
                this.g = g;
                this.glob = glob;
                this.param = param;
            }

            Nfa build() throws ToolException {
                List<Object> seq = sequence(0);
                if (pos < g.length()) {
                    throw Params.invalid(param + " '" + glob + "' is not a valid glob.");
                }
                return of(seq);
            }

            private List<Object> sequence(int depth) throws ToolException {
                List<Object> seq = new ArrayList<>();
                while (pos < g.length()) {
                    int c = g.codePointAt(pos);
                    if (depth > 0 && (c == ',' || c == '}')) {
                        return seq;
                    }
                    pos += Character.charCount(c);
                    switch (c) {
                        case '*' -> {
                            if (pos < g.length() && g.charAt(pos) == '*') {
                                boolean slashAfter = pos + 1 < g.length() && g.charAt(pos + 1) == '/';
                                boolean atSegmentStart = pos - 1 == 0 || g.charAt(pos - 2) == '/';
                                if (slashAfter && atSegmentStart) {
                                    seq.add(DIRS);
                                    pos += 2;
                                } else {
                                    seq.add(DOUBLE_STAR);
                                    pos += 1;
                                }
                            } else {
                                seq.add(STAR);
                            }
                        }
                        case '?' -> seq.add(ONE);
                        case '[' -> seq.add(characterClass());
                        case '{' -> {
                            List<List<Object>> alternatives = new ArrayList<>();
                            while (true) {
                                alternatives.add(sequence(depth + 1));
                                if (pos >= g.length()) {
                                    throw Params.invalid(param + " '" + glob + "' has an unclosed '{'.");
                                }
                                char end = g.charAt(pos++);
                                if (end == '}') {
                                    break;
                                }
                            }
                            seq.add(alternatives);
                        }
                        default -> seq.add(c);
                    }
                }
                if (depth > 0) {
                    throw Params.invalid(param + " '" + glob + "' has an unclosed '{'.");
                }
                return seq;
            }

            /**
             * After '[': the class up to the first ']' that is not its first character (after a '!' or '^'
             * that negates it), so that {@code []a]} and {@code [!]]} hold a ']'.
             */
            private int[][] characterClass() throws ToolException {
                boolean neg = pos < g.length() && (g.charAt(pos) == '!' || g.charAt(pos) == '^');
                int first = neg ? pos + 1 : pos;
                int end = g.indexOf(']', first + 1);
                if (end < 0) {
                    throw Params.invalid(param + " '" + glob + "' has an unclosed '['.");
                }
                String body = g.substring(first, end);
                pos = end + 1;
                int[] cps = body.codePoints().toArray();
                List<Integer> r = new ArrayList<>();
                for (int i = 0; i < cps.length; i++) {
                    int from = cps[i];
                    if (i + 2 < cps.length && cps[i + 1] == '-') {
                        int to = cps[i + 2];
                        if (to < from) {
                            String f = Character.toString(from);
                            String t = Character.toString(to);
                            throw Params.invalid(param + " '" + glob + "' has the range '" + f + "-" + t
                                    + "', whose end comes before its start; write it as '" + t + "-" + f + "'.");
                        }
                        r.add(from);
                        r.add(to);
                        i += 2;
                    } else {
                        r.add(from);
                        r.add(from);
                    }
                }
                return charClass(r.stream().mapToInt(Integer::intValue).toArray(), neg);
            }

        }

        /** Builds an automaton from the end to the start, each part ahead of what follows it. */
        static final class Compiler {
            private final List<Integer> kind = new ArrayList<>();
            private final List<Integer> literal = new ArrayList<>();
            private final List<Integer> next = new ArrayList<>();
            private final List<int[]> forks = new ArrayList<>();
            private final List<int[]> ranges = new ArrayList<>();
            private final List<Boolean> negated = new ArrayList<>();

            private int state(int k, int c, int to, int[] fork, int[] range, boolean neg) {
                kind.add(k);
                literal.add(c);
                next.add(to);
                forks.add(fork);
                ranges.add(range);
                negated.add(neg);
                return kind.size() - 1;
            }

            /** The start state of {@code seq} followed by {@code out}. */
            @SuppressWarnings("unchecked")
            private int compile(List<Object> seq, int out) {
                int q = out;
                for (int i = seq.size() - 1; i >= 0; i--) {
                    Object part = seq.get(i);
                    if (part instanceof Integer c) {
                        q = state(LITERAL, c, q, null, null, false);
                    } else if (part == ONE) {
                        q = state(NOT_SLASH, 0, q, null, null, false);
                    } else if (part == STAR || part == DOUBLE_STAR) {
                        q = loop(part == STAR ? NOT_SLASH : ANY, q);
                    } else if (part == DIRS) {
                        // nothing, or any characters up to a '/' and the '/'
                        int dirs = loop(ANY, state(LITERAL, '/', q, null, null, false));
                        q = state(FORK, 0, -1, new int[] {dirs, q}, null, false);
                    } else if (part instanceof int[][] cls) {
                        q = state(CLASS, 0, q, null, cls[0], cls[1][0] == 1);
                    } else {
                        List<List<Object>> alternatives = (List<List<Object>>) part;
                        int[] starts = new int[alternatives.size()];
                        for (int a = 0; a < starts.length; a++) {
                            starts[a] = compile(alternatives.get(a), q);
                        }
                        q = state(FORK, 0, -1, starts, null, false);
                    }
                }
                return q;
            }

            /** Any number of characters of {@code kind}, then {@code out}: a fork to one more or to the rest. */
            private int loop(int charKind, int out) {
                int fork = state(FORK, 0, -1, null, null, false);
                int one = state(charKind, 0, fork, null, null, false);
                forks.set(fork, new int[] {one, out});
                return fork;
            }
        }
    }
}
