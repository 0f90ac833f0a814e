package org.vancetope.worktarget.core.internal.exec;

import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.Await;

class ExecEngineTest {
    static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");

    @TempDir
    Path dir;
    ExecEngine engine;

    @BeforeEach
    void setUp() {
        engine = ExecEngine.builder().settings(ExecSettings.builder().killGrace(Duration.ofMillis(200)).inlineOutputCharCap(200).build()).build();
    }

    @AfterEach
    void tearDown() {
        engine.close();
    }

    private ExecResult run(String scope, String command, Long waitMs, Long deadline) throws ToolException {
        return engine.run(new ExecRequest(scope, command, root(dir), ENV, waitMs, deadline, null));
    }

    private ExecResult run(String command) throws ToolException {
        return run("s1", command, 30_000L, null);
    }

    @Test
    void successfulCommandExitsWithCodeZeroAndOutput() throws ToolException {
        ExecResult r = run("echo hello; echo oops >&2");
        assertThat(r.status()).isEqualTo(JobStatus.EXITED);
        assertThat(r.exitCode()).isZero();
        assertThat(r.stdout()).isEqualTo("hello\n");
        assertThat(r.stderr()).isEqualTo("oops\n");
        assertThat(r.truncated()).isFalse();
        assertThat(r.hint()).isNull();
        assertThat(r.lastOutputAt()).isNotNull();
    }

    @Test
    void nonZeroExitIsFailedWithItsCode() throws ToolException {
        ExecResult r = run("exit 3");
        assertThat(r.status()).isEqualTo(JobStatus.FAILED);
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.lastOutputAt()).isNull();
    }

    /** The job's state now, for a condition to wait for. */
    private ExecResult statusOf(ExecResult job) {
        try {
            return engine.status("s1", job.id());
        } catch (ToolException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aProcessLeftInTheBackgroundOutlivesTheShellAndItsOutputIsKept() throws Exception {
        // the JDK closes its read end of the output pipe when the shell exits: a background process then died
        // of SIGPIPE at its next line ("late" was lost, alive.txt never written)
        ExecResult r = run("(sleep 1; echo late; echo late-err >&2; sleep 1; echo yes > alive.txt) & echo started");
        assertThat(r.stdout()).startsWith("started\n");
        Await.until("the background process wrote its file after its next line",
                () -> Files.exists(dir.resolve("alive.txt")));
        Await.until("its lines are in the job's output", () -> statusOf(r).stdout().contains("late")
                && statusOf(r).stderr().contains("late-err"));
        assertThat(Files.readString(dir.resolve(r.stdoutPath()))).isEqualTo("started\nlate\n");
    }

    @Test
    void theShellStillReadsEndOfInputOrTheGivenStdin() throws ToolException {
        assertThat(run("cat; [ -c /dev/stdin ] && echo from-dev-null").stdout()).isEqualTo("from-dev-null\n");
        ExecResult r = engine.run(new ExecRequest("s1", "cat", root(dir), ENV, 30_000L, null, null, "one\ntwo"));
        assertThat(r.stdout()).isEqualTo("one\ntwo");
        assertThat(run("read -r line; echo \"[$line]\"").stdout()).as("no line of the engine's reaches the command")
                .isEqualTo("[]\n");
    }

    @Test
    void forgettingAJobEndsWhatItLeftRunningAndStopsReadingIt() throws Exception {
        ExecResult r = run("sh -c 'echo $$ > bg.pid; while :; do echo tick; sleep 0.1; done' & echo started");
        Await.until("ticks arrive after the shell ended", () -> statusOf(r).stdout().contains("tick"));
        long pid = Long.parseLong(Files.readString(dir.resolve("bg.pid")).strip());
        engine.closeScope("s1");
        Await.processGone(pid);
        assertThat(dir.resolve(r.stdoutPath())).doesNotExist();
        assertThatThrownBy(() -> engine.status("s1", r.id())).isInstanceOf(ToolException.class);
    }

    @Test
    void commandRunsInTheGivenDirectory() throws ToolException {
        assertThat(run("pwd").stdout().strip()).isEqualTo(dir.toAbsolutePath().toString());
    }

    @Test
    void environmentIsExactlyTheGivenOnePlusTheJobCookie() throws ToolException {
        ExecResult r = engine.run(new ExecRequest("s1", "env", root(dir), Map.of("PATH", "/usr/bin:/bin", "FOO", "bar"),
                30_000L, null, null));
        Set<String> names = new HashSet<>();
        for (String line : r.stdout().split("\n")) {
            names.add(line.substring(0, line.indexOf('=')));
        }
        names.remove("PWD"); // the shell sets it
        assertThat(names).containsExactlyInAnyOrder("PATH", "FOO", ProcessTree.COOKIE_VAR);
    }

    @Test
    void anEnvironmentTooLargeAsAWholeToStartIsASizeLimitThatSaysWhatToDoAndLeavesNothing() throws Exception {
        // each variable fits in one string, together they are beyond what Linux takes at exec (E2BIG)
        Map<String, String> env = new java.util.HashMap<>(ENV);
        for (int i = 0; i < 100; i++) {
            env.put("V" + i, "x".repeat(100_000));
        }
        assertThatThrownBy(() -> engine.run(new ExecRequest("s1", "true", root(dir), env, 30_000L, null, null)))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SIZE_LIMIT))
                .hasMessageContaining("operating system").hasMessageContaining("file_write");
        assertThat(engine.list("s1").jobs()).isEmpty();
        assertThat(run("echo still fine").stdout()).isEqualTo("still fine\n");
    }

    @Test
    void stdinIsEmpty() throws ToolException {
        assertThat(run("cat; echo done").stdout()).isEqualTo("done\n");
    }

    @Test
    void waitShorterThanTheJobReturnsRunningWithId() throws ToolException {
        ExecResult r = run("s1", "echo started; sleep 1000", 0L, null);
        assertThat(r.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(r.exitCode()).isNull();
        assertThat(engine.kill("s1", r.id())).isTrue();
    }

    @Test
    void statusReportsTheEndOfAJobThatOutlivedItsWait() throws ToolException {
        ExecResult r = run("s1", "read x < /dev/null; echo late", 0L, null);
        ExecResult done = engine.await("s1", r.id(), 30_000);
        assertThat(done.status()).isEqualTo(JobStatus.EXITED);
        assertThat(engine.status("s1", r.id()).stdout()).isEqualTo("late\n");
    }

    @Test
    void fullOutputGoesToFilesWhileInlineIsHeadTail() throws ToolException, IOException {
        ExecResult r = run("i=0; while [ $i -lt 2000 ]; do echo line$i; i=$((i+1)); done");
        assertThat(r.truncated()).isTrue();
        assertThat(r.stdout()).startsWith("line0\n").endsWith("line1999\n").contains("…[truncated, ");
        assertThat(r.stdout().length()).isLessThanOrEqualTo(200);
        Path file = dir.resolve(r.stdoutPath());
        assertThat(Files.readAllLines(file)).hasSize(2000).endsWith("line1999");
        String full = Files.readString(file);
        assertThat(r.stdout()).isEqualTo(HeadTail.render(full, 200).text());
        assertThat(r.hint()).contains("tail -n", "head -n", "sed -n", "grep -n -m", r.stdoutPath());
    }

    @Test
    void outputFilesAreInTheRootsInternalDirectoryAndShownRelativeToIt() throws ToolException {
        ExecResult r = engine.run(new ExecRequest("s1", "echo x", root(dir), ENV, 30_000L, null, null));
        assertThat(r.stdoutPath()).isEqualTo(ConfinedRoot.jobOutputPath(r.id() + ".stdout")).startsWith(".worktarget/exec/");
        assertThat(r.stderrPath()).isEqualTo(ConfinedRoot.jobOutputPath(r.id() + ".stderr"));
        assertThat(dir.resolve(r.stdoutPath())).hasContent("x\n");
    }

    @Test
    void outputFileStopsAtItsCapButInlineTailStaysTrue() throws ToolException, IOException {
        try (ExecEngine small = ExecEngine.builder().settings(ExecSettings.builder().outputFileMaxBytes(1_000).inlineOutputCharCap(200).build()).build()) {
            ExecResult r = small.run(new ExecRequest("s1", "i=0; while [ $i -lt 1000 ]; do echo line$i; i=$((i+1)); done",
                    root(dir), ENV, 30_000L, null, null));
            assertThat(Files.size(dir.resolve(r.stdoutPath()))).isEqualTo(1_000);
            assertThat(r.stdout()).endsWith("line999\n");
            assertThat(r.truncated()).isTrue();
            assertThat(r.hint()).contains("outputFileMaxBytes");
            assertThat(small.tail("s1", r.id(), 2, false).lines()).containsExactly("line998", "line999");
        }
    }

    @Test
    void tailReadsTheLastLinesOfAStream() throws ToolException {
        ExecResult r = run("seq 1 100; echo e1 >&2; echo e2 >&2");
        assertThat(engine.tail("s1", r.id(), 3, false).lines()).containsExactly("98", "99", "100");
        ExecTailResult err = engine.tail("s1", r.id(), 10, true);
        assertThat(err.lines()).containsExactly("e1", "e2");
        assertThat(err.stream()).isEqualTo("stderr");
    }

    @Test
    void tailOfAJobThatPutAFifoInPlaceOfItsOutputFileAnswersFromMemory() throws Exception {
        // the job may write its RootDir, .worktarget included: a FIFO there once held exec_tail's thread for good
        ExecResult r = run("echo before; for f in .worktarget/exec/*/*.stdout; do rm -f \"$f\"; mkfifo \"$f\"; done; "
                + "echo after");
        assertThat(Files.isRegularFile(dir.resolve(r.stdoutPath()), java.nio.file.LinkOption.NOFOLLOW_LINKS)).isFalse();
        ExecTailResult tail = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60),
                () -> engine.tail("s1", r.id(), 5, false));
        assertThat(tail.lines()).containsExactly("before", "after");
    }

    @Test
    void tailOfAJobThatPutALinkInPlaceOfItsOutputFileAnswersFromMemoryAndDoesNotFollowIt() throws Exception {
        ExecResult r = run("echo before; echo DECOY > decoy.txt; for f in .worktarget/exec/*/*.stdout; do rm -f \"$f\"; "
                + "ln -s \"$PWD/decoy.txt\" \"$f\"; done; echo after");
        assertThat(Files.isSymbolicLink(dir.resolve(r.stdoutPath()))).isTrue();

        ExecTailResult tail = engine.tail("s1", r.id(), 5, false);

        assertThat(tail.lines()).containsExactly("before", "after");
    }

    @Test
    void tailOutsideItsBoundsIsRefused() throws ToolException {
        ExecResult r = run("true");
        assertThatThrownBy(() -> engine.tail("s1", r.id(), 501, false))
                .isInstanceOf(ToolException.class).hasMessageContaining("between 1 and 500");
        assertThatThrownBy(() -> engine.tail("s1", r.id(), 0, false)).isInstanceOf(ToolException.class);
    }

    @Test
    void jobsOfOneScopeAreInvisibleToAnother() throws ToolException {
        ExecResult r = run("s1", "sleep 1000", 0L, null);
        assertThatThrownBy(() -> engine.status("s2", r.id()))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND));
        assertThatThrownBy(() -> engine.tail("s2", r.id(), 1, false)).isInstanceOf(ToolException.class);
        assertThat(engine.kill("s2", r.id())).isFalse();
        assertThat(engine.status("s1", r.id()).status()).isEqualTo(JobStatus.RUNNING);
        assertThat(engine.kill("s1", r.id())).isTrue();
    }

    @Test
    void unknownJobStatusIsNotFoundWithAHint() {
        assertThatThrownBy(() -> engine.status("s1", "j0000"))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
                    assertThat(e.getMessage()).contains("exec_run");
                });
    }

    @Test
    void killOfUnknownOrFinishedJobIsFalse() throws ToolException {
        assertThat(engine.kill("s1", "nope")).isFalse();
        ExecResult r = run("true");
        assertThat(engine.kill("s1", r.id())).isFalse();
    }

    @Test
    void whyNothingWasKilledNamesAnUnknownJobOrHowTheJobEnded() throws ToolException {
        assertThat(engine.notKilledReason("s1", "nope")).startsWith("No job with id 'nope' here.")
                .endsWith("Nothing was killed; exec_status without an id lists the jobs here.");
        ExecResult r = run("exit 3");
        assertThat(engine.kill("s1", r.id())).isFalse();
        assertThat(engine.notKilledReason("s1", r.id()))
                .isEqualTo("Job '" + r.id() + "' had already ended (failed, exit code 3); nothing was killed.");
    }

    @Test
    void killedJobReportsKilled() throws ToolException {
        ExecResult r = run("s1", "sleep 1000", 0L, null);
        assertThat(engine.kill("s1", r.id())).isTrue();
        ExecResult done = engine.await("s1", r.id(), 30_000);
        assertThat(done.status()).isEqualTo(JobStatus.KILLED);
        assertThat(engine.kill("s1", r.id())).isFalse();
    }

    @Test
    void deadlineEndsTheJobAsTimedOut() throws ToolException {
        ExecResult r = run("s1", "sleep 1000", 30_000L, 1L);
        assertThat(r.status()).isEqualTo(JobStatus.TIMED_OUT);
    }

    @Test
    void aJobItsDeadlineEndedSaysWhichDeadlineAndHowToGiveItMoreTime() throws ToolException {
        ExecResult r = run("s1", "echo started; sleep 1000", 30_000L, 1L);

        assertThat(r.stdout()).isEqualTo("started\n");
        assertThat(r.hint()).isEqualTo("The job ran into its deadline (deadlineSeconds 1) and was ended: SIGTERM to its "
                + "processes, then SIGKILL to what still ran after the grace period; stdout and stderr hold its output up "
                + "to then. To give it more time, run it again with a larger deadlineSeconds; start a server or a "
                + "watcher without one, with waitMs 0, and follow it with exec_tail.");
        assertThat(engine.status("s1", r.id()).hint()).as("exec_status says it too").isEqualTo(r.hint());
        ExecResult killed = run("s1", "sleep 1000", 0L, null);
        engine.kill("s1", killed.id());
        assertThat(engine.await("s1", killed.id(), 30_000).hint()).as("a kill is no deadline").isNull();
    }

    @Test
    void waitIsCappedByMaxWait() throws ToolException {
        try (ExecEngine capped = ExecEngine.builder().settings(ExecSettings.builder().defaultWait(Duration.ZERO).maxWait(Duration.ZERO).build()).build()) {
            ExecResult r = capped.run(new ExecRequest("s1", "sleep 1000", root(dir), ENV, 3_600_000L, null, null));
            assertThat(r.status()).isEqualTo(JobStatus.RUNNING);
            assertThat(r.hint()).contains("still running").contains("It waited 0 ms, not the 3600000 ms asked for")
                    .contains("maxWait");
        }
    }

    @Test
    void aWaitWithinMaxWaitSaysNothingOfACap() throws ToolException {
        ExecResult r = engine.run(new ExecRequest("s1", "sleep 1000", root(dir), ENV, 0L, null, null));
        assertThat(r.status()).isEqualTo(JobStatus.RUNNING);
        assertThat(r.hint()).contains("still running").doesNotContain("maxWait");
        engine.kill("s1", r.id());
    }

    @Test
    void jobIdsAreLongRandomAndDistinct() throws ToolException {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 10; i++) {
            ids.add(run("true").id());
        }
        assertThat(ids).hasSize(10).allSatisfy(id -> assertThat(id).matches("j[0-9a-f]{20}"));
    }

    @Test
    void idCollisionDrawsAnotherId() throws ToolException {
        // Two engines' worth of ids from the same seed: the second draw repeats the first.
        try (ExecEngine seeded = ExecEngine.builder().random(new RepeatingRandom()).build()) {
            ExecResult a = seeded.run(new ExecRequest("s1", "true", root(dir), ENV, 30_000L, null, null));
            ExecResult b = seeded.run(new ExecRequest("s1", "true", root(dir), ENV, 30_000L, null, null));
            assertThat(a.id()).isNotEqualTo(b.id());
        }
    }

    /** Yields the same bytes for the first two id draws (cookies in between), then fresh ones. */
    static final class RepeatingRandom extends Random {
        private static final long serialVersionUID = 1L;
        private int calls;

        @Override
        public void nextBytes(byte[] bytes) {
            calls++;
            if (bytes.length == 10 && calls <= 3) {
                java.util.Arrays.fill(bytes, (byte) 7);
            } else {
                super.nextBytes(bytes);
            }
        }
    }

    @Test
    void oldestFinishedJobIsForgottenWithItsFilesWhenTheScopeIsFull() throws ToolException {
        try (ExecEngine two = ExecEngine.builder().settings(ExecSettings.builder().maxJobsPerScope(2).build()).build()) {
            ExecResult first = two.run(new ExecRequest("s1", "echo 1", root(dir), ENV, 30_000L, null, null));
            two.run(new ExecRequest("s1", "echo 2", root(dir), ENV, 30_000L, null, null));
            two.run(new ExecRequest("s1", "echo 3", root(dir), ENV, 30_000L, null, null));
            assertThat(two.jobCount("s1")).isEqualTo(2);
            assertThatThrownBy(() -> two.status("s1", first.id())).isInstanceOf(ToolException.class);
            Await.until("evicted files deleted", () -> !Files.exists(dir.resolve(first.stdoutPath())));
        }
    }

    @Test
    void fullScopeOfRunningJobsRefusesANewOneNamingTheLimit() throws ToolException {
        try (ExecEngine two = ExecEngine.builder().settings(ExecSettings.builder().maxJobsPerScope(2).killGrace(Duration.ofMillis(100)).build()).build()) {
            two.run(new ExecRequest("s1", "sleep 1000", root(dir), ENV, 0L, null, null));
            two.run(new ExecRequest("s1", "sleep 1000", root(dir), ENV, 0L, null, null));
            assertThatThrownBy(() -> two.run(new ExecRequest("s1", "true", root(dir), ENV, 0L, null, null)))
                    .isInstanceOfSatisfying(ToolException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
                        assertThat(e.getMessage()).contains("maxJobsPerScope", "exec_kill");
                    });
            assertThat(two.run(new ExecRequest("s2", "true", root(dir), ENV, 30_000L, null, null)).status())
                    .isEqualTo(JobStatus.EXITED);
        }
    }

    @Test
    void aProjectRunsAtMostMaxRunningJobsPerProjectOverAllItsSessionsAndOthersAreNotHeldBack() throws Exception {
        try (ExecEngine two = ExecEngine.builder().settings(ExecSettings.builder().maxRunningJobsPerProject(2)
                .killGrace(Duration.ofMillis(100)).build()).build()) {
            ExecResult a = two.run(new ExecRequest("acme/shop/session:s1", "sleep 1000", root(dir), ENV, 0L, null, null));
            two.run(new ExecRequest("acme/shop/process:p/x", "sleep 1000", root(dir), ENV, 0L, null, null));

            assertThatThrownBy(() -> two.run(new ExecRequest("acme/shop/session:s3", "true", root(dir), ENV, 0L, null,
                    null))).isInstanceOfSatisfying(ToolException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.SIZE_LIMIT);
                        assertThat(e.getMessage()).contains("Project acme/shop already has 2 running jobs",
                                "maxRunningJobsPerProject 2", "exec_kill");
                    });
            assertThat(two.run(new ExecRequest("acme/other/session:s1", "true", root(dir), ENV, 30_000L, null, null))
                    .status()).as("another project").isEqualTo(JobStatus.EXITED);
            assertThat(two.kill("acme/shop/session:s1", a.id())).isTrue();
            Await.until("the killed job ended", () -> {
                try {
                    return two.status("acme/shop/session:s1", a.id()).status().finished();
                } catch (ToolException e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(two.run(new ExecRequest("acme/shop/session:s3", "true", root(dir), ENV, 30_000L, null, null))
                    .status()).as("room again once one ended").isEqualTo(JobStatus.EXITED);
        }
    }

    @Test
    void theProjectOfAScopeIsItsTenantAndProjectWhateverTheRestHolds() {
        assertThat(JobTable.projectOf("acme/shop/session:s1")).isEqualTo("acme/shop");
        assertThat(JobTable.projectOf("acme/shop/process:a/b/c")).isEqualTo("acme/shop");
        assertThat(JobTable.projectOf("s1")).isEqualTo("s1");
    }

    @Test
    void closeScopeKillsItsJobsAndRemovesTheirFiles() throws ToolException {
        ExecResult r = run("s1", "sleep 1000", 0L, null);
        ExecResult other = run("s2", "sleep 1000", 0L, null);
        assertThat(engine.closeScope("s1")).isEqualTo(1);
        assertThat(dir.resolve(r.stdoutPath())).doesNotExist();
        assertThatThrownBy(() -> engine.status("s1", r.id())).isInstanceOf(ToolException.class);
        assertThat(engine.status("s2", other.id()).status()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void closeRootKillsJobsUnderThatRootOnly(@TempDir Path elsewhere) throws ToolException {
        ExecResult inRoot = run("s1", "sleep 1000", 0L, null);
        ExecResult outside = engine.run(new ExecRequest("s1", "sleep 1000", root(elsewhere), ENV, 0L, null, null));
        assertThat(engine.closeRoot(dir)).isEqualTo(1);
        assertThatThrownBy(() -> engine.status("s1", inRoot.id())).isInstanceOf(ToolException.class);
        assertThat(engine.status("s1", outside.id()).status()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void aJobThatStartsInAClosedRootIsKilledAndNotKeptUntilTheRootIsReopened() throws ToolException {
        engine.closeRoot(dir);     // a RootDir being disposed: a call already in it may still start a job

        ExecResult late = run("s1", "sleep 1000", 30_000L, null);

        assertThat(late.status()).isEqualTo(JobStatus.KILLED);
        assertThat(engine.jobCount("s1")).isZero();
        engine.reopenRoot(dir);    // the RootDir is gone; one of that name may be made again
        assertThat(run("echo again").stdout()).isEqualTo("again\n");
        assertThat(engine.jobCount("s1")).isEqualTo(1);
    }

    @Test
    void closedEngineRefusesNewJobs() {
        engine.close();
        assertThatThrownBy(() -> run("true")).isInstanceOfSatisfying(ToolException.class,
                e -> assertThat(e.getMessage()).contains("closed"));
    }

    @Test
    void missingWorkingDirectoryIsNotFoundWithoutLeakingThePath() throws IOException {
        Path gone = Files.createDirectories(dir.resolve("gone"));
        ConfinedRoot root = root(gone);
        Files.delete(gone);
        assertThatThrownBy(() -> engine.run(ExecRequest.of("s1", "true", root, ENV)))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
                    assertThat(e.getMessage()).doesNotContain(gone.toString());
                });
        assertThat(engine.jobCount("s1")).isZero();
    }

    @Test
    void workingDirectoryOnAVirtualFileSystemIsRefusedClearly() throws IOException {
        try (java.nio.file.FileSystem fs = com.google.common.jimfs.Jimfs.newFileSystem(
                com.google.common.jimfs.Configuration.unix())) {
            Path virtual = Files.createDirectories(fs.getPath("/work"));
            assertThatThrownBy(() -> engine.run(ExecRequest.of("s1", "true", root(virtual), ENV)))
                    .isInstanceOfSatisfying(ToolException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS);
                        assertThat(e.getMessage()).contains("default file system");
                    });
        }
    }

    @Test
    void blankCommandIsInvalid() {
        assertThatThrownBy(() -> run("  ")).isInstanceOfSatisfying(ToolException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS));
    }

    @Test
    void lastOutputAtComesFromTheInjectedClock() throws ToolException {
        Instant fixed = Instant.parse("2030-01-02T03:04:05Z");
        try (ExecEngine clocked = ExecEngine.builder().clock(Clock.fixed(fixed, ZoneOffset.UTC)).build()) {
            ExecResult r = clocked.run(new ExecRequest("s1", "echo x", root(dir), ENV, 30_000L, null, null));
            assertThat(r.lastOutputAt()).isEqualTo(fixed);
            assertThat(r.toMap()).containsEntry("lastOutputAt", "2030-01-02T03:04:05Z");
        }
    }

    @Test
    void invalidSettingsFailNamingTheSetting() {
        assertThatThrownBy(() -> ExecEngine.builder().settings(ExecSettings.builder().inlineOutputCharCap(10).build()).build())
                .hasMessageContaining("inlineOutputCharCap");
        assertThatThrownBy(() -> ExecEngine.builder().settings(ExecSettings.builder().maxJobsPerScope(0).build()).build()).hasMessageContaining("maxJobsPerScope");
        assertThatThrownBy(() -> ExecEngine.builder().settings(ExecSettings.builder().killGrace(Duration.ofMillis(-1)).build()).build()).hasMessageContaining("killGrace");
        assertThatThrownBy(() -> ExecEngine.builder().settings(ExecSettings.builder().defaultWait(Duration.ofMillis(10)).maxWait(Duration.ofMillis(5)).build()).build()).hasMessageContaining("maxWait");
        assertThatThrownBy(() -> ExecEngine.builder().settings(ExecSettings.builder().outputFileMaxBytes(0).build()).build()).hasMessageContaining("outputFileMaxBytes");
    }

    @Test
    void resultMapHasTheDocumentedFields() throws ToolException {
        Map<String, Object> m = run("echo hi").toMap();
        assertThat(m).containsOnlyKeys("id", "status", "exitCode", "durationMs", "lastOutputAt", "stdoutPath",
                "stderrPath", "stdout", "stderr", "truncated");
        assertThat(m).containsEntry("status", "exited").containsEntry("exitCode", 0).containsEntry("truncated", false);
    }

    @Test
    void backgroundChildHoldingThePipeDoesNotBlockTheResultBeyondTheDrain() throws ToolException {
        ExecResult r = run("sleep 1000 & echo parent-done");
        assertThat(r.status()).isEqualTo(JobStatus.EXITED);
        assertThat(r.stdout()).isEqualTo("parent-done\n");
        engine.closeScope("s1");
    }
}
