package org.vancetope.worktarget.testfixtures;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A test's own {@code main} class run in a child JVM on the test's class path, for tests that need a
 * separate process to kill with SIGKILL. The child says {@code ready} on a line of its own once it is set
 * up; {@link #start} returns then, or fails with what the child printed.
 *
 * <pre>{@code
 * Process child = ChildMain.start(RunHolder.class, workspace.toString());
 * child.destroyForcibly();     // SIGKILL
 * }</pre>
 */
public final class ChildMain {
    private ChildMain() {
    }

    /**
     * The command line that runs {@code main} in a child JVM on this JVM's class path (small heap, C1 only),
     * for a test that starts it its own way (under another command, or reading all its output).
     *
     * @param main the class whose {@code main} to run
     * @param args its arguments
     * @return the command, modifiable
     */
    public static List<String> command(Class<?> main, String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                main.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Runs a command in a user namespace where it is the files' owner (root outside) and nothing more. */
    private static final List<String> OWNER_ONLY = List.of("unshare", "--user", "--map-user=1000",
            "--map-group=1000");

    /**
     * Whether {@link #runAsOwnerOnly} can run here: {@code unshare} (util-linux) and user namespaces.
     *
     * @return true when a command ran under it
     */
    public static boolean ownerOnlyWorks() {
        List<String> cmd = new ArrayList<>(OWNER_ONLY);
        cmd.add("true");
        try {
            return new ProcessBuilder(cmd).redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Runs {@code main} in a child JVM as the owner of the files the test made and nothing more: in a user
     * namespace ({@code unshare --user}), so that file permissions bind it as they bind a server that does not
     * run as root, which a test run as root cannot show in its own JVM. Check {@link #ownerOnlyWorks} first.
     *
     * @param main the class whose {@code main} to run
     * @param args its arguments
     * @return everything it printed (stdout and stderr), stripped
     * @throws IOException when it cannot start
     * @throws InterruptedException when interrupted while waiting
     * @throws AssertionError when it did not end within two minutes
     */
    public static String runAsOwnerOnly(Class<?> main, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(OWNER_ONLY);
        cmd.addAll(command(main, args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(2, java.util.concurrent.TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError(main.getSimpleName() + " did not end within two minutes; its output:\n" + out);
        }
        return out;
    }

    /**
     * Starts {@code main} in a child JVM (small heap, C1 only) and waits for its {@code ready} line.
     *
     * @param main the class whose {@code main} to run
     * @param args its arguments
     * @return the running child; its output after {@code ready} is not read
     * @throws IOException when it cannot start
     * @throws AssertionError when it ended before saying {@code ready}, with its output
     */
    public static Process start(Class<?> main, String... args) throws IOException {
        Process child = new ProcessBuilder(command(main, args)).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder log = new StringBuilder();
        for (String line; (line = out.readLine()) != null; ) {
            if (line.equals("ready")) {
                return child;
            }
            log.append(line).append('\n');
        }
        child.destroyForcibly();
        throw new AssertionError(main.getSimpleName() + " ended before it was ready; its output:\n" + log);
    }
}
