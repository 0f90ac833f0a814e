package org.vancetope.worktarget.core.internal.exec;

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
 * substitution, subshell or redirection into a file ({@code 2>/dev/null} and {@code 2>&1} are fine). Each
 * program is named bare, as the job's PATH finds it ({@code ./bin/ls} could be any program the caller
 * wrote); the caller's {@code env} (which could set {@code PATH} or {@code LD_PRELOAD}) is judged by
 * {@link ExecResolvers}: a job with one is no clean-up job.
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
        ShellLine line = ShellLine.of(command);
        if (line.commands().isEmpty() || !line.complete() || line.substitution() || line.subshell()
                || !line.redirections().stream().allMatch(t -> t.equals("/dev/null") || t.matches("&[0-9-]+"))) {
            return false;
        }
        for (List<String> words : line.commands()) {
            String program = words.get(0);
            // a bare name only, found on the job's PATH: ./bin/ls or /any/ls could be anything the caller wrote
            if (!PROGRAMS.contains(program)) {
                return false;
            }
            if (program.equals("find") && words.stream().anyMatch(FIND_ACTIONS::contains)) {
                return false;
            }
            if (program.equals("sort") && words.stream().anyMatch(w -> w.startsWith("--output")
                    || w.matches("-[a-zA-Z]*o.*"))) {
                return false;
            }
        }
        return true;
    }
}
