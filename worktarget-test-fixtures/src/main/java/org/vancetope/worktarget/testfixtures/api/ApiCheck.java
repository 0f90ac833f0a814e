package org.vancetope.worktarget.testfixtures.api;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Holds a module's public API to its committed dump, {@code api/<artifactId>.api} in the module
 * directory: a difference fails the build with the first differing lines and the command that rewrites
 * the file, so that every API change is a deliberate diff in review. With the system property
 * {@value #UPDATE_PROPERTY}{@code =true} the file is rewritten instead.
 *
 * <pre>{@code
 * class ApiDumpTest {
 *     @Test
 *     void publicApiMatchesTheCommittedDump() throws IOException {
 *         ApiCheck.verifyModule("worktarget-core");
 *     }
 * }
 * }</pre>
 */
public final class ApiCheck {
    /** The system property that rewrites the dumps instead of comparing them. */
    public static final String UPDATE_PROPERTY = "worktarget.updateApi";

    private static final int SHOWN = 4;

    private ApiCheck() {
    }

    /**
     * Checks (or, with {@value #UPDATE_PROPERTY}, rewrites) the dump of the module the tests run in: the
     * classes in {@code target/classes} of the directory named by the system property {@code basedir}
     * (set by Maven Surefire; the working directory otherwise), loaded by the context class loader.
     *
     * @param artifactId the module's artifact id, naming the dump file
     * @throws IOException when the classes or the dump cannot be read, or the dump cannot be written
     * @throws AssertionError when the dump differs and is not to be rewritten
     */
    public static void verifyModule(String artifactId) throws IOException {
        Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir")));
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        List<String> dump = ApiDump.of(base.resolve("target").resolve("classes"), loader);
        verify(artifactId, base.resolve("api").resolve(artifactId + ".api"), dump,
                Boolean.getBoolean(UPDATE_PROPERTY));
    }

    /**
     * Compares a dump with its file, or rewrites the file.
     *
     * @param artifactId the module's artifact id, for the file's first line and the message
     * @param file the committed dump
     * @param dump the lines of the current dump (without the first line)
     * @param update whether to rewrite the file when it differs (or is missing) instead of failing
     * @return whether the file was written
     * @throws IOException when the file cannot be read or written
     * @throws AssertionError when the file differs or is missing and {@code update} is false
     */
    public static boolean verify(String artifactId, Path file, List<String> dump, boolean update) throws IOException {
        List<String> expected = new ArrayList<>();
        expected.add(firstLine(artifactId));
        expected.addAll(dump);
        List<String> committed = Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : null;
        if (expected.equals(committed)) {
            return false;
        }
        if (update) {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, String.join("\n", expected) + "\n", StandardCharsets.UTF_8);
            return true;
        }
        throw new AssertionError(committed == null ? missing(artifactId, file) : difference(artifactId, file,
                committed, expected));
    }

    /** The dump file's first line: what it is and how to rewrite it. */
    static String firstLine(String artifactId) {
        return "# Public API of " + artifactId + " (generated; to rewrite after a deliberate change: "
                + updateCommand(artifactId) + ")";
    }

    private static String updateCommand(String artifactId) {
        return "mvn -B verify -pl " + artifactId + " -am -D" + UPDATE_PROPERTY + "=true";
    }

    private static String missing(String artifactId, Path file) {
        return "No API dump of " + artifactId + " at " + file + ".\nCreate it with:\n  " + updateCommand(artifactId)
                + "\nand commit it.";
    }

    static String difference(String artifactId, Path file, List<String> committed, List<String> compiled) {
        int at = 0;
        while (at < committed.size() && at < compiled.size() && committed.get(at).equals(compiled.get(at))) {
            at++;
        }
        StringBuilder b = new StringBuilder();
        b.append("The public API of ").append(artifactId).append(" differs from ").append(file)
                .append(" (committed ").append(committed.size()).append(" lines, compiled ")
                .append(compiled.size()).append(").\n");
        b.append("First difference at line ").append(at + 1);
        String type = enclosingType(compiled, at);
        if (type != null) {
            b.append(", in ").append(type);
        }
        b.append(":\n");
        appendLines(b, "- ", committed, at);
        appendLines(b, "+ ", compiled, at);
        b.append("If the change is deliberate, rewrite the dump and commit the diff:\n  ")
                .append(updateCommand(artifactId)).append("\n(or -D").append(UPDATE_PROPERTY)
                .append("=true on any build that runs this module's tests).");
        return b.toString();
    }

    private static void appendLines(StringBuilder b, String prefix, List<String> lines, int from) {
        if (from >= lines.size()) {
            b.append(prefix).append("(end of file)\n");
            return;
        }
        for (int i = from; i < Math.min(lines.size(), from + SHOWN); i++) {
            b.append(prefix).append(lines.get(i)).append('\n');
        }
    }

    /** The type line at or above a line, if any. */
    private static String enclosingType(List<String> lines, int at) {
        for (int i = Math.min(at, lines.size() - 1); i > 0; i--) {
            String l = lines.get(i);
            if (!l.startsWith(" ") && !l.startsWith("#")) {
                return l;
            }
        }
        return null;
    }
}
