package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

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
                "--max-job-processes", "256", "--max-job-memory-mib", "2048");

        assertThat(s.jobControlGroups()).containsExactly(Path.of("/sys/fs/cgroup/pids/wt"),
                Path.of("/sys/fs/cgroup/memory/wt"));
        assertThat(s.maxJobProcesses()).isEqualTo(256);
        assertThat(s.maxJobMemory()).isEqualTo(2048L << 20);
    }

    @Test
    void aRelativeDirectoryIsTakenFromTheWorkingDirectory() throws Exception {
        assertThat(settings("--job-cgroup", "jobs").jobControlGroups())
                .containsExactly(Path.of("jobs").toAbsolutePath());
    }

    @Test
    void theKnownOptionsAreACommandsOwnAndTheseThree() {
        assertThat(ExecOptions.withOwn("workdir")).containsExactlyInAnyOrder("workdir", "job-cgroup",
                "max-job-processes", "max-job-memory-mib");
    }
}
