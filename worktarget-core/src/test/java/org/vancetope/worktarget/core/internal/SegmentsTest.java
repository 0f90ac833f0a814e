package org.vancetope.worktarget.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

class SegmentsTest {

    @ParameterizedTest
    @ValueSource(strings = {"src", "user-upload-2026-05-01", "_tenant", "_user_alice", "a.b", "x..", "m\u00fcller",
        "\u6771\u4eac", "box-\uD83D\uDE00"})
    void singleNamesAreSafe(String name) {
        assertThat(Segments.isSafe(name)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "../otherProject/x", "a/b", "a\\b", "a\u0000b", " a", "a ", "C:", "a\nb"})
    void pathLikeNamesAreRefused(String name) {
        assertThat(Segments.isSafe(name)).isFalse();
    }

    @Test
    void theGrantWildcardIsNotAProjectName() {
        assertThat(Segments.isSafe("*")).as("a RootDir may be named '*'").isTrue();
        assertThat(Segments.projectMessage("project", "*")).contains("project is '*'", "grants every project",
                "Give the name of one project");
        assertThatThrownBy(() -> Segments.requireProject("*")).isInstanceOf(ToolException.class)
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.INVALID_PARAMS);
    }

    @Test
    void aProjectNameIsASafeSegmentOtherThanTheWildcard() throws ToolException {
        assertThat(Segments.projectMessage("project", "proj")).isNull();
        assertThat(Segments.requireProject("a*b")).isEqualTo("a*b");
        assertThat(Segments.projectMessage("project", "a/b")).contains("project must be", "it contains '/'");
        assertThatThrownBy(() -> Segments.requireProject("..")).isInstanceOf(ToolException.class)
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.PATH_ESCAPE);
    }

    @ParameterizedTest
    @ValueSource(strings = {".hidden", "..x", ".worktarget", ".rootdirs"})
    void hiddenNamesAreRefused(String name) {
        assertThat(Segments.problem(name)).isEqualTo("it starts with '.'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"\uFFFD", "\uFFFD\uFFFD", "acme\uFFFD"})
    void namesWithTheReplacementCharacterAreRefused(String name) {
        assertThat(Segments.problem(name)).contains("U+FFFD");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\uD800", "\uDC00b", "a\uDC00\uD800b"})
    void namesWithAnUnpairedSurrogateAreRefused(String name) {
        assertThat(Segments.problem(name)).contains("unpaired surrogate");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\uFFFF", "\uFFFEb", "a\uFDD0", "a\uD83F\uDFFF"})
    void namesWithANoncharacterAreRefused(String name) {
        assertThat(Segments.problem(name)).contains("noncharacter");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\u0085b", "a\u009bb", "a\u007fb", "a\u2028b", "a\u2029b"})
    void namesWithC1ControlsOrLineSeparatorsAreRefused(String name) {
        assertThat(Segments.problem(name)).contains("control character");
    }

    @Test
    void nullIsRefused() {
        assertThat(Segments.isSafe(null)).isFalse();
    }

    @Test
    void overLongNamesAreRefused() {
        assertThat(Segments.isSafe("a".repeat(Segments.MAX_LENGTH))).isTrue();
        assertThat(Segments.isSafe("a".repeat(Segments.MAX_LENGTH + 1))).isFalse();
    }

    @Test
    void namesAreMeasuredInBytesOfUtf8TooSinceTheyBecomeFileNames() {
        assertThat(Segments.isSafe("é".repeat(120))).as("240 bytes").isTrue();
        assertThat(Segments.problem("é".repeat(121))).isEqualTo("it has 242 bytes of UTF-8 (a letter such as 'é' "
                + "takes 2, a CJK character 3)");
        assertThat(Segments.isSafe("\u65e5".repeat(80))).as("240 bytes").isTrue();
        assertThat(Segments.isSafe("\u65e5".repeat(128))).as("128 characters, 384 bytes").isFalse();
        assertThat(Segments.RULE).contains("1 to 128 characters (at most 240 bytes of UTF-8)");
    }

    @Test
    void requireFailsWithPathEscapeAndSaysWhatIsAllowed() {
        assertThatThrownBy(() -> Segments.require("dirName", "../otherProject/x"))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining("dirName must be a single name")
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.PATH_ESCAPE);
    }

    @Test
    void requireSaysWhatIsWrongWithTheName() {
        assertThatThrownBy(() -> Segments.require("tenant", "\uFFFD\uFFFD"))
                .hasMessage("tenant must be " + Segments.RULE + "; it contains U+FFFD, the mark of bytes that were not "
                        + "valid text.");
        assertThatThrownBy(() -> Segments.require("project", "a/b")).hasMessageEndingWith("; it contains '/'.");
    }
}
