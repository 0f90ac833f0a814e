package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.internal.path.Reserved;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * Jobs in control groups of their own ({@code jobControlGroups}, {@code maxJobProcesses}): a fork bomb meets
 * the cap instead of the machine's limit and its result says so, the tree kill finds a process that left
 * the job's session and cleared its environment, a job's group goes when its tree ended, a start that fails
 * leaves no group, and what a killed JVM left is swept. Proven with real groups of the {@code pids} controller
 * where this test may make them (root, cgroup v1 with the pids hierarchy, as on CI), skipped with the reason
 * elsewhere.
 */
@EnabledOnOs(OS.LINUX)
class JobControlGroupsTest {
    private static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");
    private static final int CAP = 24;

    @TempDir
    Path dir;
    private Path parent;
    private ExecEngine engine;
    private final List<Process> started = new ArrayList<>();

    @BeforeEach
    void setUp() {
        parent = TestGroups.testParent("pids", "pids.max");
        Assumptions.assumeTrue(parent != null, "no pids control group can be made here (needs root and the pids "
                + "controller of cgroup v1 below this JVM's group)");
    }

    @AfterEach
    void tearDown() throws IOException {
        if (engine != null) {
            engine.close();
        }
        started.forEach(Process::destroyForcibly);
        TestGroups.removeAll(parent);
    }

    private ExecEngine engine(int cap) {
        engine = ExecEngine.builder().settings(ExecSettings.builder().jobControlGroups(parent).maxJobProcesses(cap)
                .killGrace(Duration.ofMillis(500)).build()).build();
        return engine;
    }

    /** An engine whose jobs run in the bubblewrap template, in groups with the cap; skips where bwrap is unusable. */
    private void bubblewrapEngine() {
        Assumptions.assumeTrue(BubblewrapIsolationTest.bwrapWorks(), "bwrap is not usable here");
        Isolation bwrap = Isolation.fromConfig(ExecSettings.IsolationMode.CUSTOM, Isolation.defaultBubblewrapTemplate(),
                System::getenv);
        engine = ExecEngine.builder().isolation(bwrap).settings(ExecSettings.builder().jobControlGroups(parent)
                .maxJobProcesses(CAP).killGrace(Duration.ofMillis(500)).build()).build();
    }

    private ExecResult run(String command, long waitMs) throws ToolException {
        return engine.run(new ExecRequest("s", command, root(dir), ENV, waitMs, null, null));
    }

    private List<Path> groups() {
        return TestGroups.jobGroups(parent);
    }

    private static long count(Path group, String file) throws IOException {
        return Long.parseLong(Files.readString(group.resolve(file), StandardCharsets.US_ASCII).strip());
    }

    @Test
    void eachJobRunsInAGroupOfItsOwnWithTheCap() throws Exception {
        engine(CAP);
        ExecResult r = run("sleep 300", 300);

        assertThat(r.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(groups()).hasSize(1);
        Path group = groups().get(0);
        assertThat(group.getFileName().toString()).startsWith(JobControlGroups.PREFIX + ProcessTree.COOKIE_OWNER);
        assertThat(Files.readString(group.resolve("pids.max")).strip()).isEqualTo(Integer.toString(CAP));
        Await.until("the shell and its sleep are in the group", () -> JobControlGroups.members(group).size() == 2);
        for (long pid : JobControlGroups.members(group)) {
            assertThat(Files.readString(Path.of("/proc", Long.toString(pid), "cgroup")))
                    .contains(parent.getFileName() + "/" + group.getFileName());
        }
    }

    @Test
    void aForkBombMeetsTheCapAndItsResultSaysSo() throws Exception {
        engine(CAP);
        // every function call forks two more in the background, for good (until the forks fail); the deadline
        // ends what is left of it should it not die out by itself
        ExecResult r = engine.run(new ExecRequest("s", "b() { b | b & }; b; sleep 1; wait", root(dir), ENV, 120_000L,
                20L, null));

        assertThat(r.status()).isIn(JobStatus.EXITED, JobStatus.FAILED, JobStatus.TIMED_OUT);
        assertThat(r.hint()).contains("cap of " + CAP + " processes and threads per job (maxJobProcesses)")
                .contains("fewer parallel workers");
        List<Path> bomb = groups();
        for (Path g : bomb) {
            assertThat(count(g, "pids.current")).isLessThanOrEqualTo(CAP);
            if (Files.isRegularFile(g.resolve("pids.peak"))) {
                assertThat(count(g, "pids.peak")).as("never more than the cap at once").isLessThanOrEqualTo(CAP);
            }
        }
        // the server still starts threads and jobs
        assertThat(run("echo still here", 30_000).stdout()).isEqualTo("still here\n");

        engine.close();

        assertThat(groups()).as("every job's group went with its tree (" + bomb + ")").isEmpty();
    }

    @Test
    void aJobUnderItsCapGetsNoHint() throws Exception {
        engine(CAP);
        ExecResult r = run("for i in 1 2 3; do true & done; wait; echo ok", 30_000);

        assertThat(r.stdout()).isEqualTo("ok\n");
        assertThat(r.hint()).isNull();
    }

    @Test
    void theKillFindsAProcessThatLeftTheSessionAndClearedItsEnvironment() throws Exception {
        engine(CAP);
        TestGroups.Escape job = TestGroups.escape(engine, dir, ENV);
        assertThat(ProcessHandle.of(job.escaped())).isPresent();

        assertThat(engine.kill("s", job.id())).isTrue();

        Await.processGone(job.escaped());
        Await.until("the job's group is removed", () -> groups().isEmpty());
    }

    @Test
    void withoutAGroupSuchAProcessOutlivesTheKill() throws Exception {
        // the limit the groups lift: the tree kill alone does not find it
        engine = ExecEngine.builder().settings(ExecSettings.builder().killGrace(Duration.ofMillis(300)).build()).build();
        TestGroups.Escape job = TestGroups.escape(engine, dir, ENV);
        ProcessHandle shell = ProcessHandle.of(job.escaped()).orElseThrow();
        try {
            engine.kill("s", job.id());
            engine.close();
            assertThat(shell.isAlive()).isTrue();
        } finally {
            shell.destroyForcibly();
        }
    }

    @Test
    void aFinishedJobsGroupGoesWithItsTree() throws Exception {
        engine(CAP);
        ExecResult r = run("echo done", 30_000);
        assertThat(r.status()).isEqualTo(JobStatus.EXITED);
        assertThat(groups()).as("kept for what the job may have left running").hasSize(1);

        assertThat(engine.endLeftBehind("s", r.id())).isZero();

        assertThat(groups()).isEmpty();
    }

    @Test
    void closingTheEngineEndsEveryJobAndRemovesTheirGroups() throws Exception {
        engine(CAP);
        run("sleep 300", 200);
        run("sleep 300 & sleep 300", 200);
        assertThat(groups()).hasSize(2);

        engine.close();

        assertThat(groups()).isEmpty();
    }

    @Test
    void aJobWhoseGroupCannotBeMadeDoesNotStartAndLeavesNothing() throws Exception {
        engine(CAP);
        Files.delete(parent);       // the operator removed the directory while the server ran

        assertThatThrownBy(() -> run("touch ran", 30_000)).isInstanceOfSatisfying(ToolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL);
            assertThat(e.getMessage()).contains("control group").contains(parent.toString()).contains("Try again");
        });
        assertThat(dir.resolve("ran")).doesNotExist();
        try (Stream<Path> files = Files.walk(dir)) {
            assertThat(files.filter(Files::isRegularFile).toList()).as("no output files").isEmpty();
        }
        assertThat(engine.list("s").jobs()).isEmpty();
        parent = null;
    }

    @Test
    void theGroupsAKilledJvmLeftAreSweptWhenAnEngineStarts() throws Exception {
        String ns = ProcessTree.COOKIE_OWNER.substring(0, ProcessTree.COOKIE_OWNER.indexOf('.') + 1);
        Process gone = new ProcessBuilder("true").start();
        assertThat(gone.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Path stale = Files.createDirectory(parent.resolve(JobControlGroups.PREFIX + ns
                + Reserved.ownerOfProcess(gone.pid()) + ".0123456789abcdef0123456789abcdef"));
        Process orphan = sleeper();
        Files.writeString(stale.resolve("cgroup.procs"), Long.toString(orphan.pid()));
        Path live = Files.createDirectory(parent.resolve(JobControlGroups.PREFIX + ProcessTree.COOKIE_OWNER + "feed"));
        Path foreign = Files.createDirectory(parent.resolve("someone-else"));

        engine(CAP);

        assertThat(orphan.waitFor(30, TimeUnit.SECONDS)).as("the orphan in the stale group is killed").isTrue();
        assertThat(stale).doesNotExist();
        assertThat(live).as("this JVM's own").isDirectory();
        assertThat(foreign).as("not a job's group").isDirectory();
        Files.delete(live);
        Files.delete(foreign);
    }

    private Process sleeper() throws IOException {
        Process p = new ProcessBuilder("sleep", "300").redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        started.add(p);
        return p;
    }

    @Test
    void enginesBuiltAtOnceOnTheSameDirectoryDoNotTakeEachOthersProbes() throws Exception {
        ExecSettings s = ExecSettings.builder().jobControlGroups(parent).maxJobProcesses(CAP).build();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        try {
            List<java.util.concurrent.Future<ExecEngine>> built = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                built.add(pool.submit(() -> ExecEngine.builder().settings(s).build()));
            }
            for (java.util.concurrent.Future<ExecEngine> f : built) {
                f.get().close();        // throws when a build failed
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(groups()).as("every probe removed").isEmpty();
    }

    @Test
    void aDirectoryThatIsNoControlGroupIsRefusedWhenTheEngineIsBuilt() {
        ExecSettings s = ExecSettings.builder().jobControlGroups(dir).maxJobProcesses(CAP).build();

        assertThatThrownBy(() -> ExecEngine.builder().settings(s).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jobControlGroups " + dir + " is not a control group directory")
                .hasMessageContaining("/sys/fs/cgroup");
    }

    @Test
    void aWrapperThatTakesNoShellCommandIsRefusedWithAGroup() {
        ExecSettings s = ExecSettings.builder().jobControlGroups(parent).build();
        Isolation noShell = Isolation.custom("/usr/bin/env {cmd}");

        assertThatThrownBy(() -> ExecEngine.builder().settings(s).isolation(noShell).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("gives the command to a shell");
    }

    @Test
    void aJobInBubblewrapEntersItsGroupWithTheWrapperAndEverythingInside() throws Exception {
        bubblewrapEngine();
        ExecResult r = run("sleep 300 & sleep 300", 500);
        Path group = groups().get(0);
        Await.until("both sleeps run", () -> JobControlGroups.members(group).stream()
                .filter(pid -> ProcessHandle.of(pid).flatMap(h -> h.info().command()).orElse("").endsWith("sleep"))
                .count() == 2);
        List<Long> members = JobControlGroups.members(group);
        ProcessHandle wrapper = members.stream().map(ProcessHandle::of).flatMap(java.util.Optional::stream)
                .filter(h -> h.parent().map(ProcessHandle.current()::equals).orElse(false)).findFirst().orElseThrow();
        assertThat(members).as("bwrap and everything below it").contains(wrapper.pid())
                .containsAll(wrapper.descendants().map(ProcessHandle::pid).toList())
                .as("bwrap, its init in the sandbox, the shell and two sleeps").hasSizeGreaterThanOrEqualTo(4);

        assertThat(engine.kill("s", r.id())).isTrue();

        Await.until("the job's group is removed", () -> !Files.exists(group));
    }

    @Test
    void aCommandTooLongToWaitForItsGroupIsRefusedSayingHowLongItMayBe() throws Exception {
        engine(CAP);
        String command = "#" + "x".repeat(JobLauncher.MAX_ARGUMENT_BYTES - 1);

        assertThatThrownBy(() -> run(command, 30_000)).isInstanceOfSatisfying(ToolException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
            assertThat(e.getMessage()).contains("too long to start under this server's caps per job")
                    .contains("at most ").contains("file_write");
        });
        assertThat(groups()).isEmpty();
        assertThat(engine.list("s").jobs()).isEmpty();
    }

    @Test
    void theCapHintCountsTheRefusedForksAndNamesTheSetting() {
        assertThat(ExecResults.processCapHint(1, 64)).startsWith("The job reached this server's cap of 64 processes "
                + "and threads per job (maxJobProcesses): 1 fork failed");
        assertThat(ExecResults.processCapHint(7, 64)).contains(": 7 forks failed");
        assertThat(ExecResults.processCapHint(0, 64)).isNull();
        assertThat(ExecResults.processCapHint(3, 0)).isNull();
    }

    @Test
    void aJobInBubblewrapCannotMoveItselfOutOfItsGroup() throws Exception {
        bubblewrapEngine();
        Path top = parent.getParent().resolve("cgroup.procs");

        ExecResult r = run("echo $$ > " + top + " && echo moved; echo $$ > " + parent.resolve("cgroup.procs")
                + " && echo moved", 30_000);

        assertThat(r.stdout()).doesNotContain("moved");
        assertThat(r.stderr()).contains("cgroup.procs");
        assertThat(groups()).hasSize(1);
    }

    @Test
    void aGroupWithoutACapStillHoldsTheJob() throws Exception {
        engine = ExecEngine.builder().settings(ExecSettings.builder().jobControlGroups(parent).build()).build();
        ExecResult r = run("sleep 300", 300);

        assertThat(groups()).hasSize(1);
        assertThat(Files.readString(groups().get(0).resolve("pids.max")).strip()).isEqualTo("max");
        engine.kill("s", r.id());
    }
}
