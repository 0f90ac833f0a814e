package org.vancetope.worktarget.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.assertj.core.api.AbstractThrowableAssert;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

class FileToolSettingsTest {

    private static AbstractThrowableAssert<?, ? extends Throwable> refused(ThrowingCallable call) {
        return assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void defaultsAreTheDocumentedValues() {
        FileToolSettings s = FileToolSettings.defaults();
        assertThat(s.readDefaultChars()).isEqualTo(8_000);
        assertThat(s.readMaxChars()).isEqualTo(100_000);
        assertThat(s.headTailMaxLines()).isEqualTo(5_000);
        assertThat(s.listMaxEntries()).isEqualTo(1_000);
        assertThat(s.defaultMaxDepth()).isEqualTo(12);
        assertThat(s.maxDepthLimit()).isEqualTo(64);
        assertThat(s.findDefaultLimit()).isEqualTo(200);
        assertThat(s.findMaxLimit()).isEqualTo(2_000);
        assertThat(s.grepDefaultLimit()).isEqualTo(200);
        assertThat(s.grepMaxLimit()).isEqualTo(1_000);
        assertThat(s.grepMaxFileBytes()).isEqualTo(2L * 1024 * 1024);
        assertThat(s.grepLineClipChars()).isEqualTo(600);
        assertThat(s.grepMaxContext()).isEqualTo(20);
        assertThat(s.editDiffMaxLines()).isEqualTo(40);
        assertThat(s.maxPathLength()).isEqualTo(4096);
        assertThat(s.maxComponentLength()).isEqualTo(255);
        assertThat(s.parallelism()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(s.generatedDirNames()).contains(".git", "node_modules", "target", "build", ".venv");
    }

    @Test
    void defaultsOfTheLimitsThatKeepOneCallFromTakingTheSystemDown() {
        FileToolSettings s = FileToolSettings.defaults();
        assertThat(s.resultMaxBytes()).isEqualTo(1 << 20);
        assertThat(s.searchTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.readTotalsMaxBytes()).isEqualTo(16L << 20);
        assertThat(s.readMaxFiles()).isEqualTo(20);
        assertThat(s.binaryReadMaxBytes()).isEqualTo(512 * 1024);
        assertThat(s.wholeFileMaxBytes()).isEqualTo(FileToolSettings.heapDerivedWholeFileMaxBytes());
    }

    @Test
    void wholeFileMaxBytesDefaultsToAnEighthOfTheMaxHeapAtMostOneGiB() {
        long expected = Math.max(1L << 20, Math.min(1L << 30, Runtime.getRuntime().maxMemory() / 8));
        assertThat(FileToolSettings.heapDerivedWholeFileMaxBytes()).isEqualTo(expected);
    }

    @Test
    void defaultGeneratedDirNamesAreTheDefaultList() {
        assertThat(FileToolSettings.defaults().generatedDirNames())
                .containsExactlyInAnyOrderElementsOf(FileToolSettings.DEFAULT_GENERATED_DIRS);
    }

    @Test
    void toBuilderRoundTripsToAnEqualObject() {
        FileToolSettings s = FileToolSettings.builder().readDefaultChars(10).readMaxChars(20).headTailMaxLines(3)
                .listMaxEntries(4).defaultMaxDepth(0).maxDepthLimit(5).findDefaultLimit(6).findMaxLimit(7)
                .grepDefaultLimit(8).grepMaxLimit(9).grepMaxFileBytes(10).grepLineClipChars(11).grepMaxContext(0)
                .editDiffMaxLines(12).maxPathLength(13).maxComponentLength(14).generatedDirNames(Set.of("gen"))
                .parallelism(15).resultMaxBytes(4096).wholeFileMaxBytes(77).searchTimeout(Duration.ofMillis(5))
                .readTotalsMaxBytes(0).readMaxFiles(16).binaryReadMaxBytes(17).build();
        FileToolSettings copy = s.toBuilder().build();
        assertThat(copy).isEqualTo(s).hasSameHashCodeAs(s);
        assertThat(copy.toString()).isEqualTo(s.toString());
    }

    @Test
    void defaultsEqualDefaults() {
        assertThat(FileToolSettings.defaults()).isEqualTo(FileToolSettings.defaults())
                .hasSameHashCodeAs(FileToolSettings.defaults());
    }

    @Test
    void settingsDifferingInOneValueAreNotEqual() {
        assertThat(FileToolSettings.defaults().toBuilder().grepMaxContext(3).build())
                .isNotEqualTo(FileToolSettings.defaults());
        assertThat(FileToolSettings.defaults().toBuilder().searchTimeout(Duration.ofSeconds(31)).build())
                .isNotEqualTo(FileToolSettings.defaults());
    }

    @Test
    void toStringListsEverySettingWithItsValue() {
        String text = FileToolSettings.builder().grepMaxContext(7).searchTimeout(Duration.ofSeconds(5))
                .generatedDirNames(Set.of("b", "a")).build().toString();
        assertThat(text).startsWith("FileToolSettings[readDefaultChars=8000, readMaxChars=100000, ")
                .contains(", grepMaxContext=7, ", ", generatedDirNames=[a, b], ", ", searchTimeout=PT5S, ")
                .endsWith(", readTotalsMaxBytes=16777216, readMaxFiles=20, binaryReadMaxBytes=524288]");
        for (String name : Arrays.asList("headTailMaxLines", "listMaxEntries", "defaultMaxDepth", "maxDepthLimit",
                "findDefaultLimit", "findMaxLimit", "grepDefaultLimit", "grepMaxLimit", "grepMaxFileBytes",
                "grepLineClipChars", "editDiffMaxLines", "maxPathLength", "maxComponentLength", "parallelism",
                "resultMaxBytes", "wholeFileMaxBytes")) {
            assertThat(text).contains(", " + name + "=");
        }
    }

    @Test
    void generatedDirNamesAreCopiedAndUnmodifiable() {
        Set<String> names = new HashSet<>(Set.of("gen"));
        FileToolSettings s = FileToolSettings.builder().generatedDirNames(names).build();
        names.add("later");
        assertThat(s.generatedDirNames()).containsExactly("gen");
        assertThatThrownBy(() -> s.generatedDirNames().add("x")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void emptyGeneratedDirNamesPruneNothingAndAreAccepted() {
        assertThat(FileToolSettings.builder().generatedDirNames(Set.of()).build().generatedDirNames()).isEmpty();
    }

    @Test
    void generatedDirNamesWithNullAreRefused() {
        Set<String> names = new HashSet<>(Arrays.asList("gen", null));
        refused(() -> FileToolSettings.builder().generatedDirNames(names))
                .hasMessageContaining("generatedDirNames").hasMessageContaining("null");
    }

    @Test
    void readDefaultCharsBelowOneIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().readDefaultChars(0))
                .hasMessage("readDefaultChars must be at least 1 characters, got 0");
    }

    @Test
    void readMaxCharsBelowOneIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().readMaxChars(-5)).hasMessageContaining("readMaxChars")
                .hasMessageContaining("at least 1").hasMessageContaining("got -5");
    }

    @Test
    void headTailMaxLinesBelowOneIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().headTailMaxLines(0)).hasMessageContaining("headTailMaxLines")
                .hasMessageContaining("at least 1").hasMessageContaining("got 0");
    }

    @Test
    void listMaxEntriesBelowOneIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().listMaxEntries(0)).hasMessageContaining("listMaxEntries")
                .hasMessageContaining("at least 1").hasMessageContaining("got 0");
    }

    @Test
    void negativeDefaultMaxDepthIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().defaultMaxDepth(-1)).hasMessageContaining("defaultMaxDepth")
                .hasMessageContaining("at least 0").hasMessageContaining("got -1");
    }

    @Test
    void negativeMaxDepthLimitIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().maxDepthLimit(-1)).hasMessageContaining("maxDepthLimit")
                .hasMessageContaining("at least 0").hasMessageContaining("got -1");
    }

    @Test
    void findDefaultLimitBelowOneIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().findDefaultLimit(0)).hasMessageContaining("findDefaultLimit")
                .hasMessageContaining("at least 1").hasMessageContaining("got 0");
    }

    @Test
    void findMaxLimitBelowOneIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().findMaxLimit(0)).hasMessageContaining("findMaxLimit")
                .hasMessageContaining("at least 1").hasMessageContaining("got 0");
    }

    @Test
    void grepDefaultLimitBelowOneIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().grepDefaultLimit(0)).hasMessageContaining("grepDefaultLimit")
                .hasMessageContaining("at least 1").hasMessageContaining("got 0");
    }

    @Test
    void grepMaxLimitBelowOneIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().grepMaxLimit(0)).hasMessageContaining("grepMaxLimit")
                .hasMessageContaining("at least 1").hasMessageContaining("got 0");
    }

    @Test
    void grepMaxFileBytesOutsideOneToTheArrayLimitIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().grepMaxFileBytes(0))
                .hasMessage("grepMaxFileBytes must be between 1 and " + FileToolSettings.WHOLE_FILE_LIMIT
                        + " bytes, got 0");
        refused(() -> FileToolSettings.builder().grepMaxFileBytes(Integer.MAX_VALUE))
                .hasMessageContaining("grepMaxFileBytes").hasMessageContaining("got " + Integer.MAX_VALUE);
    }

    @Test
    void grepLineClipCharsBelowOneIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().grepLineClipChars(0)).hasMessageContaining("grepLineClipChars")
                .hasMessageContaining("at least 1").hasMessageContaining("got 0");
    }

    @Test
    void negativeGrepMaxContextIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().grepMaxContext(-1)).hasMessageContaining("grepMaxContext")
                .hasMessageContaining("at least 0").hasMessageContaining("got -1");
    }

    @Test
    void editDiffMaxLinesBelowOneIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().editDiffMaxLines(0)).hasMessageContaining("editDiffMaxLines")
                .hasMessageContaining("at least 1").hasMessageContaining("got 0");
    }

    @Test
    void maxPathLengthBelowOneIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().maxPathLength(0)).hasMessageContaining("maxPathLength")
                .hasMessageContaining("at least 1").hasMessageContaining("got 0");
    }

    @Test
    void maxComponentLengthBelowOneIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().maxComponentLength(0)).hasMessageContaining("maxComponentLength")
                .hasMessageContaining("at least 1").hasMessageContaining("got 0");
    }

    @Test
    void parallelismBelowOneIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().parallelism(0)).hasMessageContaining("parallelism")
                .hasMessageContaining("at least 1").hasMessageContaining("got 0");
    }

    @Test
    void resultMaxBytesBelow1024IsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().resultMaxBytes(1023))
                .hasMessage("resultMaxBytes must be at least 1024 bytes, got 1023");
    }

    @Test
    void wholeFileMaxBytesOutsideOneToTheArrayLimitIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().wholeFileMaxBytes(0)).hasMessageContaining("wholeFileMaxBytes")
                .hasMessageContaining("between 1 and " + FileToolSettings.WHOLE_FILE_LIMIT).hasMessageContaining("got 0");
        refused(() -> FileToolSettings.builder().wholeFileMaxBytes(Integer.MAX_VALUE))
                .hasMessageContaining("wholeFileMaxBytes").hasMessageContaining("got " + Integer.MAX_VALUE);
    }

    @Test
    void searchTimeoutShorterThanAMillisecondIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().searchTimeout(Duration.ZERO))
                .hasMessage("searchTimeout must be between 1 ms and PT24H (one day), got PT0S");
        refused(() -> FileToolSettings.builder().searchTimeout(Duration.ofNanos(999_999)))
                .hasMessageContaining("searchTimeout");
        refused(() -> FileToolSettings.builder().searchTimeout(Duration.ofSeconds(-1)))
                .hasMessageContaining("searchTimeout").hasMessageContaining("got PT-1S");
    }

    @Test
    void searchTimeoutLongerThanADayIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().searchTimeout(Duration.ofDays(1).plusMillis(1)))
                .hasMessageContaining("searchTimeout").hasMessageContaining("PT24H0.001S");
    }

    @Test
    void searchTimeoutOfOneMillisecondAndOfOneDayAreAccepted() {
        assertThat(FileToolSettings.builder().searchTimeout(Duration.ofMillis(1)).build().searchTimeout())
                .isEqualTo(Duration.ofMillis(1));
        assertThat(FileToolSettings.builder().searchTimeout(Duration.ofDays(1)).build().searchTimeout())
                .isEqualTo(FileToolSettings.MAX_SEARCH_TIMEOUT);
    }

    @Test
    void nullSearchTimeoutIsRefused() {
        assertThatThrownBy(() -> FileToolSettings.builder().searchTimeout(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void negativeReadTotalsMaxBytesIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().readTotalsMaxBytes(-1)).hasMessageContaining("readTotalsMaxBytes")
                .hasMessageContaining("at least 0").hasMessageContaining("got -1");
    }

    @Test
    void readTotalsMaxBytesOfZeroIsAccepted() {
        assertThat(FileToolSettings.builder().readTotalsMaxBytes(0).build().readTotalsMaxBytes()).isZero();
    }

    @Test
    void readMaxFilesOutOfRangeIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().readMaxFiles(0))
                .hasMessage("readMaxFiles must be between 1 and 1000 files, got 0");
        refused(() -> FileToolSettings.builder().readMaxFiles(1001)).hasMessageContaining("got 1001");
    }

    @Test
    void readMaxFilesOfOneAndOfTheMaximumAreAccepted() {
        assertThat(FileToolSettings.builder().readMaxFiles(1).build().readMaxFiles()).isEqualTo(1);
        assertThat(FileToolSettings.builder().readMaxFiles(1000).build().readMaxFiles())
                .isEqualTo(FileToolSettings.MAX_READ_MAX_FILES);
    }

    @Test
    void binaryReadMaxBytesBelowOneIsRefusedAtOnce() {
        refused(() -> FileToolSettings.builder().binaryReadMaxBytes(0))
                .hasMessage("binaryReadMaxBytes must be at least 1 bytes, got 0");
    }

    @Test
    void buildRefusesReadDefaultCharsAboveReadMaxChars() {
        refused(() -> FileToolSettings.builder().readDefaultChars(200_000).build())
                .hasMessage("readDefaultChars (200000) must not exceed readMaxChars (100000); lower readDefaultChars "
                        + "or raise readMaxChars");
    }

    @Test
    void buildRefusesDefaultMaxDepthAboveMaxDepthLimit() {
        refused(() -> FileToolSettings.builder().defaultMaxDepth(65).build())
                .hasMessageContaining("defaultMaxDepth (65)").hasMessageContaining("maxDepthLimit (64)");
    }

    @Test
    void buildRefusesFindDefaultLimitAboveFindMaxLimit() {
        refused(() -> FileToolSettings.builder().findDefaultLimit(3000).build())
                .hasMessageContaining("findDefaultLimit (3000)").hasMessageContaining("findMaxLimit (2000)");
    }

    @Test
    void buildRefusesGrepDefaultLimitAboveGrepMaxLimit() {
        refused(() -> FileToolSettings.builder().grepMaxLimit(100).build())
                .hasMessageContaining("grepDefaultLimit (200)").hasMessageContaining("grepMaxLimit (100)");
    }

    @Test
    void aDefaultAndItsMaximumMayBeSetInEitherOrder() {
        FileToolSettings s = FileToolSettings.builder().findDefaultLimit(3000).findMaxLimit(5000).build();
        assertThat(s.findDefaultLimit()).isEqualTo(3000);
        assertThat(s.findMaxLimit()).isEqualTo(5000);
    }
}
