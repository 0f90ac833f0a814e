package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ProcessTree} on real processes, without an engine around it. */
class ProcessTreeTest {
    /**
     * A shell with two grandchildren that ignore SIGTERM (a subshell's ignore is inherited by what it starts);
     * the shell itself dies of SIGTERM, so they are re-parented when the SIGKILL round comes.
     */
    static final String TERM_IGNORING_TREE = "(trap '' TERM; sleep 1000 & echo $! > c1.pid; sleep 1000 & echo $! > c2.pid; wait) & "
            + "echo $! > sub.pid; wait";

    /** Jobs run as session leaders, as the engine starts them. */
    static final String SETSID = "/usr/bin/setsid";

    @TempDir
    Path dir;

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void tearDown() {
        started.forEach(p -> p.descendants().forEach(ProcessHandle::destroyForcibly));
        started.forEach(Process::destroyForcibly);
        scheduler.shutdownNow();
    }

    /** Starts a job shell in its own session, as the engine does, with the cookie in its environment. */
    private ProcessTree.Target start(String command, String cookie) throws IOException {
        Assumptions.assumeTrue(Files.isExecutable(Path.of(SETSID)), "setsid is not installed");
        ProcessBuilder pb = new ProcessBuilder(SETSID, "/bin/sh", "-c", command).directory(dir.toFile());
        pb.environment().put(ProcessTree.COOKIE_VAR, cookie);
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        started.add(p);
        return new ProcessTree.Target(p.toHandle(), cookie);
    }

    private List<Long> pids(String... files) {
        List<Long> out = new ArrayList<>();
        for (String f : files) {
            Path file = dir.resolve(f);
            Await.until(f + " written", () -> {
                try {
                    return Files.exists(file) && Files.readString(file).endsWith("\n");
                } catch (IOException e) {
                    return false;
                }
            });
            try {
                out.add(Long.parseLong(Files.readString(file).strip()));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }
        return out;
    }

    @Test
    void killingATermIgnoringTreeReportsNoSurvivorOnceItsProcessesAreDead() throws Exception {
        ProcessTree tree = new ProcessTree(scheduler, Duration.ofMillis(100));
        ProcessTree.Target t = start(TERM_IGNORING_TREE, "cookie-survivors-1");
        List<Long> pids = pids("c1.pid", "c2.pid", "sub.pid");
        tree.snapshot(t.root(), t.cookie()).values().forEach(ProcessHandle::destroy);
        started.get(0).waitFor();

        int survivors = tree.killSurvivors(List.of(t));

        assertThat(survivors).as("processes reported as surviving SIGKILL").isZero();
        for (long pid : pids) {
            Await.processGone(pid);
        }
    }

    @Test
    void aTreeThatAlreadyEndedHasNoSurvivor() throws Exception {
        ProcessTree tree = new ProcessTree(scheduler, Duration.ofMillis(100));
        ProcessTree.Target t = start("exit 0", "cookie-survivors-2");
        started.get(0).waitFor();

        assertThat(tree.killSurvivors(List.of(t))).isZero();
    }
}
