package org.vancetope.worktarget.core.internal.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Whether a command line only looks at files and removes them: the jobs that still start while a HOME is
 * over its budget, so that a caller can see what is big and delete it (the file tools do not reach HOME).
 * A command line qualifies when every simple command in it (between {@code ;}, {@code &&}, {@code ||},
 * {@code |}, {@code &} and line breaks) runs one of a few programs that write nothing ({@code rm},
 * {@code rmdir}, {@code du}, {@code ls}, {@code find} without its actions that run or write, {@code df},
 * {@code sort} without {@code -o}, {@code head}, {@code tail}, {@code cat}, {@code wc}, {@code stat},
 * {@code echo}, {@code printf}, {@code cd}, {@code pwd}, {@code true}, {@code test}), with no command
 * substitution, subshell or redirection into a file ({@code 2>/dev/null} and {@code 2>&1} are fine).
 */
final class CleanUpCommand {
    private static final Set<String> PROGRAMS = Set.of("rm", "rmdir", "du", "ls", "find", "df", "sort", "head",
            "tail", "cat", "wc", "stat", "echo", "printf", "cd", "pwd", "true", "test", "[");
    /** The actions of find that run a program or write a file. */
    private static final Set<String> FIND_ACTIONS = Set.of("-exec", "-execdir", "-ok", "-okdir", "-fprint",
            "-fprint0", "-fprintf", "-fls");

    private CleanUpCommand() {
    }

    /**
     * Whether a command line only looks at files and removes them.
     *
     * @param command the command line, or null
     * @return true for such a command line
     */
    static boolean isCleanUp(String command) {
        if (command == null || command.isBlank()) {
            return false;
        }
        List<List<String>> commands = split(command);
        if (commands == null || commands.isEmpty()) {
            return false;
        }
        for (List<String> words : commands) {
            String program = words.get(0);
            program = program.substring(program.lastIndexOf('/') + 1);
            if (!PROGRAMS.contains(program)) {
                return false;
            }
            if (program.equals("find") && words.stream().anyMatch(FIND_ACTIONS::contains)) {
                return false;
            }
            if (program.equals("sort") && words.stream().anyMatch(w -> w.startsWith("-o") || w.startsWith("--output")
                    || w.matches("-[a-zA-Z]*o.*"))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The simple commands of a command line as their words (quotes taken off), or null for a line with
     * anything that could run or write beyond them: a command substitution (also in double quotes), a
     * subshell or process substitution, a redirection other than to {@code /dev/null} or a descriptor, a
     * quote left open.
     */
    private static List<List<String>> split(String line) {
        List<List<String>> commands = new ArrayList<>();
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        int n = line.length();
        for (int i = 0; i < n; i++) {
            char c = line.charAt(i);
            if (c == '\'') {
                int end = line.indexOf('\'', i + 1);
                if (end < 0) {
                    return null;
                }
                word.append(line, i + 1, end);
                inWord = true;
                i = end;
            } else if (c == '"') {
                int j = i + 1;
                for (; j < n && line.charAt(j) != '"'; j++) {
                    char d = line.charAt(j);
                    if (d == '`' || d == '$' && j + 1 < n && line.charAt(j + 1) == '(') {
                        return null;
                    }
                    if (d == '\\' && j + 1 < n) {
                        j++;
                    }
                    word.append(line.charAt(j));
                }
                if (j >= n) {
                    return null;
                }
                inWord = true;
                i = j;
            } else if (c == '\\') {
                if (i + 1 < n) {
                    word.append(line.charAt(++i));
                    inWord = true;
                }
            } else if (c == '`' || c == '(' || c == ')' || c == '$' && i + 1 < n && line.charAt(i + 1) == '(') {
                return null;
            } else if (c == '>' || c == '<') {
                int end = redirection(line, i);
                if (end < 0) {
                    return null;
                }
                if (inWord && word.toString().matches("\\d+")) {    // 2>..., the descriptor is no word
                    word.setLength(0);
                    inWord = false;
                }
                i = end - 1;
            } else if (c == ';' || c == '&' || c == '|' || c == '\n') {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
                if (!words.isEmpty()) {
                    commands.add(words);
                    words = new ArrayList<>();
                }
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        if (!words.isEmpty()) {
            commands.add(words);
        }
        return commands;
    }

    /**
     * The end of a redirection that writes nothing ({@code >/dev/null}, {@code 2>&1}, {@code &>/dev/null},
     * {@code </dev/null}), or -1 for any other.
     */
    private static int redirection(String line, int at) {
        int i = at + 1;
        int n = line.length();
        if (i < n && (line.charAt(i) == '>' || line.charAt(i) == '|')) {
            i++;    // >> or >|
        }
        if (i < n && line.charAt(i) == '&') {
            int j = i + 1;
            while (j < n && (Character.isDigit(line.charAt(j)) || line.charAt(j) == '-')) {
                j++;
            }
            return j > i + 1 ? j : -1;
        }
        while (i < n && line.charAt(i) == ' ') {
            i++;
        }
        return line.startsWith("/dev/null", i) ? i + "/dev/null".length() : -1;
    }
}
