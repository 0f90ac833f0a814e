package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The WORK backend on the real disk against what a job can do to its own RootDir: plant links where
 * the library keeps its files, race the disposal of the RootDir with link swaps, and leave job output
 * for the file tools to find. Jobs run unisolated here (a job can then reach anything anyway; what is
 * tested is that the library itself never writes, reads or deletes outside the RootDir through
 * what a job planted) and, where bubblewrap runs, inside it.
 */
@EnabledOnOs(OS.LINUX)
class WorkConfinementTest {
    private static final ToolContext P1 = new ToolContext("p1", "s1", "acme", "proj", "alice");
    private static final Map<String, String> HOST_ENV = Map.of("PATH", "/usr/bin:/bin");
    private static final int DIRS = 8;
    private static final int FILES = 150;

    @TempDir
    Path tmp;
    private Path outside;
    private WorkspaceBackend work;

    @BeforeEach
    void setUp() throws IOException {
        outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "TOP SECRET\n");
        work = backend(ExecSettings.defaults());
    }

    private WorkspaceBackend backend(ExecSettings exec) {
        return WorkspaceBackend.builder().workspaceRoot(tmp.resolve("workspace")).homesRoot(tmp.resolve("homes"))
                .hostEnvironment(HOST_ENV).execSettings(exec).build();
    }

    @AfterEach
    void tearDown() {
        work.close();
    }

    private Map<String, Object> call(String tool, Object... kv) throws ToolException {
        Map<String, Object> p = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            p.put((String) kv[i], kv[i + 1]);
        }
        BackendTool t = work.tools().stream().filter(x -> x.spec().name().equals(tool)).findFirst().orElseThrow();
        return t.invoke(p, P1);
    }

    private Path rootDir() throws ToolException {
        return work.resolveRoot(P1, null);
    }

    private List<String> tree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.map(p -> dir.relativize(p).toString()).sorted().toList();
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> paths(Object entries) {
        List<String> out = new ArrayList<>();
        for (Object e : (List<Object>) entries) {
            out.add(e instanceof Map<?, ?> m ? String.valueOf(m.get("path")) : String.valueOf(e));
        }
        return out;
    }

    private void jobOutputThroughAnInRootLinkStaysInTheRoot() throws Exception {
        Map<String, Object> planted = call("work_exec_run", "command",
                "rm -rf .worktarget && ln -s '" + outside + "' .worktarget && echo planted");
        assertThat(planted.get("exitCode")).as("%s", planted).isEqualTo(0);
        Map<String, Object> after = call("work_exec_run", "command", "echo after");
        assertThat(after.get("stdout")).isEqualTo("after\n");
        assertThat(tree(outside)).as("nothing may be created outside the RootDir").containsExactly("", "secret.txt");
        assertThat(call("work_file_read", "path", after.get("stdoutPath")).get("content")).isEqualTo("after\n");
        assertThat(Files.isSymbolicLink(rootDir().resolve(".worktarget"))).isFalse();
    }

    @Test
    void jailbreakExecOutputAJobThatReplacesTheInternalDirectoryByALinkCannotRedirectLaterJobOutput() throws Exception {
        jobOutputThroughAnInRootLinkStaysInTheRoot();
    }

    @Test
    void jailbreakExecOutputAJobInsideBubblewrapThatReplacesTheInternalDirectoryByALinkCannotRedirectLaterJobOutput() throws Exception {
        boolean works = bwrapWorks();
        if ("true".equalsIgnoreCase(System.getenv("WORKTARGET_REQUIRE_BWRAP"))) {
            assertThat(works).as("WORKTARGET_REQUIRE_BWRAP=true but bwrap is missing or cannot run").isTrue();
        }
        Assumptions.assumeTrue(works, "bwrap is not usable here");
        work.close();
        work = backend(ExecSettings.builder().isolationMode(ExecSettings.IsolationMode.CUSTOM).build());
        jobOutputThroughAnInRootLinkStaysInTheRoot();
    }

    @Test
    void jailbreakExecOutputAJobThatRedirectsTheOutputDirectoryCannotMakeTheEngineDeleteFilesOutside() throws Exception {
        Map<String, Object> running = call("work_exec_run", "command", "echo started; exec sleep 1000", "waitMs", 0);
        String id = (String) running.get("id");
        // Files outside under the running job's output names (its paths without the leading .worktarget/);
        // then a second job swaps the directory for a link to them.
        Path stdoutVictim = outside.resolve(((String) running.get("stdoutPath")).substring(".worktarget/".length()));
        Path stderrVictim = outside.resolve(((String) running.get("stderrPath")).substring(".worktarget/".length()));
        Files.createDirectories(stdoutVictim.getParent());
        Files.writeString(stdoutVictim, "precious");
        Files.writeString(stderrVictim, "precious");
        Map<String, Object> swap = call("work_exec_run", "command",
                "mv .worktarget .worktarget-moved && ln -s '" + outside + "' .worktarget");
        assertThat(swap.get("exitCode")).as("%s", swap).isEqualTo(0);
        call("work_exec_kill", "id", id);
        work.close(); // forgets every job and deletes its output files
        assertThat(Files.readString(stdoutVictim)).isEqualTo("precious");
        assertThat(Files.readString(stderrVictim)).isEqualTo("precious");
    }

    @Test
    void aJobsStdoutPathIsReadableWithTheSameBackendsFileTools() throws Exception {
        Map<String, Object> r = call("work_exec_run", "command", "echo one; echo two");
        assertThat((String) r.get("stdoutPath")).startsWith(".worktarget/exec/");
        assertThat(call("work_file_read", "path", r.get("stdoutPath")).get("content")).isEqualTo("one\ntwo\n");
        assertThat(call("work_file_head_tail", "path", r.get("stdoutPath"), "head", 1).get("head")).isEqualTo("one\n");
    }

    @Test
    void earlierJobOutputIsNeverSearchedListedOrFound() throws Exception {
        call("work_exec_run", "command", "echo needle-from-a-job");
        call("work_file_write", "path", "notes.txt", "content", "needle-in-a-file\n");
        assertThat(paths(call("work_file_grep", "pattern", "needle", "path", ".").get("matches")))
                .containsExactly("notes.txt");
        assertThat(paths(call("work_file_list", "path", ".").get("entries"))).containsExactly("notes.txt");
        assertThat(paths(call("work_file_find", "path", ".").get("files"))).containsExactly("notes.txt");
        assertThat(call("work_file_count", "path", ".").get("files")).isEqualTo(1);
    }

    @Test
    void jailbreakDisposalDeletesALinkLeftInTheRootDirAndNeverItsTarget() throws Exception {
        call("work_file_write", "path", "a/b.txt", "content", "b");
        Path dir = rootDir();
        Files.createSymbolicLink(dir.resolve("a/out"), outside);
        Files.createSymbolicLink(dir.resolve("secret.lnk"), outside.resolve("secret.txt"));
        work.closeProcess(P1.processId());
        assertThat(dir).doesNotExist();
        assertThat(tree(outside)).containsExactly("", "secret.txt");
    }

    @Test
    void jailbreakDisposalUnderALinkSwapRaceDeletesNothingOutside() throws Exception {
        // Victims outside carry the same names as the files of the directories that are swapped.
        for (int f = 0; f < FILES; f++) {
            Files.writeString(outside.resolve("f" + f + ".txt"), "victim");
        }
        int rounds = 0;
        int swaps = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
        while (rounds < 25 && System.nanoTime() < deadline) {
            ToolContext p = new ToolContext("race-" + rounds, null, "acme", "proj", null);
            Path dir = work.resolveRoot(p, null);
            for (int d = 0; d < DIRS; d++) {
                for (int f = 0; f < FILES; f++) {
                    Files.writeString(Files.createDirectories(dir.resolve("d" + d)).resolve("f" + f + ".txt"), "mine");
                }
            }
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicInteger swapped = new java.util.concurrent.atomic.AtomicInteger();
            Thread swapper = new Thread(() -> {
                while (!stop.get()) {
                    // Swap every directory for a link to the outside, hold a moment, put them back.
                    for (int d = 0; d < DIRS; d++) {
                        try {
                            Files.move(dir.resolve("d" + d), dir.resolve("d" + d + "-aside"));
                            Files.createSymbolicLink(dir.resolve("d" + d), outside);
                            swapped.incrementAndGet();
                        } catch (IOException gone) {
                            // the disposal got there first
                        }
                    }
                    for (int spin = 0; spin < 2_000; spin++) {
                        Thread.onSpinWait();
                    }
                    for (int d = 0; d < DIRS; d++) {
                        try {
                            Files.delete(dir.resolve("d" + d));
                            Files.move(dir.resolve("d" + d + "-aside"), dir.resolve("d" + d));
                        } catch (IOException gone) {
                            // the disposal got there first
                        }
                    }
                }
            }, "disposal-swapper");
            swapper.start();
            work.closeProcess(p.processId());
            stop.set(true);
            swapper.join();
            swaps += swapped.get();
            rounds++;
            assertThat(tree(outside)).as("round %d: nothing outside may be deleted", rounds).hasSize(FILES + 2);
        }
        System.out.printf("disposal race: %d rounds, %d swaps%n", rounds, swaps);
        assertThat(rounds).isPositive();
    }

    @Test
    void jailbreakHomeDeletionRemovesALinkAJobPlantedAndNotItsTarget() throws Exception {
        Map<String, Object> r = call("work_exec_run", "command",
                "ln -s '" + outside + "' \"$HOME/out\" && ln -s '" + outside.resolve("secret.txt") + "' \"$HOME/s\"");
        assertThat(r.get("exitCode")).as("%s", r).isEqualTo(0);
        assertThat(work.homes().deleteProject("acme", "proj").changed()).isTrue();
        assertThat(tmp.resolve("homes/acme/proj")).doesNotExist();
        assertThat(tree(outside)).containsExactly("", "secret.txt");
    }

    @Test
    void aBackendStartingOnTheWorkspaceSweepsTheStagingFilesAndJobOutputADeadProcessLeftInItsRootDirs() throws Exception {
        Path dir = rootDir();
        Process dead = new ProcessBuilder("true").start();
        dead.waitFor();
        Process alive = new ProcessBuilder("sleep", "60").start();
        try {
            String leftover = Reserved.nameOfProcess(dead.pid(), Reserved.FILE);
            String inFlight = Reserved.nameOfProcess(alive.pid(), Reserved.FILE);
            Files.writeString(dir.resolve(leftover), "partial");
            Files.writeString(dir.resolve(inFlight), "partial");
            Path deadOutput = dir.resolve(".worktarget/exec/" + Reserved.ownerOfProcess(dead.pid()) + "/j1.stdout");
            Path liveOutput = dir.resolve(".worktarget/exec/" + Reserved.ownerOfProcess(alive.pid()) + "/j2.stdout");
            Files.createDirectories(deadOutput.getParent());
            Files.createDirectories(liveOutput.getParent());
            Files.writeString(deadOutput, "output of a job of a crashed process");
            Files.writeString(liveOutput, "output of a job of a live process");
            work.close();
            work = backend(ExecSettings.defaults()); // a restart: no tool call has touched the RootDir yet
            assertThat(dir.resolve(leftover)).as("the dead process's staging file").doesNotExist();
            assertThat(dir.resolve(inFlight)).as("a live process's staging file").exists();
            assertThat(deadOutput.getParent()).as("the dead process's job output").doesNotExist();
            assertThat(liveOutput).as("a live process's job output").exists();
        } finally {
            alive.destroyForcibly().waitFor();
        }
    }

    static boolean bwrapWorks() {
        try {
            Process p = new ProcessBuilder("bwrap", "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "/bin/true")
                    .redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
