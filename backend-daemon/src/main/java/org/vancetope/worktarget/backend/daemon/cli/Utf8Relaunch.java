package org.vancetope.worktarget.backend.daemon.cli;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;

/**
 * Runs the {@code worktarget.jar} process again under a UTF-8 locale when this JVM cannot put names
 * outside ASCII into file names. Java fixes how it encodes file names ({@code sun.jnu.encoding}) from the
 * locale when it starts, and no option changes it later; a process started without {@code LANG} or
 * {@code LC_ALL} (as MCP clients start their servers, with a minimal environment) gets the POSIX locale,
 * whose ASCII cannot name {@code café.txt}: such files would be listed garbled and could be neither read
 * nor written. The same command line is started again with {@code LC_ALL=C.UTF-8}, sharing this
 * process's standard input, output and error; this process only waits for it, passes SIGTERM and Ctrl-C
 * on, and exits with its code. The child ends itself when this process dies (even by SIGKILL).
 */
final class Utf8Relaunch {
    /** Set in the child's environment: the child never relaunches itself, and it watches its parent. */
    static final String RELAUNCHED = "WORKTARGET_UTF8_RELAUNCHED";
    /** The locale the child gets: built into glibc and musl, present on every Linux. */
    static final String LOCALE = "C.UTF-8";
    /** How long a SIGTERM passed on waits for the child's own cleanup (its jobs' kill grace included). */
    private static final long CHILD_STOP_SECONDS = 60;

    private Utf8Relaunch() {
    }

    /**
     * Whether a JVM with this file name encoding, on this platform, in this environment, must relaunch.
     *
     * @param fileNameEncoding the JVM's {@code sun.jnu.encoding}
     * @param separator the platform's file separator (Windows names are UTF-16: never)
     * @param env the environment
     * @return true when names outside ASCII would fail and this is not the relaunched process already
     */
    static boolean needed(String fileNameEncoding, char separator, Map<String, String> env) {
        return !ConfinedRoot.isUtf8(fileNameEncoding) && separator == '/' && !env.containsKey(RELAUNCHED);
    }

    /**
     * The relaunched process: the same command line, with {@code LC_ALL} set to {@link #LOCALE} and the
     * marker set, sharing this process's standard streams.
     *
     * @param command the executable of this process
     * @param arguments its arguments, JVM options included
     * @return the process to start
     */
    static ProcessBuilder builder(String command, List<String> arguments) {
        List<String> line = new ArrayList<>(arguments.size() + 1);
        line.add(command);
        line.addAll(arguments);
        ProcessBuilder pb = new ProcessBuilder(line).inheritIO();
        pb.environment().put("LC_ALL", LOCALE);
        pb.environment().put(RELAUNCHED, Long.toString(ProcessHandle.current().pid()));
        return pb;
    }

    /**
     * Relaunches when {@link #needed}: returns the child's exit code once it ended; empty when this
     * process runs the command itself (no need, or the command line cannot be read or started again: the
     * file layer then warns once that names outside ASCII fail).
     *
     * @return the child's exit code, or empty
     */
    static OptionalInt ifNeeded() {
        if (!needed(System.getProperty("sun.jnu.encoding"), File.separatorChar, System.getenv())) {
            return OptionalInt.empty();
        }
        ProcessHandle.Info info = ProcessHandle.current().info();
        Optional<String> command = info.command();
        Optional<String[]> arguments = info.arguments();
        if (command.isEmpty() || arguments.isEmpty()) {
            return OptionalInt.empty();
        }
        Process child;
        try {
            child = builder(command.get(), Arrays.asList(arguments.get())).start();
        } catch (IOException e) {
            return OptionalInt.empty();
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> passStop(child), "worktarget-relaunch-stop"));
        while (true) {
            try {
                return OptionalInt.of(child.waitFor());
            } catch (InterruptedException e) {
                // only the child's end ends the wait
            }
        }
    }

    /** This process is stopping (SIGTERM, Ctrl-C): the child stops too, after its own cleanup, with its code. */
    private static void passStop(Process child) {
        if (!child.isAlive()) {
            return;
        }
        child.destroy();
        try {
            if (!child.waitFor(CHILD_STOP_SECONDS, TimeUnit.SECONDS)) {
                child.destroyForcibly();
                child.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(child.isAlive() ? Main.FAILED : child.exitValue());
    }

    /**
     * In the relaunched process: ends it, as SIGTERM would (its shutdown runs), once the process that
     * relaunched it is gone, so that killing that process with SIGKILL leaves nothing behind.
     */
    static void watchParent() {
        String parent = System.getenv(RELAUNCHED);
        if (parent == null) {
            return;
        }
        try {
            ProcessHandle.of(Long.parseLong(parent)).ifPresentOrElse(
                    p -> p.onExit().thenRun(() -> System.exit(Main.OK)), () -> System.exit(Main.OK));
        } catch (NumberFormatException e) {
            // not ours: nothing to watch
        }
    }
}
