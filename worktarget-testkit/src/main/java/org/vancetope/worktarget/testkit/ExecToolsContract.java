package org.vancetope.worktarget.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.JsonValues;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The behaviour of the four exec tools ({@code *_exec_run}, {@code *_exec_status}, {@code *_exec_tail},
 * {@code *_exec_kill}), written once and run against every backend through {@link BackendTool}.
 *
 * <pre>{@code
 * class MyExecToolsTest extends ExecToolsContract {
 *     private MyBackend backend;
 *
 *     protected List<BackendTool> createExecTools(Path workDir) {
 *         backend = MyBackend.open(workDir);
 *         return backend.tools();     // its four exec tools are tested, any other tool is left aside
 *     }
 *
 *     protected void closeBackend() {
 *         backend.close();
 *     }
 * }
 * }</pre>
 *
 * <p>The backend must run jobs in {@code workDir}, scope jobs at least by session, and use an inline
 * cap of at least 1,000 characters. Every test kills the jobs it leaves running; the subclass closes
 * its engine (e.g. in an {@code @AfterEach}). It does not test isolation or HOME.
 */
public abstract class ExecToolsContract {
    private static final Duration LIMIT = Duration.ofSeconds(30);
    private static final List<String> EXEC_TOOLS = List.of("exec_run", "exec_status", "exec_tail", "exec_kill");
    private static final Pattern SENTINEL = Pattern.compile("\n…\\[truncated, (\\d+) chars omitted]\n");

    /** For subclasses: a backend's test extends this class. */
    protected ExecToolsContract() {
    }

    /** The work directory the tools must run in. */
    @TempDir
    protected Path workDir;

    private Map<String, BackendTool> tools;
    private final List<String> started = new ArrayList<>();

    /**
     * Creates the backend's exec tools, running jobs in {@code workDir}.
     *
     * @param workDir the directory jobs must run in
     * @return the four tools (any prefix); other tools in the list are left aside
     * @throws Exception when the backend cannot be set up
     */
    protected abstract List<BackendTool> createExecTools(Path workDir) throws Exception;

    /**
     * Where jobs of {@link #context()} must run; by default the real path of {@code workDir}. A backend
     * that runs jobs in a directory of its own (a workspace RootDir) returns that one.
     *
     * @return the expected working directory, canonical
     * @throws java.io.IOException when it cannot be resolved
     */
    protected Path expectedWorkingDirectory() throws java.io.IOException {
        return workDir.toRealPath();
    }

    /**
     * The caller of most tests.
     *
     * @return a context
     */
    protected ToolContext context() {
        return new ToolContext("p-contract", "s-contract", "acme", "shop", "alice");
    }

    /**
     * A caller of another session, which must not see the first one's jobs.
     *
     * @return a context
     */
    protected ToolContext otherSession() {
        return new ToolContext("p-other", "s-other", "acme", "shop", "alice");
    }

    @BeforeEach
    final void createTools() throws Exception {
        tools = new HashMap<>();
        List<String> names = new ArrayList<>();
        for (BackendTool t : createExecTools(workDir)) {
            String name = t.spec().name();
            names.add(name);
            int at = name.indexOf("exec_");
            if (at >= 0 && EXEC_TOOLS.contains(name.substring(at))
                    && tools.put(name.substring(at), t) != null) {
                throw new IllegalStateException("createExecTools returned two tools for " + name.substring(at)
                        + ": return one backend's four exec tools");
            }
        }
        assertThat(tools.keySet()).as("the exec tools among those createExecTools returned: %s (a tool is found "
                + "by its name's exec_xxx suffix, e.g. client_exec_run)", names).containsExactlyInAnyOrderElementsOf(EXEC_TOOLS);
    }

    @AfterEach
    final void killLeftovers() throws Exception {
        try {
            for (String id : started) {
                call("exec_kill", Map.of("id", id));
            }
        } finally {
            closeBackend();
        }
    }

    /**
     * Closes the backend after each test, once the jobs a test left running were killed through it.
     * Override it instead of an own {@code @AfterEach} (which JUnit would run before the kills).
     *
     * @throws Exception when closing fails
     */
    protected void closeBackend() throws Exception {
    }

    /**
     * Calls a tool as {@link #context()}.
     *
     * @param tool e.g. {@code "exec_run"}
     * @param params the parameters
     * @return the result
     * @throws ToolException as the tool throws
     */
    protected final Map<String, Object> call(String tool, Map<String, Object> params) throws ToolException {
        // any Number is a valid result value; compared in the shape the dispatcher hands out (Integer when it fits)
        return JsonValues.normalized(tools.get(tool).invoke(params, context()));
    }

    private Map<String, Object> run(String command, Map<String, Object> more) throws ToolException {
        Map<String, Object> p = new HashMap<>(more);
        p.put("command", command);
        Map<String, Object> r = call("exec_run", p);
        if ("running".equals(r.get("status"))) {
            started.add((String) r.get("id"));
        }
        return r;
    }

    private Map<String, Object> run(String command) throws ToolException {
        return run(command, Map.of("waitMs", 30_000));
    }

    private Map<String, Object> awaitStatus(String id, String wanted) throws ToolException {
        long end = System.nanoTime() + LIMIT.toNanos();
        while (true) {
            Map<String, Object> s = call("exec_status", Map.of("id", id));
            if (wanted.equals(s.get("status"))) {
                return s;
            }
            if (System.nanoTime() > end) {
                throw new AssertionError("job " + id + " did not reach " + wanted + " within " + LIMIT + ": " + s);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    private static ErrorCode code(Throwable t) {
        return ((ToolException) t).code();
    }

    @Test
    void toolSpecsComeFromTheCatalog() {
        for (BackendTool t : tools.values()) {
            assertThat(ToolCatalog.backend(t.spec().name())).contains(t.spec());
        }
    }

    @Test
    void runReturnsExitCodeAndBothStreams() throws ToolException {
        Map<String, Object> r = run("echo out; echo err >&2");
        assertThat(r).containsEntry("status", "exited").containsEntry("exitCode", 0)
                .containsEntry("stdout", "out\n").containsEntry("stderr", "err\n").containsEntry("truncated", false);
        assertThat(r).containsKeys("id", "durationMs", "lastOutputAt", "stdoutPath", "stderrPath").doesNotContainKey("hint");
    }

    @Test
    void nonZeroExitIsFailed() throws ToolException {
        assertThat(run("exit 7")).containsEntry("status", "failed").containsEntry("exitCode", 7);
    }

    @Test
    void jobRunsInTheWorkDirectory() throws Exception {
        assertThat(((String) run("pwd -P").get("stdout")).strip()).isEqualTo(expectedWorkingDirectory().toString());
    }

    @Test
    void envExtrasReachTheJob() throws ToolException {
        assertThat(run("echo \"$GREETING\"", Map.of("waitMs", 30_000, "env", Map.of("GREETING", "hello")))
                .get("stdout")).isEqualTo("hello\n");
    }

    @Test
    void longOutputIsHeadTailWithTheExactOmittedCount() throws ToolException {
        Map<String, Object> r = run("i=0; while [ $i -lt 5000 ]; do echo \"line $i\"; i=$((i+1)); done");
        String out = (String) r.get("stdout");
        assertThat(r).containsEntry("truncated", true).containsKey("hint");
        assertThat(out).startsWith("line 0\n").endsWith("line 4999\n");
        Matcher m = SENTINEL.matcher(out);
        assertThat(m.find()).isTrue();
        long total = 0;
        for (int i = 0; i < 5000; i++) {
            total += ("line " + i + "\n").length();
        }
        long kept = out.length() - m.group().length();
        assertThat(kept + Long.parseLong(m.group(1))).isEqualTo(total);
        assertThat((String) r.get("hint")).contains((String) r.get("stdoutPath"));
    }

    @Test
    void fullOutputCanBePagedFromTheFileWithBoundedCommands() throws ToolException {
        Map<String, Object> r = run("i=0; while [ $i -lt 5000 ]; do echo \"line $i\"; i=$((i+1)); done");
        String path = (String) r.get("stdoutPath");
        assertThat(run("wc -l < '" + path + "'").get("stdout").toString().strip()).isEqualTo("5000");
        assertThat(run("sed -n '2500,2501p' '" + path + "'").get("stdout")).isEqualTo("line 2499\nline 2500\n");
    }

    @Test
    void shortWaitReturnsRunningAndStatusSeesTheEnd() throws ToolException {
        Map<String, Object> r = run("sleep 1; echo done", Map.of("waitMs", 0));
        assertThat(r).containsEntry("status", "running").containsEntry("exitCode", null);
        Map<String, Object> s = awaitStatus((String) r.get("id"), "exited");
        assertThat(s).containsEntry("stdout", "done\n").containsEntry("exitCode", 0);
    }

    @Test
    void tailReturnsTheLastLinesOfTheChosenStream() throws ToolException {
        Map<String, Object> r = run("seq 1 50; seq 101 103 >&2");
        String id = (String) r.get("id");
        Map<String, Object> t = call("exec_tail", Map.of("id", id));
        assertThat(t.get("lines")).isEqualTo(List.of("41", "42", "43", "44", "45", "46", "47", "48", "49", "50"));
        Map<String, Object> e = call("exec_tail", Map.of("id", id, "n", 2, "stream", "stderr"));
        assertThat(e.get("lines")).isEqualTo(List.of("102", "103"));
        assertThat(e).containsEntry("stream", "stderr");
    }

    @Test
    void tailOfMoreThan500LinesIsInvalid() throws ToolException {
        String id = (String) run("true").get("id");
        assertThatThrownBy(() -> call("exec_tail", Map.of("id", id, "n", 501)))
                .isInstanceOf(ToolException.class).satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.INVALID_PARAMS));
    }

    @Test
    void tailOfAnUnknownStreamIsInvalid() throws ToolException {
        String id = (String) run("true").get("id");
        assertThatThrownBy(() -> call("exec_tail", Map.of("id", id, "stream", "stdin")))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.INVALID_PARAMS));
    }

    @Test
    void aJobStillRunningSaysThatItGoesOnAndHowToFollowOrEndIt() throws ToolException {
        Map<String, Object> r = run("sleep 1000", Map.of("waitMs", 0));
        String id = (String) r.get("id");
        assertThat(r).containsEntry("status", "running");
        assertThat((String) r.get("hint")).contains("still running").contains("'" + id + "'").contains("exec_tail")
                .contains("exec_kill").contains("starts a second one");
        assertThat((String) call("exec_status", Map.of("id", id)).get("hint")).contains("still running");
        call("exec_kill", Map.of("id", id));
        assertThat(awaitStatus(id, "killed")).doesNotContainKey("hint");
    }

    @Test
    void killEndsARunningJob() throws ToolException {
        String id = (String) run("sleep 1000", Map.of("waitMs", 0)).get("id");
        assertThat(call("exec_kill", Map.of("id", id))).containsEntry("id", id).containsEntry("killed", true)
                .doesNotContainKey("hint");
        awaitStatus(id, "killed");
    }

    @Test
    void killOfAFinishedJobIsFalseSayingHowItEnded() throws ToolException {
        String id = (String) run("true").get("id");
        assertThat(call("exec_kill", Map.of("id", id))).containsEntry("killed", false)
                .containsEntry("hint", "Job '" + id + "' had already ended (exited, exit code 0); nothing was killed.");
    }

    @Test
    void killOfAFinishedJobEndsWhatItLeftRunningInTheBackground() throws ToolException {
        Map<String, Object> r = run("sleep 1000 > /dev/null 2>&1 & echo $!");
        String id = (String) r.get("id");
        String pid = ((String) r.get("stdout")).strip();
        assertThat(r).containsEntry("status", "exited");
        assertThat(alive(pid)).as("the background process outlives its job").isTrue();
        assertThat(call("exec_kill", Map.of("id", id))).containsEntry("killed", true).containsEntry("hint", "Job '" + id
                + "' had already ended; the process it left running in the background (e.g. 'server &') was told to end.");
        // one job that waits for the end (polling with a job each would push the first out of the scope)
        assertThat(run("while kill -0 " + pid + " 2>/dev/null; do sleep 0.05; done; echo gone"))
                .as("process " + pid + " left by job " + id + " ended after the kill").containsEntry("stdout", "gone\n");
        assertThat(call("exec_kill", Map.of("id", id))).as("nothing is left the second time").containsEntry("killed", false)
                .containsEntry("hint", "Job '" + id + "' had already ended (exited, exit code 0); nothing was killed.");
    }

    /** Whether a process runs, asked through the backend itself (its view of process ids). */
    private boolean alive(String pid) throws ToolException {
        return "alive\n".equals(run("kill -0 " + pid + " 2>/dev/null && echo alive || echo gone").get("stdout"));
    }

    @Test
    void killOfAnUnknownJobIsFalseNotAnErrorSayingNoSuchJobIsHere() throws ToolException {
        assertThat(call("exec_kill", Map.of("id", "j00000000000000000000"))).containsEntry("killed", false)
                .hasEntrySatisfying("hint", h -> assertThat((String) h).contains(
                        "No job with id 'j00000000000000000000' here", "Nothing was killed"));
    }

    @Test
    void statusWithAnEmptyIdIsInvalidSayingToOmitIt() {
        assertThatThrownBy(() -> call("exec_status", Map.of("id", "")))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.INVALID_PARAMS))
                .hasMessageContaining("omit it to list the jobs");
    }

    @Test
    void statusOfAnUnknownJobIsNotFound() {
        assertThatThrownBy(() -> call("exec_status", Map.of("id", "j00000000000000000000")))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.NOT_FOUND));
    }

    @Test
    void anotherSessionCannotSeeOrKillTheJob() throws ToolException {
        String id = (String) run("sleep 1000", Map.of("waitMs", 0)).get("id");
        assertThatThrownBy(() -> tools.get("exec_status").invoke(Map.of("id", id), otherSession()))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.NOT_FOUND));
        assertThat(tools.get("exec_kill").invoke(Map.of("id", id), otherSession())).containsEntry("killed", false)
                .hasEntrySatisfying("hint", h -> assertThat((String) h).as("no sign that the job exists")
                        .startsWith("No job with id '" + id + "' here"));
        assertThat(call("exec_status", Map.of("id", id))).containsEntry("status", "running");
    }

    @Test
    void deadlineEndsTheJobAsTimedOut() throws ToolException {
        Map<String, Object> r = run("sleep 1000", Map.of("waitMs", 30_000, "deadlineSeconds", 1));
        assertThat(r).containsEntry("status", "timed_out");
    }

    @Test
    void aJobItsDeadlineEndedSaysWhichDeadline() throws ToolException {
        Map<String, Object> r = run("sleep 1000", Map.of("waitMs", 30_000, "deadlineSeconds", 1));
        assertThat(r).hasEntrySatisfying("hint", h -> assertThat((String) h)
                .startsWith("The job ran into its deadline (deadlineSeconds 1)"));
    }

    @Test
    void aProgramThatIsNotInstalledAndAGrepThatFoundNothingAreExplained() throws ToolException {
        assertThat(run("no-such-program-here-xyz", Map.of("waitMs", 30_000))).containsEntry("exitCode", 127)
                .hasEntrySatisfying("hint", h -> assertThat((String) h)
                        .startsWith("'no-such-program-here-xyz' is not a command here"));
        assertThat(run("echo alpha | grep beta", Map.of("waitMs", 30_000))).containsEntry("exitCode", 1)
                .hasEntrySatisfying("hint", h -> assertThat((String) h)
                        .startsWith("'grep' ends with exit code 1 when no line matched"));
    }

    @Test
    void aPortTakenWhileAnotherJobOfTheCallerRunsNamesThatJob() throws ToolException {
        String server = (String) run("sleep 300", Map.of("waitMs", 0)).get("id");
        try {
            assertThat(run("echo 'Error: listen EADDRINUSE: address already in use :::3000' >&2; exit 1",
                    Map.of("waitMs", 30_000))).hasEntrySatisfying("hint", h -> assertThat((String) h)
                            .startsWith("The port the command would listen on is taken")
                            .contains("Your job '" + server + "' (sleep 300) still runs"));
        } finally {
            call("exec_kill", Map.of("id", server));
        }
    }

    @Test
    void aWriteToAFullDiskIsExplained() throws ToolException {
        Assumptions.assumeTrue(Files.exists(Path.of("/dev/full")), "no /dev/full here to stand for a full disk");
        assertThat(run("dd if=/dev/zero of=/dev/full bs=1 count=1", Map.of("waitMs", 30_000)))
                .containsEntry("exitCode", 1).hasEntrySatisfying("hint", h -> assertThat((String) h)
                        .startsWith("The disk the command wrote to is full, or its quota used up (No space left on "
                                + "device)"));
    }

    @Test
    void missingCommandIsInvalid() {
        assertThatThrownBy(() -> call("exec_run", Map.of()))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.INVALID_PARAMS));
    }

    @Test
    void negativeWaitIsInvalid() {
        assertThatThrownBy(() -> call("exec_run", Map.of("command", "true", "waitMs", -1)))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.INVALID_PARAMS));
    }

    @Test
    void zeroDeadlineIsInvalid() {
        assertThatThrownBy(() -> call("exec_run", Map.of("command", "true", "deadlineSeconds", 0)))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.INVALID_PARAMS));
    }

    @Test
    void envWithANonStringValueIsInvalid() {
        assertThatThrownBy(() -> call("exec_run", Map.of("command", "true", "env", Map.of("A", 1))))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.INVALID_PARAMS));
    }

    @Test
    void aCommandWithANulCharacterIsInvalidAndSaysWhy() {
        assertThatThrownBy(() -> call("exec_run", Map.of("command", "echo a\0b")))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.INVALID_PARAMS))
                .hasMessageContaining("NUL").hasMessageContaining("file_write");
    }

    @Test
    void aCommandOfTheMostBytesOneArgumentMayHaveRuns() throws ToolException {
        String prefix = ": ";
        String suffix = "; echo ran";
        String command = prefix + "x".repeat(128 * 1024 - 1 - prefix.length() - suffix.length()) + suffix;
        Map<String, Object> r = run(command, Map.of("waitMs", 30_000));
        assertThat(r).containsEntry("exitCode", 0).containsEntry("stdout", "ran\n");
    }

    @Test
    void aCommandLongerThanOneArgumentMayBeIsASizeLimitThatSaysWhatToDo() {
        String command = ": " + "x".repeat(128 * 1024);
        assertThatThrownBy(() -> call("exec_run", Map.of("command", command)))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.SIZE_LIMIT))
                .hasMessageContaining("131071").hasMessageContaining("file_write");
    }

    @Test
    void anEnvVariableLongerThanOneVariableMayBeIsASizeLimitNamingIt() {
        assertThatThrownBy(() -> call("exec_run", Map.of("command", "true", "env", Map.of("BIG", "x".repeat(128 * 1024)))))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.SIZE_LIMIT))
                .hasMessageContaining("'BIG'").hasMessageContaining("file_write");
    }

    // ===== exec_status listing, stdin

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> jobsOf(Map<String, Object> listing) {
        return (List<Map<String, Object>>) listing.get("jobs");
    }

    @Test
    void statusWithoutIdListsNoJobsWhenTheSessionHasNone() throws ToolException {
        Map<String, Object> r = call("exec_status", Map.of());
        assertThat(jobsOf(r)).isEmpty();
        assertThat(r).containsEntry("count", 0).containsEntry("total", 0).containsEntry("truncated", false);
    }

    @Test
    void statusWithoutIdListsTheSessionsJobsNewestFirst() throws ToolException {
        String first = (String) run("exit 3").get("id");
        String second = (String) run("sleep 1000", Map.of("waitMs", 0)).get("id");
        List<Map<String, Object>> jobs = jobsOf(call("exec_status", Map.of()));
        assertThat(jobs).extracting(j -> j.get("id")).containsExactly(second, first);
        assertThat(jobs.get(0)).containsEntry("command", "sleep 1000").containsEntry("status", "running")
                .containsEntry("exitCode", null).containsEntry("finishedAt", null);
        assertThat(jobs.get(1)).containsEntry("command", "exit 3").containsEntry("status", "failed")
                .containsEntry("exitCode", 3);
        assertThat(jobs.get(1).get("startedAt")).isInstanceOf(String.class);
        assertThat(jobs.get(1).get("finishedAt")).isInstanceOf(String.class);
        assertThat(jobs.get(0)).containsOnlyKeys("id", "command", "status", "exitCode", "startedAt", "finishedAt");
    }

    @Test
    void statusWithoutIdDoesNotListAnotherSessionsJobs() throws Exception {
        run("true");
        Map<String, Object> r = JsonValues.normalized(tools.get("exec_status").invoke(Map.of(), otherSession()));
        assertThat(jobsOf(r)).isEmpty();
    }

    @Test
    void stdinIsWrittenToTheCommandAndClosed() throws ToolException {
        Map<String, Object> r = run("tr a-z A-Z", Map.of("stdin", "hello\nworld\n", "waitMs", 30_000));
        assertThat(r).containsEntry("status", "exited").containsEntry("stdout", "HELLO\nWORLD\n");
    }

    @Test
    void emptyStdinGivesAnEmptyInput() throws ToolException {
        Map<String, Object> r = run("wc -c", Map.of("stdin", "", "waitMs", 30_000));
        assertThat(r).containsEntry("status", "exited");
        assertThat(((String) r.get("stdout")).strip()).isEqualTo("0");
    }

    @Test
    void withoutStdinTheInputIsEmpty() throws ToolException {
        assertThat(((String) run("wc -c").get("stdout")).strip()).isEqualTo("0");
    }

    @Test
    void stdinThatTheCommandDoesNotReadDoesNotBlockTheRun() throws ToolException {
        Map<String, Object> r = run("echo done", Map.of("stdin", "x".repeat(900_000), "waitMs", 30_000));
        assertThat(r).containsEntry("status", "exited").containsEntry("stdout", "done\n");
    }

    @Test
    void stdinOverTheCapIsASizeLimitThatSaysWhatToDo() {
        String big = "x".repeat(1024 * 1024 + 1);
        assertThatThrownBy(() -> call("exec_run", Map.of("command", "cat", "stdin", big)))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.SIZE_LIMIT))
                .hasMessageContaining("1048576").hasMessageContaining("file_write");
    }

    @Test
    void stdinCountsUtf8BytesAgainstTheCap() {
        String big = "\u00e9".repeat(512 * 1024 + 1);
        assertThatThrownBy(() -> call("exec_run", Map.of("command", "cat", "stdin", big)))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.SIZE_LIMIT));
    }

    @Test
    void stdinThatIsNotAStringIsInvalid() {
        assertThatThrownBy(() -> call("exec_run", Map.of("command", "cat", "stdin", 5)))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.INVALID_PARAMS));
    }

    // ===== what a terminal shows

    @Test
    void outputInlineIsWhatATerminalShowsWhileTheFileKeepsEveryByte() throws Exception {
        Map<String, Object> r = run("printf 'get 10%%\\rget 100%%\\n\\033[31mred\\033[0m\\n'; printf 'x\\bwarn\\n' >&2");
        assertThat(r).containsEntry("stdout", "get 100%\nred\n").containsEntry("stderr", "warn\n");
        assertThat(Files.readString(expectedWorkingDirectory().resolve((String) r.get("stdoutPath"))))
                .isEqualTo("get 10%\rget 100%\n\u001b[31mred\u001b[0m\n");
    }

    @Test
    void tailShowsTheLastRedrawOfAProgressLine() throws ToolException {
        Map<String, Object> r = run("printf 'start\\nget 10%%\\rget 100%%\\n'");
        assertThat(call("exec_tail", Map.of("id", r.get("id"), "n", 2)).get("lines")).isEqualTo(List.of("start",
                "get 100%"));
    }

    @Test
    void aRunningPythonScriptsOutputShowsBeforeItEnds() throws ToolException {
        Map<String, Object> r = run("python3 -c pass 2>/dev/null || { echo no-python; exit 0; }; "
                + "python3 -c \"import time; print('ready'); time.sleep(1000)\"", Map.of("waitMs", 0));
        String id = (String) r.get("id");
        long end = System.nanoTime() + LIMIT.toNanos();
        String out = "";
        // unbuffered, print writes the text and its line end apart: wait for the whole line
        while (!out.contains("ready\n") && !out.contains("no-python") && System.nanoTime() < end) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            out = (String) call("exec_status", Map.of("id", id)).get("stdout");
        }
        Assumptions.assumeFalse(out.contains("no-python"), "python3 does not run here");
        assertThat(out).as("printed into a pipe, Python keeps its output in a buffer until it exits")
                .isEqualTo("ready\n");
        assertThat(call("exec_status", Map.of("id", id))).containsEntry("status", "running");
    }

    // ===== memory

    @Test
    void aJobAndWhatItStartsAreTheFirstTheOutOfMemoryKillerTakes() throws ToolException {
        Assumptions.assumeTrue(Files.isRegularFile(Path.of("/proc/self/oom_score_adj")),
                "no /proc/self/oom_score_adj here (not Linux)");
        Map<String, Object> r = run("cat /proc/self/oom_score_adj; sh -c 'cat /proc/self/oom_score_adj'");
        assertThat(r).containsEntry("stdout", "1000\n1000\n").containsEntry("stderr", "");
    }

    // ===== cwd, and what does not carry over

    @Test
    void cwdRunsTheCommandInThatDirectoryBelowTheWorkDirectory() throws Exception {
        Path sub = Files.createDirectories(expectedWorkingDirectory().resolve("src/main"));
        Map<String, Object> r = run("pwd -P; ls", Map.of("cwd", "src/main", "waitMs", 30_000));
        assertThat(r).containsEntry("status", "exited");
        assertThat((String) r.get("stdout")).isEqualTo(sub.toRealPath() + "\n");
    }

    @Test
    void cwdDotOrEmptyIsTheWorkDirectory() throws Exception {
        for (String cwd : new String[] {".", "", "./", "src/.."}) {
            Files.createDirectories(expectedWorkingDirectory().resolve("src"));
            assertThat(((String) run("pwd -P", Map.of("cwd", cwd, "waitMs", 30_000)).get("stdout")).strip()).as(cwd)
                    .isEqualTo(expectedWorkingDirectory().toString());
        }
    }

    @Test
    void cwdKeepsTheOutputFilesWhereTheResultSays() throws Exception {
        Files.createDirectories(expectedWorkingDirectory().resolve("sub"));
        Map<String, Object> r = run("echo hello", Map.of("cwd", "sub", "waitMs", 30_000));
        assertThat(expectedWorkingDirectory().resolve((String) r.get("stdoutPath"))).hasContent("hello");
    }

    @Test
    void cwdWithQuotesSpacesAndADashWorks() throws Exception {
        Path sub = Files.createDirectories(expectedWorkingDirectory().resolve("it's a -dir"));
        Map<String, Object> r = run("pwd -P", Map.of("cwd", "it's a -dir", "waitMs", 30_000));
        assertThat(((String) r.get("stdout")).strip()).isEqualTo(sub.toRealPath().toString());
    }

    @Test
    void cwdIsNotSearchedInACdpathOfTheEnvironment() throws Exception {
        Path sub = Files.createDirectories(expectedWorkingDirectory().resolve("sub"));
        Path elsewhere = Files.createDirectories(expectedWorkingDirectory().resolve("elsewhere/sub")).getParent();
        Map<String, Object> r = run("pwd -P", Map.of("cwd", "sub", "waitMs", 30_000,
                "env", Map.of("CDPATH", elsewhere.toString())));
        assertThat((String) r.get("stdout")).as("cd prints the directory it found through CDPATH")
                .isEqualTo(sub.toRealPath() + "\n");
    }

    @Test
    void cwdThroughALinkInsideTheWorkDirectoryRunsInItsTarget() throws Exception {
        Path real = Files.createDirectories(expectedWorkingDirectory().resolve("real"));
        Files.createSymbolicLink(expectedWorkingDirectory().resolve("alias"), Path.of("real"));
        assertThat(((String) run("pwd -P", Map.of("cwd", "alias", "waitMs", 30_000)).get("stdout")).strip())
                .isEqualTo(real.toRealPath().toString());
    }

    @Test
    void cwdOutsideTheWorkDirectoryIsAPathEscape() throws Exception {
        Files.createSymbolicLink(expectedWorkingDirectory().resolve("out"), Path.of("/tmp"));
        for (String cwd : new String[] {"..", "../..", "/tmp", "out", "src/../../x"}) {
            assertThatThrownBy(() -> call("exec_run", Map.of("command", "touch escaped", "cwd", cwd))).as(cwd)
                    .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.PATH_ESCAPE));
        }
        assertThat(jobsOf(call("exec_status", Map.of()))).as("no job was started").isEmpty();
    }

    @Test
    void cwdInsideTheLibrarysOwnDirectoryIsRefused() throws Exception {
        run("true");
        assertThatThrownBy(() -> call("exec_run", Map.of("command", "ls", "cwd", ".worktarget/exec")))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.PATH_ESCAPE));
    }

    @Test
    void aMissingCwdIsNotFoundWithTheNameMeant() throws Exception {
        Files.createDirectories(expectedWorkingDirectory().resolve("backend"));
        assertThatThrownBy(() -> call("exec_run", Map.of("command", "make", "cwd", "bakend")))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.NOT_FOUND))
                .hasMessageContaining("'bakend' (parameter 'cwd') does not exist").hasMessageContaining("'backend'")
                .hasMessageContaining("file_mkdir");
        assertThat(jobsOf(call("exec_status", Map.of()))).isEmpty();
    }

    @Test
    void aCwdThatIsAFileIsInvalid() throws Exception {
        Files.writeString(expectedWorkingDirectory().resolve("Makefile"), "all:\n");
        assertThatThrownBy(() -> call("exec_run", Map.of("command", "make", "cwd", "Makefile")))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.INVALID_PARAMS))
                .hasMessageContaining("is a file, not a directory");
    }

    @Test
    void aCwdThatIsNotAStringIsInvalid() {
        assertThatThrownBy(() -> call("exec_run", Map.of("command", "ls", "cwd", 5)))
                .satisfies(t -> assertThat(code(t)).isEqualTo(ErrorCode.INVALID_PARAMS));
    }

    @Test
    void aLoneCdSaysThatItDoesNotCarryOverToTheNextCall() throws Exception {
        Files.createDirectories(expectedWorkingDirectory().resolve("backend"));
        Map<String, Object> r = run("cd backend");
        assertThat(r).containsEntry("exitCode", 0);
        assertThat((String) r.get("hint")).contains("next exec_run starts a new one").contains("cwd 'backend'")
                .contains("'cd backend && make'");
        assertThat(((String) run("pwd -P").get("stdout")).strip()).isEqualTo(expectedWorkingDirectory().toString());
    }

    @Test
    void aLoneExportSaysToPassVariablesInEnv() throws ToolException {
        assertThat((String) run("export NODE_ENV=test").get("hint")).contains("pass variables in env")
                .doesNotContain("cwd");
    }

    @Test
    void aCdFollowedByWorkGetsNoHint() throws Exception {
        Files.createDirectories(expectedWorkingDirectory().resolve("backend"));
        assertThat(run("cd backend && ls")).doesNotContainKey("hint");
        assertThat(run("export")).as("a bare export prints the variables").doesNotContainKey("hint");
    }
}
