package org.vancetope.worktarget.core.internal.exec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ends the whole process tree of a job (spec §8 "Kill/Deadline"): a snapshot of the job's shell,
 * its descendants and — on Linux — every process that still carries the job's environment cookie
 * (which finds children that re-parented themselves by double-forking and {@code setsid}), then
 * SIGTERM to all of them, then after the grace period SIGKILL to whatever is left, scheduled on the
 * watchdog scheduler so the caller never blocks.
 *
 * <p>It does not follow a process that cleared its own environment and escaped its parent; the
 * isolation wrapper's PID namespace is the answer to that.
 */
final class ProcessTree {
    /** The environment variable that marks every process of a job. */
    static final String COOKIE_VAR = "WORKTARGET_EXEC_JOB";

    private static final Logger LOG = LoggerFactory.getLogger(ProcessTree.class);
    private static final Path PROC = Path.of("/proc");
    private static final int KILL_ROUNDS = 5;

    private final ScheduledExecutorService scheduler;
    private final Duration grace;
    private final boolean procAvailable;

    ProcessTree(ScheduledExecutorService scheduler, Duration grace) {
        this.scheduler = scheduler;
        this.grace = grace;
        this.procAvailable = Files.isDirectory(PROC.resolve("self"));
    }

    /**
     * Sends SIGTERM to the tree now and schedules SIGKILL for survivors after the grace period.
     *
     * @param root the job's top process
     * @param cookie the job's environment cookie
     */
    void terminate(ProcessHandle root, String cookie) {
        Map<Long, ProcessHandle> tree = snapshot(root, cookie);
        LOG.debug("SIGTERM to {} processes of job tree {}", tree.size(), root.pid());
        tree.values().forEach(ProcessHandle::destroy);
        try {
            scheduler.schedule(() -> killSurvivors(root, cookie), grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // The scheduler is gone (engine closed): do not leave the tree behind.
            killSurvivors(root, cookie);
        }
    }

    /**
     * Sends SIGKILL to everything of the tree that is still alive, in rounds until none is found, so
     * that children forked between the snapshot and the signal are caught too.
     *
     * @param root the job's top process
     * @param cookie the job's environment cookie
     */
    void killSurvivors(ProcessHandle root, String cookie) {
        for (int round = 0; round < KILL_ROUNDS; round++) {
            Map<Long, ProcessHandle> tree = snapshot(root, cookie);
            tree.values().removeIf(p -> !p.isAlive());
            if (tree.isEmpty()) {
                return;
            }
            LOG.debug("SIGKILL to {} surviving processes of job tree {}", tree.size(), root.pid());
            tree.values().forEach(ProcessHandle::destroyForcibly);
        }
    }

    /**
     * The live processes of the tree: the root, its descendants and every process carrying the cookie.
     *
     * @param root the job's top process
     * @param cookie the cookie
     * @return processes by pid
     */
    Map<Long, ProcessHandle> snapshot(ProcessHandle root, String cookie) {
        Map<Long, ProcessHandle> out = new LinkedHashMap<>();
        long self = ProcessHandle.current().pid();
        if (root.isAlive()) {
            out.put(root.pid(), root);
        }
        root.descendants().forEach(p -> out.put(p.pid(), p));
        if (procAvailable && cookie != null) {
            byte[] needle = (COOKIE_VAR + "=" + cookie).getBytes(StandardCharsets.US_ASCII);
            try (DirectoryStream<Path> dir = Files.newDirectoryStream(PROC)) {
                for (Path p : dir) {
                    String name = p.getFileName().toString();
                    if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
                        continue;
                    }
                    long pid;
                    try {
                        pid = Long.parseLong(name);
                    } catch (NumberFormatException e) {
                        continue;
                    }
                    if (pid == self || out.containsKey(pid)) {
                        continue;
                    }
                    if (environContains(p.resolve("environ"), needle)) {
                        Optional<ProcessHandle> h = ProcessHandle.of(pid);
                        h.ifPresent(ph -> out.put(pid, ph));
                    }
                }
            } catch (IOException e) {
                LOG.debug("listing /proc failed, killing by descendants only: {}", e.toString());
            }
        }
        out.remove(self);
        return out;
    }

    /**
     * Whether any process of the tree is alive.
     *
     * @param root the job's top process
     * @param cookie the cookie
     * @return true when some process of the tree lives
     */
    boolean anyAlive(ProcessHandle root, String cookie) {
        return snapshot(root, cookie).values().stream().anyMatch(ProcessHandle::isAlive);
    }

    private static boolean environContains(Path environ, byte[] needle) {
        // Entries are NUL-separated "KEY=VALUE"; match a whole entry.
        try (InputStream in = Files.newInputStream(environ)) {
            byte[] data = in.readAllBytes();
            int start = 0;
            for (int i = 0; i <= data.length; i++) {
                if (i == data.length || data[i] == 0) {
                    if (i - start == needle.length && regionEquals(data, start, needle)) {
                        return true;
                    }
                    start = i + 1;
                }
            }
            return false;
        } catch (IOException | SecurityException e) {
            return false; // gone, or not ours to read
        }
    }

    private static boolean regionEquals(byte[] data, int from, byte[] needle) {
        for (int j = 0; j < needle.length; j++) {
            if (data[from + j] != needle[j]) {
                return false;
            }
        }
        return true;
    }
}
