package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * The CPU cap of jobs ({@code maxJobCpus}): each job's group in the cpu hierarchy gets the quota of the cap
 * in every 100 ms period, a job that would take more is held back and its result says so, a job that did
 * not wait at the cap gets no hint, and a cap with no directory of the cpu controller is refused when the
 * engine is built. Proven with real groups where this test may make them (root, cgroup v1 with the pids and
 * cpu hierarchies, as on CI), skipped with the reason elsewhere. No figure of time is asserted: only what
 * the kernel wrote down (the quota, the time it held the job back).
 */
@EnabledOnOs(OS.LINUX)
class JobCpuCapTest extends CappedJobsTestBase {
    /** 5 ms of CPU time in every 100 ms: a busy loop waits most of the time whatever else runs. */
    private static final double CAP = 0.05;
    /** A busy shell loop for 2.5 s of the clock. */
    private static final String BUSY = "timeout 2.5 sh -c 'while :; do :; done'";

    @Override
    String controller() {
        return "cpu";
    }

    @Override
    String controllerFile() {
        return "cpu.cfs_quota_us";
    }

    private void engine(double cap) {
        engine = ExecEngine.builder().settings(ExecSettings.builder().jobControlGroups(pids, capped)
                .maxJobProcesses(64).maxJobCpus(cap).killGrace(Duration.ofMillis(500)).build()).build();
    }

    @Test
    void eachJobsCpuGroupHasTheQuotaOfTheCapInEveryPeriod() throws Exception {
        engine(1.5);
        ExecResult r = run("sleep 300", 300);

        assertThat(r.status()).isEqualTo(JobStatus.RUNNING);
        Path g = TestGroups.jobGroups(capped).get(0);
        assertThat(Files.readString(g.resolve("cpu.cfs_period_us")).strip()).isEqualTo("100000");
        assertThat(Files.readString(g.resolve("cpu.cfs_quota_us")).strip()).isEqualTo("150000");
        Await.until("the shell and its sleep are in the group", () -> JobControlGroups.members(g).size() == 2);
        engine.kill("s", r.id());
        Await.until("the group is removed", () -> TestGroups.jobGroups(capped).isEmpty()
                && TestGroups.jobGroups(pids).isEmpty());
    }

    @Test
    void aBusyJobIsHeldBackAtTheCapAndItsResultSaysSo() throws Exception {
        engine(CAP);

        ExecResult r = run(BUSY, 60_000);

        assertThat(r.status()).as(r.toString()).isEqualTo(JobStatus.FAILED);
        assertThat(r.exitCode()).as("timeout's own").isEqualTo(124);
        assertThat(r.hint()).contains("The job's processes were held back for")
                .contains("by this server's CPU cap of 0.05 CPUs per job (maxJobCpus)")
                .contains("run fewer things at once");
    }

    @Test
    void aJobThatNeverWaitedAtTheCapGetsNoHint() throws Exception {
        engine(CAP);

        ExecResult r = run("sleep 1.5; echo done", 60_000);

        assertThat(r.stdout().strip()).isEqualTo("done");
        assertThat(r.hint()).isNull();
    }

    @Test
    void aCpuCapWithoutACpuDirectoryIsRefusedSayingWhatToAdd() {
        ExecSettings s = ExecSettings.builder().jobControlGroups(pids).maxJobCpus(1).build();

        assertThatThrownBy(() -> ExecEngine.builder().settings(s).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("jobControlGroups " + pids + ": no cpu controller for the jobs' groups, so maxJobCpus "
                        + "cannot be applied. With cgroup v2 enable it: echo +cpu > "
                        + pids.resolve("cgroup.subtree_control") + " (the directory itself must hold no processes); "
                        + "with v1 add a directory below the cpu hierarchy (/sys/fs/cgroup/cpu) to jobControlGroups.");
        assertThat(TestGroups.jobGroups(pids)).as("the probe is removed").isEmpty();
    }

    @Test
    void theCpuCapHintNeedsASecondAndAFifthOfTheRun() {
        assertThat(ExecResults.cpuCapHint(4_200_000, 10_000, 0.5)).isEqualTo("The job's processes were held back "
                + "for 4.2 s in all by this server's CPU cap of 0.5 CPUs per job (maxJobCpus), in a run of 10.0 s: it "
                + "ran as fast as the cap allows, not as fast as the machine could. Give long commands more time (a "
                + "larger deadlineSeconds, or waitMs 0 and exec_tail), and run fewer things at once in one job (make "
                + "-j, pytest -n and --maxWorkers beyond the cap only share it).");
        assertThat(ExecResults.cpuCapHint(2_000_000, 2_000, 1)).contains("cap of 1 CPU per job");
        assertThat(ExecResults.cpuCapHint(2_000_000, 2_000, 2)).contains("cap of 2 CPUs per job");
        assertThat(ExecResults.cpuCapHint(999_000, 1_000, 0.5)).as("under a second").isNull();
        assertThat(ExecResults.cpuCapHint(1_000_000, 5_001, 0.5)).as("under a fifth of the run").isNull();
        assertThat(ExecResults.cpuCapHint(1_000_000, 5_000, 0.5)).isNotNull();
        assertThat(ExecResults.cpuCapHint(9_000_000, 1_000, 0)).as("no cap").isNull();
    }
}
