package org.vancetope.worktarget.core.internal.exec;

import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.Await;

/** What the tests of jobs' control groups share: a job that escapes its tree, and the clean-up of a test's groups. */
final class TestGroups {
    private TestGroups() {
    }

    /**
     * A running job whose one child starts a new session, clears its environment (no job cookie) and leaves a
     * process behind when it exits at once (re-parented): what the tree kill alone cannot find.
     *
     * @param engine the engine
     * @param dir the job's directory
     * @param env the job's environment
     * @return the job and the pid of the escaped process
     */
    static Escape escape(ExecEngine engine, Path dir, Map<String, String> env) throws ToolException {
        Path pidFile = dir.resolve("escaped.pid");
        ExecResult r = engine.run(new ExecRequest("s", "setsid env -i /bin/sh -c 'sleep 300 & echo $! > escaped.pid' "
                + "< /dev/null > /dev/null 2>&1; sleep 300", root(dir), env, 500L, null, null));
        Await.until("the escaped process wrote its pid", () -> Files.isRegularFile(pidFile)
                && Await.line(pidFile) != null);
        return new Escape(r.id(), Long.parseLong(Await.line(pidFile).strip()));
    }

    /**
     * A job and the process that escaped its tree.
     *
     * @param id the job's id
     * @param escaped the escaped process
     */
    record Escape(String id, long escaped) {
    }

    /**
     * A fresh group below this JVM's own in the cgroup v1 hierarchy of a controller, which a test makes its
     * jobs' groups in; null where that is impossible (not root, no such hierarchy, cgroup v2 only).
     *
     * @param controller the controller, e.g. {@code pids}
     * @param file a file the controller gives each group, e.g. {@code pids.max}
     * @return the group, or null
     */
    static Path testParent(String controller, String file) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
                String[] f = line.split(":", 3);
                if (f.length == 3 && List.of(f[1].split(",")).contains(controller)) {
                    Path mine = Path.of("/sys/fs/cgroup/" + controller + f[2]);
                    Path made = Files.createDirectory(mine.resolve("worktarget-test-" + UUID.randomUUID()));
                    if (Files.isRegularFile(made.resolve(file))) {
                        return made;
                    }
                    Files.delete(made);
                }
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return null;
    }

    /**
     * The jobs' groups below a test's parent group now.
     *
     * @param parent the parent
     * @return the groups
     */
    static List<Path> jobGroups(Path parent) {
        try (Stream<Path> all = Files.list(parent)) {
            return all.filter(g -> g.getFileName().toString().startsWith(JobControlGroups.PREFIX)).toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Kills what still runs in the groups below a test's parent group, removes them and the parent.
     *
     * @param parent the test's parent group, or null
     */
    static void removeAll(Path parent) throws IOException {
        if (parent == null) {
            return;
        }
        try (Stream<Path> groups = Files.list(parent)) {
            for (Path g : groups.filter(Files::isDirectory).toList()) {
                JobControlGroups.members(g).forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
                Await.until("the leftover group " + g + " is removed", () -> JobControlGroups.remove(g));
            }
        }
        Files.deleteIfExists(parent);
    }
}
