package org.vancetope.worktarget.core.internal.exec;

import java.util.ArrayList;
import java.util.List;

/**
 * A command line read the way the shell splits it, as far as the engine needs to know: its simple commands
 * (between {@code ;}, {@code &}, {@code &&}, {@code |}, {@code ||} and line breaks outside quotes) as words
 * with their quotes and escapes taken off and their redirections taken out, the redirections' targets,
 * and whether it starts something in the background, substitutes a command ({@code $(...)} or backquotes,
 * also inside double quotes) or opens a subshell. It does not expand anything. The one reader of command
 * lines for the results' hints and the clean-up jobs of a HOME over its budget.
 *
 * @param commands the simple commands' words, blank commands left out
 * @param redirections the targets of the redirections, e.g. {@code /dev/null} or {@code &1}
 * @param background whether an {@code &} ends a command (not {@code &&}, not a redirection's)
 * @param substitution whether a command is substituted outside single quotes
 * @param subshell whether a parenthesis stands outside quotes
 * @param complete false when a quote is left open
 */
record ShellLine(List<List<String>> commands, List<String> redirections, boolean background, boolean substitution,
                 boolean subshell, boolean complete) {

    /**
     * Reads a command line.
     *
     * @param line the command line, or null for an empty one
     * @return what it holds
     */
    static ShellLine of(String line) {
        return new Reader(line == null ? "" : line).read();
    }

    /** Whether a character outside quotes ends a simple command. */
    private static boolean isSeparator(char c) {
        return c == ';' || c == '&' || c == '|' || c == '\n';
    }

    private static final class Reader {
        private final String line;
        private final int n;
        private final List<List<String>> commands = new ArrayList<>();
        private final List<String> redirections = new ArrayList<>();
        private List<String> words = new ArrayList<>();
        private final StringBuilder word = new StringBuilder();
        private boolean inWord;
        private boolean background;
        private boolean substitution;
        private boolean subshell;
        private boolean complete = true;

        Reader(String line) {
            this.line = line;
            this.n = line.length();
        }

        ShellLine read() {
            for (int i = 0; i < n; i++) {
                char c = line.charAt(i);
                if (c == '\'') {
                    int end = line.indexOf('\'', i + 1);
                    if (end < 0) {
                        complete = false;
                        end = n;
                    }
                    word.append(line, i + 1, end);
                    inWord = true;
                    i = end;
                } else if (c == '"') {
                    i = doubleQuoted(i);
                } else if (c == '\\') {
                    if (i + 1 < n) {
                        word.append(line.charAt(++i));
                        inWord = true;
                    }
                } else if (c == '>' || c == '<' || c == '&' && i + 1 < n && line.charAt(i + 1) == '>') {
                    if (inWord && word.chars().allMatch(Character::isDigit)) {
                        word.setLength(0);      // 2>..., the descriptor is no word
                        inWord = false;
                    }
                    endWord();
                    i = redirection(c == '&' ? i + 1 : i) - 1;
                } else if (isSeparator(c)) {
                    char next = i + 1 < n ? line.charAt(i + 1) : 0;
                    if ((c == '&' || c == '|') && next == c) {
                        i++;                    // && and ||
                    } else if (c == '&') {
                        background = true;
                    }
                    endCommand();
                } else if (Character.isWhitespace(c)) {
                    endWord();
                } else {
                    if (c == '$' && i + 1 < n && line.charAt(i + 1) == '(') {
                        substitution = true;
                        word.append(c);
                        c = line.charAt(++i);
                    } else if (c == '`') {
                        substitution = true;
                    } else if (c == '(' || c == ')') {
                        subshell = true;
                    }
                    word.append(c);
                    inWord = true;
                }
            }
            endCommand();
            return new ShellLine(List.copyOf(commands), List.copyOf(redirections), background, substitution, subshell,
                    complete);
        }

        /** Reads a double-quoted part from its opening quote; returns the index of its closing one. */
        private int doubleQuoted(int open) {
            int j = open + 1;
            for (; j < n && line.charAt(j) != '"'; j++) {
                char d = line.charAt(j);
                if (d == '`' || d == '$' && j + 1 < n && line.charAt(j + 1) == '(') {
                    substitution = true;
                }
                if (d == '\\' && j + 1 < n) {
                    j++;
                }
                word.append(line.charAt(j));
            }
            if (j >= n) {
                complete = false;
            }
            inWord = true;
            return j;
        }

        /**
         * Reads a redirection from its operator ({@code >}, {@code >>}, {@code >|}, {@code <}, {@code <<}) and
         * records its target (a file, or {@code &N}); returns the index after it.
         */
        private int redirection(int at) {
            int i = at + 1;
            if (i < n && (line.charAt(i) == '>' || line.charAt(i) == '|' || line.charAt(i) == '<')) {
                i++;
            }
            if (i < n && line.charAt(i) == '&') {
                int j = i + 1;
                while (j < n && (Character.isDigit(line.charAt(j)) || line.charAt(j) == '-')) {
                    j++;
                }
                redirections.add(line.substring(i, j));
                return j;
            }
            while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
                i++;
            }
            int start = i;
            while (i < n && !Character.isWhitespace(line.charAt(i)) && !isSeparator(line.charAt(i))
                    && line.charAt(i) != '<' && line.charAt(i) != '>') {
                i++;
            }
            redirections.add(line.substring(start, i));
            return i;
        }

        private void endWord() {
            if (inWord) {
                words.add(word.toString());
                word.setLength(0);
                inWord = false;
            }
        }

        private void endCommand() {
            endWord();
            if (!words.isEmpty()) {
                commands.add(words);
                words = new ArrayList<>();
            }
        }
    }
}
