package org.vancetope.worktarget.core.internal.exec;

import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * Kill, deadline and close end the whole tree, proven on real processes: background children, a
 * grandchild that ignores SIGTERM and a grandchild that daemonises itself (double fork + setsid).
 */
class ProcessTreeKillTest {
    static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");

    /**
     * Starts: a plain background child, a grandchild ignoring SIGTERM, and a double-forked daemon in its
     * own session; each writes its pid to a file; the shell prints "ready" when all three are known.
     */
    static final String TREE = "sleep 1000 & echo $! > bg.pid; "
            + "sh -c 'sh -c \"trap \\\"\\\" TERM; echo \\$\\$ > ign.pid; exec sleep 1000\" & wait' & "
            + "sh -c 'setsid sh -c \"echo \\$\\$ > daemon.pid; exec sleep 1000\" &' ; "
            + "while [ ! -s ign.pid ] || [ ! -s daemon.pid ]; do sleep 0.01; done; echo ready; wait";

    @TempDir
    Path dir;
    ExecEngine engine;

    @BeforeEach
    void setUp() {
        engine = ExecEngine.builder().settings(ExecSettings.builder().killGrace(Duration.ofMillis(300)).build()).build();
    }

    /** Engines a test closes itself; closed again (a no-op then) after it. */
    private final List<ExecEngine> extras = new ArrayList<>();

    @AfterEach
    void tearDown() {
        engine.close();
        extras.forEach(ExecEngine::close);
    }

    private ExecEngine extra(ExecEngine e) {
        extras.add(e);
        return e;
    }

    private ExecResult startTree(Long deadline) throws ToolException {
        ExecResult r = engine.run(new ExecRequest("s", TREE, root(dir), ENV, 0L, deadline, null));
        Await.until("tree ready", () -> {
            try {
                return engine.status("s", r.id()).stdout().contains("ready");
            } catch (ToolException e) {
                throw new AssertionError(e);
            }
        });
        return r;
    }

    private List<Long> treePids() throws IOException {
        List<Long> pids = new ArrayList<>();
        for (String f : List.of("bg.pid", "ign.pid", "daemon.pid")) {
            pids.add(Long.parseLong(Files.readString(dir.resolve(f)).strip()));
        }
        return pids;
    }

    private static void assertAllAlive(List<Long> pids) {
        for (long pid : pids) {
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).as("pid %d alive", pid).contains(true);
        }
    }

    @Test
    void daemonisedGrandchildIsOutsideTheShellsDescendants() throws Exception {
        ExecResult r = startTree(null);
        long daemon = treePids().get(2);
        long shell = shellPid();
        assertThat(ProcessHandle.of(shell).orElseThrow().descendants().map(ProcessHandle::pid)).doesNotContain(daemon);
        engine.kill("s", r.id());
        Await.processGone(daemon);
    }

    private long shellPid() {
        return ProcessHandle.current().children()
                .filter(p -> p.info().arguments().map(a -> a.length > 1 && a[a.length - 1].endsWith(TREE)).orElse(false))
                .findFirst().orElseThrow().pid();
    }

    @Test
    void killEndsTheWholeTreeIncludingTermIgnoringAndDaemonisedGrandchildren() throws Exception {
        ExecResult r = startTree(null);
        List<Long> pids = treePids();
        long shell = shellPid();
        assertAllAlive(pids);
        assertThat(engine.kill("s", r.id())).isTrue();
        Await.processGone(shell);
        for (long pid : pids) {
            Await.processGone(pid);
        }
        assertThat(engine.await("s", r.id(), 30_000).status()).isEqualTo(JobStatus.KILLED);
    }

    @Test
    void killReturnsBeforeTheGracePeriodEnds() throws Exception {
        try (ExecEngine slow = ExecEngine.builder().settings(ExecSettings.builder().killGrace(Duration.ofMillis(3_600_000)).build()).build()) {
            ExecResult r = slow.run(new ExecRequest("s", "trap '' TERM; echo $$ > shell.pid; echo ready; while :; do sleep 1; done", root(dir), ENV,
                    0L, null, null));
            Await.until("ready", () -> {
                try {
                    return slow.status("s", r.id()).stdout().contains("ready");
                } catch (ToolException e) {
                    throw new AssertionError(e);
                }
            });
            // Returning at all proves the caller does not wait out an hour of grace.
            assertThat(slow.kill("s", r.id())).isTrue();
            assertThat(slow.status("s", r.id()).status()).isEqualTo(JobStatus.RUNNING);
            long shell = Long.parseLong(Files.readString(dir.resolve("shell.pid")).strip());
            ProcessHandle.of(shell).ifPresent(ProcessHandle::destroyForcibly);
            Await.processGone(shell);
        }
    }

    @Test
    void deadlineEndsTheWholeTree() throws Exception {
        ExecResult r = startTree(2L);
        List<Long> pids = treePids();
        for (long pid : pids) {
            Await.processGone(pid);
        }
        assertThat(engine.await("s", r.id(), 30_000).status()).isEqualTo(JobStatus.TIMED_OUT);
    }

    @Test
    void closingTheEngineEndsEveryTree() throws Exception {
        startTree(null);
        List<Long> pids = treePids();
        engine.close();
        for (long pid : pids) {
            Await.processGone(pid);
        }
    }

    @Test
    void closingTheScopeEndsTreesLeftBehindByAFinishedJob() throws Exception {
        ExecResult r = engine.run(new ExecRequest("s", "sh -c 'setsid sleep 1000 & echo $! > left.pid'", root(dir), ENV,
                30_000L, null, null));
        assertThat(r.status()).isEqualTo(JobStatus.EXITED);
        long left = Long.parseLong(Files.readString(dir.resolve("left.pid")).strip());
        assertThat(ProcessHandle.of(left).map(ProcessHandle::isAlive)).contains(true);
        assertThat(engine.kill("s", r.id())).isFalse();
        engine.closeScope("s");
        Await.processGone(left);
    }

    @Test
    void killEndsAReparentedGrandchildThatClearedItsEnvironment() throws Exception {
        ExecResult r = engine.run(new ExecRequest("s", "sh -c 'env -i /bin/sh -c \"echo \\$\\$ > clean.pid; exec sleep 1000\" &'; "
                + "while [ ! -s clean.pid ]; do sleep 0.01; done; echo ready; sleep 1000", root(dir), ENV, 0L, null, null));
        Await.until("ready", () -> {
            try {
                return engine.status("s", r.id()).stdout().contains("ready");
            } catch (ToolException e) {
                throw new AssertionError(e);
            }
        });
        long clean = Long.parseLong(Files.readString(dir.resolve("clean.pid")).strip());
        assertThat(ProcessHandle.of(clean).map(ProcessHandle::isAlive)).contains(true);
        assertThat(Files.readString(Path.of("/proc/" + clean + "/environ"))).doesNotContain(ProcessTree.COOKIE_VAR);
        assertThat(engine.kill("s", r.id())).isTrue();
        Await.processGone(clean);
    }

    @Test
    void forgettingAFinishedJobEndsWhatItLeftRunning() throws Exception {
        try (ExecEngine one = ExecEngine.builder().settings(ExecSettings.builder().maxJobsPerScope(1).killGrace(Duration.ofMillis(300)).build()).build()) {
            one.run(new ExecRequest("s", "sh -c 'setsid sleep 1000 & echo $! > left.pid'", root(dir), ENV, 30_000L, null,
                    null));
            long left = Long.parseLong(Files.readString(dir.resolve("left.pid")).strip());
            assertThat(ProcessHandle.of(left).map(ProcessHandle::isAlive)).contains(true);
            one.run(new ExecRequest("s", "true", root(dir), ENV, 30_000L, null, null));
            Await.processGone(left);
        }
    }

    @Test
    void jobRunsInItsOwnSession() throws Exception {
        ExecResult r = engine.run(new ExecRequest("s", "cut -d' ' -f6 /proc/$$/stat; echo $$", root(dir), ENV, 30_000L, null, null));
        String[] lines = r.stdout().strip().split("\\s+");
        assertThat(lines[0]).isEqualTo(lines[1]);
    }

    /** Whether a process still runs: alive and not a zombie waiting to be reaped. */
    static boolean running(long pid) {
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            try {
                String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
            } catch (IOException e) {
                return false; // gone meanwhile
            }
        }
        return false;
    }

    private static void assertNoneRuns(List<Long> pids, String when) {
        for (long pid : pids) {
            assertThat(running(pid)).as("pid %d still runs %s", pid, when).isFalse();
        }
    }

    @Test
    void closeReturnsOnlyOnceATermIgnoringTreeHasEnded() throws Exception {
        startTree(null);
        List<Long> pids = treePids();
        long shell = shellPid();

        engine.close();

        assertNoneRuns(List.of(shell), "after close returned");
        assertNoneRuns(pids, "after close returned");
    }

    @Test
    void closeReturnsWithoutWaitingOutTheGraceWhenTheTreeEndsOnSigterm() throws Exception {
        ExecEngine patient = extra(ExecEngine.builder().settings(ExecSettings.builder().killGrace(Duration.ofMillis(3_600_000)).build())
                .build());
        ExecResult r = patient.run(new ExecRequest("s", "sleep 1000 & echo $! > bg.pid; echo ready; wait", root(dir), ENV,
                0L, null, null));
        Await.until("ready", () -> {
            try {
                return patient.status("s", r.id()).stdout().contains("ready");
            } catch (ToolException e) {
                throw new AssertionError(e);
            }
        });
        long bg = Long.parseLong(Files.readString(dir.resolve("bg.pid")).strip());

        // Returning at all proves close does not wait out an hour when SIGTERM was enough.
        patient.close();

        assertNoneRuns(List.of(bg), "after close returned");
    }

    @Test
    void closeEndsATreeWhoseDelayedSigkillWasStillPending() throws Exception {
        ExecEngine graced = extra(ExecEngine.builder().settings(ExecSettings.builder().killGrace(Duration.ofMillis(2_000)).build()).build());
        ExecResult r = graced.run(new ExecRequest("s", "trap '' TERM; echo $$ > shell.pid; echo ready; "
                + "while :; do sleep 0.1; done", root(dir), ENV, 0L, null, null));
        Await.until("ready", () -> {
            try {
                return graced.status("s", r.id()).stdout().contains("ready");
            } catch (ToolException e) {
                throw new AssertionError(e);
            }
        });
        long shell = Long.parseLong(Files.readString(dir.resolve("shell.pid")).strip());
        assertThat(graced.kill("s", r.id())).isTrue();

        graced.close();

        assertNoneRuns(List.of(shell), "after close returned");
    }

    @Test
    void closeEndsWhatAForgottenJobLeftRunningWhoseSigkillWasPending() throws Exception {
        ExecEngine one = extra(ExecEngine.builder()
                .settings(ExecSettings.builder().maxJobsPerScope(1).killGrace(Duration.ofMillis(2_000)).build()).build());
        ExecResult first = one.run(new ExecRequest("s", "sh -c 'setsid sh -c \"trap \\\"\\\" TERM; "
                + "echo \\$\\$ > left.pid; exec sleep 1000\" &'; while [ ! -s left.pid ]; do sleep 0.01; done",
                root(dir), ENV, 30_000L, null, null));
        assertThat(first.status()).isEqualTo(JobStatus.EXITED);
        long left = Long.parseLong(Files.readString(dir.resolve("left.pid")).strip());
        assertThat(running(left)).as("the TERM-ignoring leftover runs").isTrue();
        one.run(new ExecRequest("s", "true", root(dir), ENV, 30_000L, null, null));
        // The forgotten job's pass sends SIGTERM and schedules SIGKILL.
        Await.until("the forgotten job's pass ran", () -> one.forgottenWaiting() == 0);

        one.close();

        assertNoneRuns(List.of(left), "after close returned");
    }

    @Test
    void closeEndsWhatAForgottenJobLeftRunningBeforeItsPassCame() throws Exception {
        ScheduledThreadPoolExecutor held = new ScheduledThreadPoolExecutor(1);
        CountDownLatch release = new CountDownLatch(1);
        held.execute(() -> {
            try {
                release.await();    // the engine's scheduled tasks, the forgotten jobs' pass among them, wait
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            ExecEngine one = extra(ExecEngine.builder().scheduler(held)
                    .settings(ExecSettings.builder().maxJobsPerScope(1).killGrace(Duration.ofMillis(300)).build()).build());
            // (its output elsewhere: the job ends with its shell, without the drain the held scheduler would time)
            one.run(new ExecRequest("s", "sh -c 'setsid sleep 1000 > /dev/null 2>&1 & echo $! > left.pid'", root(dir),
                    ENV, 30_000L, null, null));
            long left = Long.parseLong(Files.readString(dir.resolve("left.pid")).strip());
            one.run(new ExecRequest("s", "true", root(dir), ENV, 30_000L, null, null));
            assertThat(one.forgottenWaiting()).isEqualTo(1);
            assertThat(running(left)).as("its pass has not come").isTrue();

            one.close();

            assertNoneRuns(List.of(left), "after close returned");
            assertThat(one.forgottenWaiting()).isZero();
        } finally {
            release.countDown();
            held.shutdownNow();
        }
    }

    @Test
    void jobsEvictedTogetherAreEndedInOnePass() throws Exception {
        try (ExecEngine one = ExecEngine.builder()
                .settings(ExecSettings.builder().maxJobsPerScope(1).killGrace(Duration.ofMillis(300)).build()).build()) {
            List<Long> left = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                one.run(new ExecRequest("s", "sh -c 'setsid sleep 1000 & echo $! > left" + i + ".pid'", root(dir), ENV,
                        30_000L, null, null));
                left.add(Long.parseLong(Files.readString(dir.resolve("left" + i + ".pid")).strip()));
            }
            one.run(new ExecRequest("s", "true", root(dir), ENV, 30_000L, null, null));
            for (long pid : left) {
                Await.processGone(pid);
            }
            assertThat(one.forgottenWaiting()).isZero();
        }
    }

    @Test
    void everyCallOfCloseReturnsOnlyOnceTheTreesHaveEnded() throws Exception {
        startTree(null);
        List<Long> pids = treePids();
        CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
            engine.close();
            assertNoneRuns(pids, "after the concurrent close returned");
        });

        engine.close();

        assertNoneRuns(pids, "after close returned");
        other.get(Await.LIMIT.toSeconds(), TimeUnit.SECONDS);
    }
}
