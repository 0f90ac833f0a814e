package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
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
class JobMemoryCapTest extends CappedJobsTestBase {
    private static final long CAP = 48L << 20;
    /** The limit of the group the test makes its jobs' groups in. */
    private static final long NET = 256L << 20;
    /**
     * Doubles a string to 64 Mi characters (about 100 MiB at its peak: more than the cap, less than the net),
     * with awk, which every machine has.
     */
    private static final String HOG = "awk 'BEGIN { s = \"x\"; while (length(s) < 67108864) s = s s; "
            + "print \"survived\" }'";

    @Override
    String controller() {
        return "memory";
    }

    @Override
    String controllerFile() {
        return "memory.limit_in_bytes";
    }

    @BeforeEach
    void setNet() throws IOException {
        // a net below the test's own groups: a job whose cap were not written takes 256 MiB, not the machine
        Files.writeString(capped.resolve("memory.limit_in_bytes"), Long.toString(NET));
        if (Files.exists(capped.resolve("memory.memsw.limit_in_bytes"))) {
            Files.writeString(capped.resolve("memory.memsw.limit_in_bytes"), Long.toString(NET));
        }
    }

    private void engine(long cap) {
        engine = ExecEngine.builder().settings(ExecSettings.builder().jobControlGroups(pids, capped)
                .maxJobProcesses(64).maxJobMemory(cap).killGrace(Duration.ofMillis(500)).build()).build();
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
        Path p = TestGroups.jobGroups(pids).get(0);
        Path m = TestGroups.jobGroups(capped).get(0);
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
                    .contains(capped.getFileName() + "/" + m.getFileName());
        }
        engine.kill("s", r.id());
    }

    @Test
    void theKillEndsTheJobAndRemovesItsGroupsInBothHierarchies() throws Exception {
        engine(CAP);
        TestGroups.Escape job = TestGroups.escape(engine, dir, ENV);

        engine.kill("s", job.id());

        Await.processGone(job.escaped());
        Await.until("both groups are removed", () -> TestGroups.jobGroups(pids).isEmpty()
                && TestGroups.jobGroups(capped).isEmpty());
    }

    @Test
    void aMemoryCapWithoutAMemoryDirectoryIsRefusedSayingWhatToAdd() throws Exception {
        ExecSettings s = ExecSettings.builder().jobControlGroups(pids).maxJobMemory(CAP).build();

        assertThatThrownBy(() -> ExecEngine.builder().settings(s).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jobControlGroups " + pids + ": no memory controller")
                .hasMessageContaining("maxJobMemory cannot be applied")
                .hasMessageContaining("echo +memory > " + pids.resolve("cgroup.subtree_control"))
                .hasMessageContaining("/sys/fs/cgroup/memory");
        assertThat(TestGroups.jobGroups(pids)).as("the probe is removed").isEmpty();
    }

    @Test
    void aProcessCapWithOnlyAMemoryDirectoryIsRefused() throws Exception {
        ExecSettings s = ExecSettings.builder().jobControlGroups(capped).maxJobProcesses(64).build();

        assertThatThrownBy(() -> ExecEngine.builder().settings(s).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jobControlGroups " + capped + ": no pids controller");
        assertThat(TestGroups.jobGroups(capped)).isEmpty();
    }

    @Test
    void twoDirectoriesOfOneHierarchyAreRefused() throws Exception {
        Path second = TestGroups.testParent("memory", "memory.limit_in_bytes");
        try {
            ExecSettings s = ExecSettings.builder().jobControlGroups(pids, capped, second).build();

            assertThatThrownBy(() -> ExecEngine.builder().settings(s).build())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("jobControlGroups " + capped + " and " + second + " are in the same control group "
                            + "hierarchy: a process is in one group of a hierarchy only. Give one directory per "
                            + "hierarchy (with cgroup v2 one directory in all).");
            assertThat(TestGroups.jobGroups(second)).isEmpty();
        } finally {
            TestGroups.removeAll(second);
        }
    }

    @Test
    void aJobWhoseSecondGroupCannotBeMadeDoesNotStartAndLeavesNoFirstGroup() throws Exception {
        engine(CAP);
        Files.delete(capped);       // the operator removed one directory while the server ran

        assertThatThrownBy(() -> run("touch ran", 30_000)).isInstanceOf(ToolException.class)
                .hasMessageContaining(capped.toString());
        assertThat(dir.resolve("ran")).doesNotExist();
        assertThat(TestGroups.jobGroups(pids)).as("the group made before is removed").isEmpty();
        capped = null;
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
