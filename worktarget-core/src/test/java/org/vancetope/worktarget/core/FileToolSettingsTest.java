package org.vancetope.worktarget.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

class FileToolSettingsTest {

    @Test
    void defaultsAreTheSpecValues() {
        FileToolSettings s = FileToolSettings.defaults();
        assertThat(s.readDefaultChars()).isEqualTo(8_000);
        assertThat(s.headTailMaxLines()).isEqualTo(5_000);
        assertThat(s.defaultMaxDepth()).isEqualTo(12);
        assertThat(s.findDefaultLimit()).isEqualTo(200);
        assertThat(s.findMaxLimit()).isEqualTo(2_000);
        assertThat(s.grepDefaultLimit()).isEqualTo(200);
        assertThat(s.grepMaxLimit()).isEqualTo(1_000);
        assertThat(s.grepMaxFileBytes()).isEqualTo(2L * 1024 * 1024);
        assertThat(s.grepLineClipChars()).isEqualTo(600);
        assertThat(s.generatedDirNames()).contains(".git", "node_modules", "target", "build", ".venv");
    }

    @Test
    void defaultsOfTheLimitsThatKeepOneCallFromTakingTheSystemDown() {
        FileToolSettings s = FileToolSettings.defaults();
        assertThat(s.resultMaxBytes()).isEqualTo(1 << 20);
        assertThat(s.searchTimeoutMillis()).isEqualTo(30_000);
        assertThat(s.readTotalsMaxBytes()).isEqualTo(16L << 20);
        assertThat(s.wholeFileMaxBytes()).isEqualTo(FileToolSettings.heapDerivedWholeFileMaxBytes());
    }

    @Test
    void wholeFileMaxBytesDefaultsToAnEighthOfTheMaxHeapAtMostOneGiB() {
        long expected = Math.max(1L << 20, Math.min(1L << 30, Runtime.getRuntime().maxMemory() / 8));
        assertThat(FileToolSettings.heapDerivedWholeFileMaxBytes()).isEqualTo(expected);
    }

    @Test
    void buildRejectsLimitsOutOfRangeNamingThem() {
        assertThatThrownBy(() -> FileToolSettings.builder().resultMaxBytes(1023).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("resultMaxBytes");
        assertThatThrownBy(() -> FileToolSettings.builder().wholeFileMaxBytes(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wholeFileMaxBytes");
        assertThatThrownBy(() -> FileToolSettings.builder().wholeFileMaxBytes(Integer.MAX_VALUE).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("wholeFileMaxBytes");
        assertThatThrownBy(() -> FileToolSettings.builder().searchTimeoutMillis(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("searchTimeoutMillis");
        assertThatThrownBy(() -> FileToolSettings.builder().readTotalsMaxBytes(-1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("readTotalsMaxBytes");
    }

    @Test
    void toBuilderRoundTrips() {
        FileToolSettings s = FileToolSettings.builder().grepMaxFileBytes(10).generatedDirNames(Set.of("gen"))
                .resultMaxBytes(4096).wholeFileMaxBytes(77).searchTimeoutMillis(5).readTotalsMaxBytes(0).build();
        assertThat(s.toBuilder().build()).isEqualTo(s);
    }

    @Test
    void buildRejectsNonPositiveLimits() {
        assertThatThrownBy(() -> FileToolSettings.builder().grepDefaultLimit(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("grepDefaultLimit");
    }

    @Test
    void buildRejectsADefaultAboveItsMaximum() {
        assertThatThrownBy(() -> FileToolSettings.builder().findDefaultLimit(3000).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FileToolSettings.builder().readDefaultChars(200_000).build())
                .isInstanceOf(IllegalArgumentException.class);
    }
}
