package org.vancetope.worktarget.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.ExecSettings.IsolationMode;

class ExecSettingsTest {

    @Test
    void defaultsAreTheDocumentedValues() {
        ExecSettings d = ExecSettings.defaults();
        assertThat(d.inlineOutputCharCap()).isEqualTo(8_000);
        assertThat(d.defaultWait()).isEqualTo(Duration.ofSeconds(15));
        assertThat(d.maxWait()).isEqualTo(Duration.ofMinutes(5));
        assertThat(d.killGrace()).isEqualTo(Duration.ofSeconds(10));
        assertThat(d.maxJobsPerScope()).isEqualTo(32);
        assertThat(d.outputFileMaxBytes()).isEqualTo(64L * 1024 * 1024);
        assertThat(d.outputRetention()).isEqualTo(Duration.ofHours(1));
        assertThat(d.scopeIdle()).isEqualTo(Duration.ofHours(1));
        assertThat(d.isolationMode()).isEqualTo(IsolationMode.NONE);
        assertThat(d.isolationWrapper()).contains("{cmd}");
        assertThat(d.jobControlGroups()).isEmpty();
        assertThat(d.maxJobProcesses()).isZero();
        assertThat(d.maxJobMemory()).isZero();
        assertThat(d.maxJobCpus()).isZero();
        assertThat(d.maxJobDuration()).isZero();
    }

    @Test
    void builderStartsFromTheDefaults() {
        assertThat(ExecSettings.builder().build()).isEqualTo(ExecSettings.defaults());
    }

    @Test
    void toBuilderRoundTripsEverySetting() {
        ExecSettings s = ExecSettings.builder().inlineOutputCharCap(500).defaultWait(Duration.ofSeconds(1))
                .maxWait(Duration.ofSeconds(2)).killGrace(Duration.ZERO).maxJobsPerScope(3).outputFileMaxBytes(4)
                .outputRetention(Duration.ZERO).scopeIdle(Duration.ofMinutes(7)).isolationMode(IsolationMode.CUSTOM)
                .isolationWrapper("sh -c {cmd}").jobControlGroups(Path.of("/sys/fs/cgroup/pids/wt"), Path.of("/sys/fs/cgroup/memory/wt"))
                .maxJobProcesses(100).maxJobMemory(1L << 30).maxJobCpus(1.5)
                .maxJobDuration(Duration.ofHours(2)).build();
        ExecSettings copy = s.toBuilder().build();
        assertThat(copy).isEqualTo(s).hasSameHashCodeAs(s);
        assertThat(copy.toString()).isEqualTo(s.toString());
    }

    @Test
    void settingsDifferingInOneValueAreNotEqual() {
        ExecSettings d = ExecSettings.defaults();
        assertThat(d.toBuilder().killGrace(Duration.ofSeconds(11)).build()).isNotEqualTo(d);
        assertThat(d.toBuilder().isolationWrapper("x {cmd}").build()).isNotEqualTo(d);
        assertThat(d.toBuilder().jobControlGroups(Path.of("/g")).build()).isNotEqualTo(d);
        ExecSettings grouped = d.toBuilder().jobControlGroups(Path.of("/g")).build();
        assertThat(grouped.toBuilder().maxJobProcesses(2).build()).isNotEqualTo(grouped);
        assertThat(grouped.toBuilder().maxJobMemory(16L << 20).build()).isNotEqualTo(grouped);
        assertThat(grouped.toBuilder().maxJobCpus(0.5).build()).isNotEqualTo(grouped);
        assertThat(d.toBuilder().maxJobDuration(Duration.ofSeconds(1)).build()).isNotEqualTo(d);
        assertThat(grouped.toBuilder().jobControlGroups(Path.of("/g"), Path.of("/h")).build()).isNotEqualTo(grouped);
    }

    @Test
    void maxJobProcessesNeedsAJobControlGroup() {
        assertThatThrownBy(() -> ExecSettings.builder().maxJobProcesses(64).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxJobProcesses=64 needs jobControlGroups");
    }

    @Test
    void maxJobMemoryNeedsAJobControlGroup() {
        assertThatThrownBy(() -> ExecSettings.builder().maxJobMemory(1L << 30).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxJobMemory=1073741824 needs jobControlGroups");
    }

    @Test
    void maxJobDurationIsZeroOrWholeSecondsAndNeedsNoControlGroup() {
        assertThat(ExecSettings.builder().maxJobDuration(Duration.ofSeconds(1)).build().maxJobDuration())
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(ExecSettings.builder().maxJobDuration(Duration.ZERO).build()).isEqualTo(ExecSettings.defaults());
        for (Duration bad : new Duration[] {Duration.ofMillis(500), Duration.ofMillis(1500), Duration.ofSeconds(-1)}) {
            assertThatThrownBy(() -> ExecSettings.builder().maxJobDuration(bad)).as(bad.toString())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("maxJobDuration must be zero (no limit) or whole seconds, at least 1, got " + bad);
        }
        assertThatThrownBy(() -> ExecSettings.builder().maxJobDuration(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got null");
    }

    @Test
    void maxJobCpusNeedsAJobControlGroup() {
        assertThatThrownBy(() -> ExecSettings.builder().maxJobCpus(2).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxJobCpus=2.0 needs jobControlGroups");
    }

    @Test
    void maxJobCpusOutsideItsRangeOrNotANumberIsRefusedAtOnce() {
        for (double bad : new double[] {0.009, -1, 65537, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThatThrownBy(() -> ExecSettings.builder().maxJobCpus(bad)).as(Double.toString(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("maxJobCpus must be 0 (no cap) or from 0.01 to 65536.0 CPUs (0.5 is half of one "
                            + "core's time), got " + bad);
        }
        assertThat(ExecSettings.builder().jobControlGroups(Path.of("/g")).maxJobCpus(0.01).build().maxJobCpus())
                .isEqualTo(0.01);
    }

    @Test
    void maxJobMemoryBelowSixteenMibOrBelowZeroIsRefusedAtOnce() {
        assertThatThrownBy(() -> ExecSettings.builder().maxJobMemory((16L << 20) - 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxJobMemory must be 0 (no cap) or at least 16777216 bytes (16 MiB), got 16777215");
        assertThatThrownBy(() -> ExecSettings.builder().maxJobMemory(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got -1");
        assertThat(ExecSettings.builder().jobControlGroups(Path.of("/g")).maxJobMemory(16L << 20).build()
                .maxJobMemory()).isEqualTo(16L << 20);
    }

    @Test
    void maxJobProcessesOfOneOrBelowZeroIsRefusedAtOnce() {
        assertThatThrownBy(() -> ExecSettings.builder().maxJobProcesses(1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxJobProcesses must be 0 (no cap) or at least 2, got 1");
        assertThatThrownBy(() -> ExecSettings.builder().maxJobProcesses(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got -1");
    }

    @Test
    void aRelativeJobControlGroupIsRefusedAtOnce() {
        assertThatThrownBy(() -> ExecSettings.builder().jobControlGroups(Path.of("/sys/fs/cgroup/memory/wt"),
                Path.of("pids/wt")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jobControlGroups must be absolute paths").hasMessageContaining("pids/wt");
        assertThatThrownBy(() -> ExecSettings.builder().jobControlGroups((Path) null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("got null");
    }

    @Test
    void aJobControlGroupNamedTwiceIsRefusedAtOnce() {
        assertThatThrownBy(() -> ExecSettings.builder().jobControlGroups(Path.of("/sys/fs/cgroup/pids/wt"),
                Path.of("/sys/fs/cgroup/pids/x/../wt")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("jobControlGroups names /sys/fs/cgroup/pids/wt twice; name each directory once");
    }

    @Test
    void jobControlGroupsWithoutACapAreValidKeepTheirOrderAndNoneRemovesThem() {
        ExecSettings s = ExecSettings.builder().jobControlGroups(Path.of("/sys/fs/cgroup/pids/wt/../jobs"),
                Path.of("/sys/fs/cgroup/memory/jobs")).build();
        assertThat(s.jobControlGroups()).containsExactly(Path.of("/sys/fs/cgroup/pids/jobs"),
                Path.of("/sys/fs/cgroup/memory/jobs"));
        assertThat(s.maxJobProcesses()).isZero();
        assertThat(s.maxJobMemory()).isZero();
        assertThat(s.toBuilder().jobControlGroups().build()).isEqualTo(ExecSettings.defaults());
    }

    @Test
    void toStringListsEveryValueLikeARecord() {
        assertThat(ExecSettings.defaults().toString()).startsWith("ExecSettings[inlineOutputCharCap=8000, ")
                .contains("defaultWait=PT15S", "maxWait=PT5M", "killGrace=PT10S", "maxJobsPerScope=32",
                        "outputFileMaxBytes=67108864", "outputRetention=PT1H", "scopeIdle=PT1H", "isolationMode=NONE",
                        "isolationWrapper=", "jobControlGroups=[]", "maxJobProcesses=0",
                        "maxJobMemory=0", "maxJobCpus=0.0", "maxJobDuration=PT0S").endsWith("]");
    }

    @Test
    void inlineOutputCharCapBelowTheMinimumIsRefusedAtOnce() {
        assertThatThrownBy(() -> ExecSettings.builder().inlineOutputCharCap(79))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("inlineOutputCharCap must be at least 80 characters, got 79");
    }

    @Test
    void negativeDefaultWaitIsRefusedAtOnce() {
        assertThatThrownBy(() -> ExecSettings.builder().defaultWait(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("defaultWait").hasMessageContaining("PT-0.001S").hasMessageContaining("or more");
    }

    @Test
    void negativeMaxWaitIsRefusedAtOnce() {
        assertThatThrownBy(() -> ExecSettings.builder().maxWait(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxWait").hasMessageContaining("PT-1S");
    }

    @Test
    void negativeKillGraceIsRefusedAtOnce() {
        assertThatThrownBy(() -> ExecSettings.builder().killGrace(Duration.ofSeconds(-2)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("killGrace")
                .hasMessageContaining("PT-2S").hasMessageContaining("zero (SIGKILL at once) or more");
    }

    @Test
    void nullDurationIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> ExecSettings.builder().killGrace(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("killGrace").hasMessageContaining("null");
        assertThatThrownBy(() -> ExecSettings.builder().scopeIdle(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scopeIdle").hasMessageContaining("null");
    }

    @Test
    void durationBeyondALongOfMillisecondsIsRefused() {
        assertThatThrownBy(() -> ExecSettings.builder().maxWait(Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxWait")
                .hasMessageContaining("fit in a long of milliseconds");
    }

    @Test
    void maxJobsPerScopeBelowOneIsRefusedAtOnce() {
        assertThatThrownBy(() -> ExecSettings.builder().maxJobsPerScope(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxJobsPerScope must be at least 1, got 0");
    }

    @Test
    void outputFileMaxBytesBelowOneIsRefusedAtOnce() {
        assertThatThrownBy(() -> ExecSettings.builder().outputFileMaxBytes(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("outputFileMaxBytes must be at least 1 byte, got 0");
    }

    @Test
    void negativeOutputRetentionIsRefusedSayingThatZeroKeeps() {
        assertThatThrownBy(() -> ExecSettings.builder().outputRetention(Duration.ofMinutes(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outputRetention")
                .hasMessageContaining("PT-1M").hasMessageContaining("zero (keep the files");
    }

    @Test
    void outputRetentionBelowOneMillisecondIsRefusedSinceItWouldMeanKeep() {
        assertThatThrownBy(() -> ExecSettings.builder().outputRetention(Duration.ofNanos(500)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outputRetention")
                .hasMessageContaining("at least 1 ms");
    }

    @Test
    void negativeScopeIdleIsRefusedSayingThatZeroNeverCloses() {
        assertThatThrownBy(() -> ExecSettings.builder().scopeIdle(Duration.ofHours(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scopeIdle")
                .hasMessageContaining("PT-1H").hasMessageContaining("zero (never close idle scopes)");
    }

    @Test
    void zeroRetentionAndZeroIdleAreAccepted() {
        ExecSettings s = ExecSettings.builder().outputRetention(Duration.ZERO).scopeIdle(Duration.ZERO).build();
        assertThat(s.outputRetention()).isZero();
        assertThat(s.scopeIdle()).isZero();
    }

    @Test
    void nullIsolationModeIsRefusedAtOnce() {
        assertThatThrownBy(() -> ExecSettings.builder().isolationMode(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("isolationMode")
                .hasMessageContaining("NONE or CUSTOM");
    }

    @Test
    void nullIsolationWrapperIsRefusedAtOnce() {
        assertThatThrownBy(() -> ExecSettings.builder().isolationWrapper(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("isolationWrapper")
                .hasMessageContaining("{cmd}");
    }

    @Test
    void defaultWaitLongerThanMaxWaitIsRefusedAtBuild() {
        ExecSettings.Builder b = ExecSettings.builder().defaultWait(Duration.ofSeconds(10)).maxWait(Duration.ofSeconds(5));
        assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("defaultWait must be at most maxWait, got defaultWait=PT10S and maxWait=PT5S");
    }

    @Test
    void defaultWaitEqualToMaxWaitIsAccepted() {
        ExecSettings s = ExecSettings.builder().defaultWait(Duration.ZERO).maxWait(Duration.ZERO).build();
        assertThat(s.defaultWait()).isEqualTo(s.maxWait());
    }

    @Test
    void customModeWithAnInvalidWrapperIsRefusedAtBuild() {
        ExecSettings.Builder b = ExecSettings.builder().isolationMode(IsolationMode.CUSTOM)
                .isolationWrapper("bwrap --unshare-net");
        assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("{cmd}");
    }

    @Test
    void modeNoneDoesNotCheckTheWrapper() {
        ExecSettings s = ExecSettings.builder().isolationWrapper("bwrap --unshare-net").build();
        assertThat(s.isolationWrapper()).isEqualTo("bwrap --unshare-net");
    }

    @Test
    void isolationModeParseAcceptsAnyCaseAndSurroundingBlanks() {
        assertThat(IsolationMode.parse("none")).isEqualTo(IsolationMode.NONE);
        assertThat(IsolationMode.parse("NONE")).isEqualTo(IsolationMode.NONE);
        assertThat(IsolationMode.parse("Custom")).isEqualTo(IsolationMode.CUSTOM);
        assertThat(IsolationMode.parse(" cUsToM\n")).isEqualTo(IsolationMode.CUSTOM);
    }

    @Test
    void isolationModeParseRefusesOtherValuesNamingTheValidOnes() {
        assertThatThrownBy(() -> IsolationMode.parse("sandbox")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("isolationMode must be 'none' or 'custom' (any case), got 'sandbox'");
        assertThatThrownBy(() -> IsolationMode.parse("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got ''");
    }

    @Test
    void isolationModeParseRefusesNull() {
        assertThatThrownBy(() -> IsolationMode.parse(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got null");
    }
}
