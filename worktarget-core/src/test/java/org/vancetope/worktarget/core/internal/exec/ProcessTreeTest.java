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
import org.vancetope.worktarget.testfixtures.Await;

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
    /** Processes that left their tree (re-parented to init), which the tear-down cannot find as descendants. */
    private final List<Long> leftTheTree = new ArrayList<>();

    @AfterEach
    void tearDown() {
        leftTheTree.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
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
        return new ProcessTree.Target(p.toHandle(), cookie, ProcessTree.startTicksOf(p.pid()));
    }

    private List<Long> pids(String... files) {
        List<Long> out = new ArrayList<>();
        for (String f : files) {
            out.add(Long.parseLong(Await.line(dir.resolve(f))));
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

    @Test
    void statGivesGroupSessionAndStartTimeWhenTheCommandHoldsBlanksAndParentheses() {
        String line = "4242 (a b) (c)) S 1 77 88 0 -1 4194560 100 0 0 0 3 4 0 0 20 0 1 0 987654 5566 77 18446744073709551615\n";
        ProcTable.Stat s = ProcTable.Stat.parse(line.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat(s).isEqualTo(new ProcTable.Stat(77, 88, 987654));
    }

    @Test
    void statThatIsCutShortOrNotNumericIsNotRead() {
        assertThat(ProcTable.Stat.parse("4242 (sh) S 1 77 88 0".getBytes())).isNull();
        assertThat(ProcTable.Stat.parse("4242 sh S 1 77 88".getBytes())).isNull();
        assertThat(ProcTable.Stat.parse("4242 (sh) S 1 x 88 0 -1 1 1 0 0 0 3 4 0 0 20 0 1 0 9 1".getBytes())).isNull();
        assertThat(ProcTable.Stat.read(dir.resolve("no-such-stat"))).isNull();
    }

    @Test
    void theStartTimeOfAProcessIsReadAndIsZeroOnceItIsGone() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self")), "no /proc");
        // exec: the shell becomes the sleep, so no child of it can be forked after the kill and outlive the test
        ProcessTree.Target t = start("exec sleep 1000", "cookie-ticks-1");
        assertThat(t.startTicks()).isPositive()
                .isGreaterThanOrEqualTo(ProcessTree.startTicksOf(ProcessHandle.current().pid()));
        started.get(0).destroyForcibly().waitFor();
        assertThat(ProcessTree.startTicksOf(t.root().pid())).isZero();
    }

    @Test
    void aSnapshotWithTheRootsStartTimeStillFindsADaemonisedGrandchildThatLeftTheSession() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self")), "no /proc");
        ProcessTree tree = new ProcessTree(scheduler, Duration.ofMillis(100));
        ProcessTree.Target t = start("(" + SETSID + " sleep 1000 & echo $! > g.pid) ; sleep 1000", "cookie-ticks-2");
        long grandchild = pids("g.pid").get(0);
        leftTheTree.add(grandchild);     // its subshell ends at once: it is init's child from then on
        Await.until("the grandchild runs in a session of its own", () -> {
            ProcTable.Stat s = ProcTable.Stat.read(Path.of("/proc/" + grandchild + "/stat"));
            return s != null && s.session() == grandchild;
        });
        assertThat(t.startTicks()).isPositive();

        assertThat(tree.snapshot(t)).containsKeys(t.root().pid(), grandchild);
    }

    @Test
    void aSnapshotSkipsAProcessStartedBeforeTheRootEvenIfItCarriesTheCookie() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self")), "no /proc");
        ProcessTree tree = new ProcessTree(scheduler, Duration.ofMillis(100));
        ProcessTree.Target older = start("exec sleep 1000", "cookie-ticks-3");
        Thread.sleep(50); // the start times are in clock ticks (10 ms): make the two starts differ
        ProcessTree.Target root = start("exec sleep 1000", "cookie-ticks-3");
        assertThat(root.startTicks()).isGreaterThan(older.startTicks());

        assertThat(tree.snapshot(root)).containsKey(root.root().pid()).doesNotContainKey(older.root().pid());
        assertThat(tree.snapshot(root.root(), root.cookie())).as("without the start time, every process is looked at")
                .containsKeys(root.root().pid(), older.root().pid());
    }

    @Test
    void aDeadRootWhosePidAnotherSessionLeaderHasNowLeavesThatSessionAlone() throws Exception {
        // another program's session, led by the pid a finished job's shell once had (the pid was given again)
        ProcessTree.Target other = start("echo $$ > leader.pid; sleep 1000 & echo $! > member.pid; wait", "other-program");
        List<Long> pids = pids("leader.pid", "member.pid");
        ProcessHandle leader = ProcessHandle.of(pids.get(0)).orElseThrow();
        assertThat(leader.pid()).isEqualTo(other.root().pid());
        // what the finished job's own handle says of that pid: not alive (its start time differs)
        ProcessHandle finishedJobsShell = new NotAlive(leader);
        ProcessTree tree = new ProcessTree(scheduler, Duration.ofMillis(100));

        int signalled = tree.terminateAll(List.of(new ProcessTree.Target(finishedJobsShell, "cookie-of-the-job", 0)));

        assertThat(signalled).isZero();
        assertThat(ProcessTreeKillTest.running(pids.get(0))).isTrue();
        assertThat(ProcessTreeKillTest.running(pids.get(1))).isTrue();
    }

    @Test
    void aDeadRootsSessionIsStillEndedWhileItsPidIsNotGivenAgain() throws Exception {
        ProcessTree.Target job = start("sh -c 'sleep 1000 & echo $! > left.pid' ; exit 0", "cookie-left-1");
        long left = pids("left.pid").get(0);
        Await.processGone(job.root().pid());
        // the leftover keeps the session (whose number is the dead shell's pid) alive; the cookie is not used
        ProcessTree tree = new ProcessTree(scheduler, Duration.ofMillis(100));

        int signalled = tree.terminateAll(List.of(new ProcessTree.Target(job.root(), null, job.startTicks())));

        assertThat(signalled).isEqualTo(1);
        Await.processGone(left);
    }

    /** A process's handle that says it is not alive, as the handle of a finished process whose pid was reused does. */
    private record NotAlive(ProcessHandle of) implements ProcessHandle {
        @Override
        public long pid() {
            return of.pid();
        }

        @Override
        public java.util.Optional<ProcessHandle> parent() {
            return java.util.Optional.empty();
        }

        @Override
        public java.util.stream.Stream<ProcessHandle> children() {
            return java.util.stream.Stream.empty();
        }

        @Override
        public java.util.stream.Stream<ProcessHandle> descendants() {
            return java.util.stream.Stream.empty();
        }

        @Override
        public Info info() {
            return of.info();
        }

        @Override
        public java.util.concurrent.CompletableFuture<ProcessHandle> onExit() {
            return java.util.concurrent.CompletableFuture.completedFuture(this);
        }

        @Override
        public boolean supportsNormalTermination() {
            return true;
        }

        @Override
        public boolean destroy() {
            return false;
        }

        @Override
        public boolean destroyForcibly() {
            return false;
        }

        @Override
        public boolean isAlive() {
            return false;
        }

        @Override
        public int compareTo(ProcessHandle other) {
            return Long.compare(pid(), other.pid());
        }
    }
}
