package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.ExecSettings;

/** The job options the commands share: what they set; their refusals are in the commands' CLI tests. */
class ExecOptionsTest {
    private static ExecSettings settings(String... argv) throws Args.UsageException {
        return ExecOptions.settings(Args.parse(List.of(argv), ExecOptions.withOwn(), Set.of()));
    }

    @Test
    void withoutTheOptionsTheSettingsAreTheDefaults() throws Exception {
        assertThat(settings()).isEqualTo(ExecSettings.defaults());
    }

    @Test
    void oneDirectoryPerHierarchyAndBothCapsAreSet() throws Exception {
        ExecSettings s = settings("--job-cgroup", "/sys/fs/cgroup/pids/wt, /sys/fs/cgroup/memory/wt",
                "--max-job-processes", "256", "--max-job-memory-mib", "2048", "--max-job-cpus", "1.5", "--max-job-seconds", "3600");

        assertThat(s.jobControlGroups()).containsExactly(Path.of("/sys/fs/cgroup/pids/wt"),
                Path.of("/sys/fs/cgroup/memory/wt"));
        assertThat(s.maxJobProcesses()).isEqualTo(256);
        assertThat(s.maxJobMemory()).isEqualTo(2048L << 20);
        assertThat(s.maxJobCpus()).isEqualTo(1.5);
        assertThat(s.maxJobDuration()).isEqualTo(java.time.Duration.ofHours(1));
    }

    @Test
    void aLimitOnTheRunNeedsNoControlGroup() throws Exception {
        ExecSettings s = settings("--max-job-seconds", "600");

        assertThat(s.maxJobDuration()).isEqualTo(java.time.Duration.ofMinutes(10));
        assertThat(s.jobControlGroups()).isEmpty();
    }

    @Test
    void aRelativeDirectoryIsTakenFromTheWorkingDirectory() throws Exception {
        assertThat(settings("--job-cgroup", "jobs").jobControlGroups())
                .containsExactly(Path.of("jobs").toAbsolutePath());
    }

    @Test
    void theKnownOptionsAreACommandsOwnAndTheseFive() {
        assertThat(ExecOptions.withOwn("workdir")).containsExactlyInAnyOrder("workdir", "job-cgroup",
                "max-job-processes", "max-job-memory-mib", "max-job-cpus", "max-job-seconds");
    }

    @Test
    void aCpuCapThatIsNoPlainDecimalNumberIsAUsageError() {
        for (String bad : new String[] {"x", "1e3", "-1", "NaN", "Infinity", "0x10", "1.", "", "1,5"}) {
            assertThatThrownBy(() -> settings("--job-cgroup", "/g", "--max-job-cpus", bad)).as(bad)
                    .isInstanceOf(Args.UsageException.class)
                    .hasMessage("--max-job-cpus must be a number of CPUs such as 0.5 or 2, got '" + bad + "'.");
        }
    }
}
