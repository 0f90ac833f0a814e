package org.vancetope.worktarget.backend.daemon;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command line ({@code cli.Main}) as a real child JVM on the test's class path, with stdout and
 * stderr in a log file, for tests that need a separate process (one that can be killed with SIGKILL).
 * Every wait is bounded and fails with the child's log.
 */
public final class ChildJvm implements AutoCloseable {
    /** The bound of every wait for a child: generous, since CI machines are shared and noisy; not a speed limit. */
    public static final Duration WAIT = Duration.ofSeconds(30);

    private final String name;
    private final Process process;
    private final Path log;

    private ChildJvm(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /**
     * Starts {@code Main} with the given arguments.
     *
     * @param name a name for messages, e.g. {@code "daemon"}
     * @param log the log file (created or replaced)
     * @param args the command line after the class name, e.g. {@code "daemon", "--connect", …}
     * @return the running child
     * @throws IOException when it cannot be started
     */
    public static ChildJvm start(String name, Path log, List<String> args) throws IOException {
        return start(name, log, List.of(), args);
    }

    /**
     * Starts {@code Main} with extra JVM options (e.g. {@code -Dorg.slf4j.simpleLogger.log.org.vancetope=debug}).
     *
     * @param name a name for messages
     * @param log the log file (created or replaced)
     * @param jvmOptions options before the class name
     * @param args the command line after the class name
     * @return the running child
     * @throws IOException when it cannot be started
     */
    public static ChildJvm start(String name, Path log, List<String> jvmOptions, List<String> args) throws IOException {
        return start(name, log, jvmOptions, args, Map.of());
    }

    /**
     * Starts {@code Main} with extra JVM options and changes to its environment. Every child runs under
     * {@code LC_ALL=C.UTF-8} unless {@code env} says otherwise, so that it is the process the test starts
     * (a JVM without a UTF-8 locale relaunches itself, and a SIGKILL would then hit the launcher).
     *
     * @param name a name for messages
     * @param log the log file (created or replaced)
     * @param jvmOptions options before the class name
     * @param args the command line after the class name
     * @param env variables to set; an empty value removes the variable
     * @return the running child
     * @throws IOException when it cannot be started
     */
    public static ChildJvm start(String name, Path log, List<String> jvmOptions, List<String> args,
                                 Map<String, String> env) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "org.vancetope.worktarget.backend.daemon.cli.Main"));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("LC_ALL", "C.UTF-8");
        env.forEach((k, v) -> {
            if (v.isEmpty()) {
                pb.environment().remove(k);
            } else {
                pb.environment().put(k, v);
            }
        });
        Process p = pb.start();
        return new ChildJvm(name, p, log);
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * The log so far.
     *
     * @return the log text, or a note when it cannot be read
     */
    public String log() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /**
     * Waits until the log has a line matching a pattern and returns its first group.
     *
     * @param pattern a pattern with one group
     * @return the group's text
     * @throws AssertionError when the child exits first or the wait ends
     */
    public String awaitLog(Pattern pattern) {
        long end = System.nanoTime() + WAIT.toNanos();
        while (true) {
            Matcher m = pattern.matcher(log());
            if (m.find()) {
                return m.group(1);
            }
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited (" + process.exitValue() + ") before logging " + pattern
                        + "; its log:\n" + log());
            }
            if (System.nanoTime() > end) {
                throw new AssertionError(name + " did not log " + pattern + " within " + WAIT + "; its log:\n" + log());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /**
     * Kills the child with SIGKILL and waits until it is gone (and reaped, so its pid no longer runs).
     *
     * @throws InterruptedException when interrupted while waiting
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError(name + " (pid " + process.pid() + ") still runs " + WAIT + " after SIGKILL");
        }
    }

    /**
     * Waits until the child exits by itself.
     *
     * @return its exit code
     * @throws InterruptedException when interrupted while waiting
     * @throws AssertionError when it still runs after {@link #WAIT}
     */
    public int awaitExit() throws InterruptedException {
        if (!process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError(name + " still runs " + WAIT + " later; its log:\n" + log());
        }
        return process.exitValue();
    }

    /**
     * Sends SIGTERM and waits until the child has exited.
     *
     * @return its exit code
     * @throws InterruptedException when interrupted while waiting
     * @throws AssertionError when it still runs after {@link #WAIT}
     */
    public int terminate() throws InterruptedException {
        process.destroy();
        return awaitExit();
    }

    /** Stops the child if it still runs: SIGTERM, then SIGKILL when it does not exit in a few seconds. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}
