package org.vancetope.worktarget.core.internal.exec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The hint for a command the shell could not find ({@code sh: 1: python: not found}, exit code 127), or
 * null: which program of the same kind the job's {@code PATH} has instead ({@code python3} for
 * {@code python}), or that there is none; and for a script of the work directory that "is not found"
 * although it is there, why: its {@code #!} line ends with a carriage return (Windows line ends) or names an
 * interpreter that is not installed; and for one it may not run ({@code Permission denied}), that it lacks
 * the execute permission. Agents meet these on every new machine, and the shell's words say none
 * of it.
 *
 * <p>Reads the directories of the job's {@code PATH} and, through the root's confinement, the first line of
 * a script below the root; nothing else. Stateless; thread-safe.
 */
final class MissingCommandHint {
    /**
     * A command the shell did not find, as dash ({@code sh: 1: NAME: not found}) and bash
     * ({@code bash: line 1: NAME: command not found}, {@code …: cannot execute: required file not found},
     * {@code …: No such file or directory}) word it.
     */
    private static final Pattern NOT_FOUND = Pattern.compile("(?m)^(?:(?:/bin/|/usr/bin/)?(?:sh|dash): \\d+: (\\S+): "
            + "not found|(?:/bin/|/usr/bin/)?bash: (?:line \\d+: )?(\\S+): (?:command not found|cannot execute: "
            + "required file not found|No such file or directory))\\r?$");
    /**
     * A program {@code env} did not find, as GNU env words it ({@code /usr/bin/env: 'python': No such file or
     * directory}, with typographic quotes in a UTF-8 locale): what a script's {@code #!/usr/bin/env python}
     * line runs into.
     */
    private static final Pattern ENV_NOT_FOUND = Pattern.compile("(?m)^(?:/usr/bin/|/bin/)?env: ['\u2018]([^'\u2019/\\s]+)"
            + "['\u2019]: No such file or directory\\r?$");
    /** A file the shell could not run for want of the execute permission ({@code sh: 1: ./x.sh: Permission denied}). */
    private static final Pattern NOT_EXECUTABLE = Pattern.compile("(?m)^(?:(?:/bin/|/usr/bin/)?(?:sh|dash): \\d+: "
            + "|(?:/bin/|/usr/bin/)?bash: (?:line \\d+: )?)(\\S+/\\S*): Permission denied\\r?$");
    /** Programs agents call by a name that many machines install under another. */
    private static final Map<String, List<String>> ALTERNATIVES = Map.of(
            "python", List.of("python3"),
            "pip", List.of("pip3", "python3 -m pip"),
            "node", List.of("nodejs"),
            "fd", List.of("fdfind"),
            "bat", List.of("batcat"),
            "docker-compose", List.of("docker compose"),
            "ipython", List.of("ipython3"),
            "pytest", List.of("pytest-3", "python3 -m pytest"));
    /** The most bytes of a script read for its first line. */
    private static final int FIRST_LINE_BYTES = 512;

    private MissingCommandHint() {
    }

    /**
     * The hint for a job's stderr, or null when it tells of no command that was not found (or of nothing this
     * class can say more about).
     *
     * @param stderr the job's stderr as returned (head and tail)
     * @param pathVariable the job's {@code PATH}, or null
     * @param root the job's root
     * @param workingDirectory the directory below the root the command ran in, or null for the root
     * @return the hint, or null
     */
    static String of(String stderr, String pathVariable, ConfinedRoot root, String workingDirectory) {
        if (stderr == null || stderr.isEmpty()) {
            return null;
        }
        Matcher x = NOT_EXECUTABLE.matcher(stderr);
        if (x.find()) {
            String denied = notExecutable(x.group(1), root, workingDirectory);
            if (denied != null) {
                return denied;
            }
        }
        Matcher m = NOT_FOUND.matcher(stderr);
        if (!m.find()) {
            Matcher e = ENV_NOT_FOUND.matcher(stderr);
            return e.find() ? program(e.group(1), pathVariable) + " If a script's first line runs it (#!/usr/bin/env "
                    + e.group(1) + "), change that line." : null;
        }
        String name = m.group(1) != null ? m.group(1) : m.group(2);
        if (name.contains("/")) {
            return script(name, pathVariable, root, workingDirectory);
        }
        return program(name, pathVariable);
    }

    private static String program(String name, String pathVariable) {
        String instead = alternative(name, pathVariable);
        if (instead != null) {
            return "'" + name + "' is not installed here, but '" + instead + "' is: run the command with " + instead
                    + " instead.";
        }
        return "'" + name + "' is not a command here: no program of that name is on the job's PATH ("
                + (pathVariable == null ? "unset" : pathVariable) + "). Check its spelling and see what is installed "
                + "('command -v NAME', 'ls /usr/bin'), or install it first where you may.";
    }

    /** The first of a name's alternatives whose program is on the PATH, or null. */
    private static String alternative(String name, String pathVariable) {
        for (String a : ALTERNATIVES.getOrDefault(name, List.of())) {
            if (onPath(a.split(" ", 2)[0], pathVariable)) {
                return a;
            }
        }
        return null;
    }

    /**
     * Whether a program of that name is an executable file in an absolute directory of the PATH
     * ({@link Isolation#onPath}); a relative entry means a directory of the job's, and is not looked into.
     *
     * @param program the name, without a slash
     * @param pathVariable the PATH, or null
     * @return true when found
     */
    static boolean onPath(String program, String pathVariable) {
        return pathVariable != null && Isolation.onPath(program, Arrays.stream(pathVariable.split(":"))
                .filter(dir -> dir.startsWith("/")).collect(Collectors.joining(":"))) != null;
    }

    /**
     * A path the shell was given, relative to the root: the directory the command ran in and the path; null for
     * an absolute path, which may be outside the work directory and is not looked at.
     */
    private static String belowRoot(String name, String workingDirectory) {
        if (name.startsWith("/")) {
            return null;
        }
        return workingDirectory == null ? name : workingDirectory + "/" + name;
    }

    /** A file of the work directory the shell could not run because it lacks the execute permission, or null. */
    private static String notExecutable(String name, ConfinedRoot root, String workingDirectory) {
        String relative = belowRoot(name, workingDirectory);
        if (relative == null) {
            return null;
        }
        try {
            ConfinedRoot.OpenFile f = root.openFile(relative);     // a regular file below the root, not a link
            f.channel().close();
            if (Files.isExecutable(f.path())) {
                return null;    // denied for another reason (a mount without exec, say)
            }
        } catch (ToolException | IOException | RuntimeException e) {
            return null;        // not a regular file below the root
        }
        String quoted = "'" + name.replace("'", "'\\''") + "'";
        return "'" + name + "' is a file without the execute permission (files written with file_write are not "
                + "executable). Run it with its interpreter, e.g. 'sh " + quoted + "' or 'python3 " + quoted + "', or "
                + "make it executable first: chmod +x " + quoted + ".";
    }

    /** A path the shell could not run: a script that is missing, or whose first line names no interpreter here. */
    private static String script(String name, String pathVariable, ConfinedRoot root, String workingDirectory) {
        String relative = belowRoot(name, workingDirectory);
        if (relative == null) {
            return null;
        }
        String first;
        try (SeekableByteChannel ch = root.openFile(relative).channel()) {
            ByteBuffer b = ByteBuffer.allocate(FIRST_LINE_BYTES);
            while (b.hasRemaining() && ch.read(b) > 0) {
                // until the buffer is full or the file ends
            }
            String head = new String(b.array(), 0, b.position(), StandardCharsets.ISO_8859_1);
            int end = head.indexOf('\n');
            first = end < 0 ? head : head.substring(0, end);
        } catch (ToolException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                return "There is no file '" + name + "' in " + (workingDirectory == null ? "the work directory"
                        : "'" + workingDirectory + "'") + ", where the command ran. Check the path (file_find, "
                        + "file_list) and where the command runs (cwd).";
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
        if (!first.startsWith("#!")) {
            return null;
        }
        String fix = "sed -i 's/\\r$//' '" + name.replace("'", "'\\''") + "'";
        if (first.endsWith("\r")) {
            return "'" + name + "' is there, but its first line ends with a carriage return (Windows line ends), so "
                    + "the system looks for an interpreter whose name ends with one. Convert the file's line ends, "
                    + "e.g. " + fix + ", and run it again.";
        }
        String[] words = first.substring(2).strip().split("\\s+");
        if (words.length == 0 || words[0].isEmpty()) {
            return null;
        }
        String interpreter = words[0];
        if (interpreter.startsWith("/") && !Files.isExecutable(Path.of(interpreter))) {
            String base = Path.of(interpreter).getFileName() == null ? interpreter
                    : Path.of(interpreter).getFileName().toString();
            String instead = onPath(base, pathVariable) ? base : alternative(base, pathVariable);
            return "'" + name + "' is there, but the interpreter its first line names (" + interpreter + ") is not "
                    + "installed here" + (instead != null ? "; '" + instead + "' is on the PATH: change the line to "
                    + "#!/usr/bin/env " + instead + ", or run '" + instead + " " + name + "'." : ". Change the line to "
                    + "an interpreter that is installed, or run the script with one.");
        }
        return null;
    }
}
