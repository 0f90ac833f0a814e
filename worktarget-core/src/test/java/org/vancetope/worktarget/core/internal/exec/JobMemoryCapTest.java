package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * The memory cap of jobs ({@code maxJobMemory}) and jobs in groups of two cgroup v1 hierarchies at once
 * ({@code jobControlGroups} with a pids and a memory directory): a job that takes more memory than its cap
 * has a process ended by the kernel inside the job, not the server's memory, and its result says so, also
 * when its shell went on; the caps are written where their controller is; the kill and the removal of the
 * groups take both hierarchies; a cap without its controller and two directories of one controller are
 * refused when the engine is built. Proven with real groups where this test may make them (root, cgroup v1
 * with the pids and memory hierarchies, as on CI), skipped with the reason elsewhere.
 */
@EnabledOnOs(OS.LINUX)
class JobMemoryCapTest {
    private static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin");
    private static final long CAP = 48L << 20;
    /** The limit of the group the test makes its jobs' groups in. */
    private static final long NET = 256L << 20;
    /**
     * Doubles a string to 64 Mi characters (about 100 MiB at its peak: more than the cap, less than the net),
     * with awk, which every machine has.
     */
    private static final String HOG = "awk 'BEGIN { s = \"x\"; while (length(s) < 67108864) s = s s; "
            + "print \"survived\" }'";

    @TempDir
    Path dir;
    private Path pids;
    private Path memory;
    private ExecEngine engine;

    @BeforeEach
    void setUp() throws IOException {
        pids = TestGroups.testParent("pids", "pids.max");
        memory = TestGroups.testParent("memory", "memory.limit_in_bytes");
        if (pids == null || memory == null) {
            TestGroups.removeAll(pids);
            TestGroups.removeAll(memory);
        }
        Assumptions.assumeTrue(pids != null && memory != null, "no pids and memory control groups can be made here "
                + "(needs root and the pids and memory controllers of cgroup v1 below this JVM's groups)");
        // a net below the test's own groups: a job whose cap were not written takes 256 MiB, not the machine
        Files.writeString(memory.resolve("memory.limit_in_bytes"), Long.toString(NET));
        if (Files.exists(memory.resolve("memory.memsw.limit_in_bytes"))) {
            Files.writeString(memory.resolve("memory.memsw.limit_in_bytes"), Long.toString(NET));
        }
    }

    @AfterEach
    void tearDown() throws IOException {
        if (engine != null) {
            engine.close();
        }
        TestGroups.removeAll(pids);
        TestGroups.removeAll(memory);
    }

    private void engine(long cap) {
        engine = ExecEngine.builder().settings(ExecSettings.builder().jobControlGroups(pids, memory)
                .maxJobProcesses(64).maxJobMemory(cap).killGrace(Duration.ofMillis(500)).build()).build();
    }

    private ExecResult run(String command, long waitMs) throws ToolException {
        return engine.run(new ExecRequest("s", command, root(dir), ENV, waitMs, null, null));
    }

    private static List<Path> groups(Path parent) {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(parent, JobControlGroups.PREFIX + "*")) {
            List<Path> out = new ArrayList<>();
            ds.forEach(out::add);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void aJobOverItsMemoryCapHasAProcessKilledAndItsResultSaysSo() throws Exception {
        engine(CAP);

        ExecResult r = run(HOG, 60_000);

        assertThat(r.status()).isEqualTo(JobStatus.FAILED);
        assertThat(r.exitCode()).isEqualTo(137);
        assertThat(r.stdout()).doesNotContain("survived");
        assertThat(r.hint()).contains("The kernel ended 1 process of this job with SIGKILL")
                .contains("memory cap of 48 MiB per job (maxJobMemory)").contains("Use less memory")
                .doesNotContain("on this machine");
    }

    @Test
    void aJobWhoseShellWentOnAfterTheKillStillSaysWhatHappened() throws Exception {
        engine(CAP);

        ExecResult r = run(HOG + "; echo \"went on after $?\"", 60_000);

        assertThat(r.status()).isEqualTo(JobStatus.EXITED);
        assertThat(r.stdout()).contains("went on after 137").doesNotContain("survived");
        assertThat(r.hint()).contains("memory cap of 48 MiB per job (maxJobMemory)");
    }

    @Test
    void aJobUnderItsMemoryCapGetsNoHint() throws Exception {
        engine(CAP);

        ExecResult r = run("head -c 8000000 /dev/zero | wc -c", 60_000);

        assertThat(r.stdout().strip()).isEqualTo("8000000");
        assertThat(r.hint()).isNull();
    }

    @Test
    void eachJobHasAGroupInBothHierarchiesWithTheCapWhereItsControllerIs() throws Exception {
        engine(CAP);
        ExecResult r = run("sleep 300", 300);

        assertThat(r.status()).isEqualTo(JobStatus.RUNNING);
        Path p = groups(pids).get(0);
        Path m = groups(memory).get(0);
        assertThat(p.getFileName()).isEqualTo(m.getFileName());
        assertThat(Files.readString(p.resolve("pids.max")).strip()).isEqualTo("64");
        assertThat(Files.readString(m.resolve("memory.limit_in_bytes")).strip()).isEqualTo(Long.toString(CAP));
        if (Files.exists(m.resolve("memory.memsw.limit_in_bytes"))) {
            assertThat(Files.readString(m.resolve("memory.memsw.limit_in_bytes")).strip()).as("no swap beyond it")
                    .isEqualTo(Long.toString(CAP));
        }
        Await.until("the shell and its sleep are in both groups", () -> JobControlGroups.members(p).size() == 2
                && JobControlGroups.members(m).equals(JobControlGroups.members(p)));
        for (long pid : JobControlGroups.members(p)) {
            assertThat(Files.readString(Path.of("/proc", Long.toString(pid), "cgroup")))
                    .contains(pids.getFileName() + "/" + p.getFileName())
                    .contains(memory.getFileName() + "/" + m.getFileName());
        }
        engine.kill("s", r.id());
    }

    @Test
    void theKillEndsTheJobAndRemovesItsGroupsInBothHierarchies() throws Exception {
        engine(CAP);
        TestGroups.Escape job = TestGroups.escape(engine, dir, ENV);

        engine.kill("s", job.id());

        Await.processGone(job.escaped());
        Await.until("both groups are removed", () -> groups(pids).isEmpty() && groups(memory).isEmpty());
    }

    @Test
    void aMemoryCapWithoutAMemoryDirectoryIsRefusedSayingWhatToAdd() throws Exception {
        ExecSettings s = ExecSettings.builder().jobControlGroups(pids).maxJobMemory(CAP).build();

        assertThatThrownBy(() -> ExecEngine.builder().settings(s).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jobControlGroups " + pids + ": no memory controller")
                .hasMessageContaining("maxJobMemory cannot be applied")
                .hasMessageContaining("echo +memory > " + pids.resolve("cgroup.subtree_control"))
                .hasMessageContaining("/sys/fs/cgroup/memory");
        assertThat(groups(pids)).as("the probe is removed").isEmpty();
    }

    @Test
    void aProcessCapWithOnlyAMemoryDirectoryIsRefused() throws Exception {
        ExecSettings s = ExecSettings.builder().jobControlGroups(memory).maxJobProcesses(64).build();

        assertThatThrownBy(() -> ExecEngine.builder().settings(s).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jobControlGroups " + memory + ": no pids controller");
        assertThat(groups(memory)).isEmpty();
    }

    @Test
    void twoDirectoriesOfOneControllerAreRefused() throws Exception {
        Path second = TestGroups.testParent("memory", "memory.limit_in_bytes");
        try {
            ExecSettings s = ExecSettings.builder().jobControlGroups(pids, memory, second).build();

            assertThatThrownBy(() -> ExecEngine.builder().settings(s).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("jobControlGroups " + memory + " and " + second + " both give their groups the memory "
                            + "controller: a process is in one group of a hierarchy only. Give one directory per "
                            + "hierarchy (with cgroup v2 one directory in all).");
            assertThat(groups(second)).isEmpty();
        } finally {
            TestGroups.removeAll(second);
        }
    }

    @Test
    void aJobWhoseSecondGroupCannotBeMadeDoesNotStartAndLeavesNoFirstGroup() throws Exception {
        engine(CAP);
        Files.delete(memory);       // the operator removed one directory while the server ran

        assertThatThrownBy(() -> run("touch ran", 30_000)).isInstanceOf(ToolException.class)
                .hasMessageContaining(memory.toString());
        assertThat(dir.resolve("ran")).doesNotExist();
        assertThat(groups(pids)).as("the group made before is removed").isEmpty();
        memory = null;
    }

    @Test
    void theMemoryCapHintCountsTheKillsAndNamesTheSetting() {
        assertThat(ExecResults.memoryCapHint(1, 512L << 20)).startsWith("The kernel ended 1 process of this job with "
                + "SIGKILL ('Killed', exit code 137) because the job used all of this server's memory cap of 512 MiB "
                + "per job (maxJobMemory).");
        assertThat(ExecResults.memoryCapHint(3, (16L << 20) + 1)).contains("ended 3 processes")
                .contains("cap of 16777217 bytes per job");
        assertThat(ExecResults.memoryCapHint(0, 512L << 20)).isNull();
        assertThat(ExecResults.memoryCapHint(2, 0)).isNull();
    }
}
