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
    @ValueSource(strings = {"src", "user-upload-2026-05-01", "_tenant", "_user_alice", "a.b", "..x", "x.."})
    void singleNamesAreSafe(String name) {
        assertThat(Segments.isSafe(name)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "../otherProject/x", "a/b", "a\\b", "a\u0000b", " a", "a ", "C:", "a\nb"})
    void pathLikeNamesAreRefused(String name) {
        assertThat(Segments.isSafe(name)).isFalse();
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
    void requireFailsWithPathEscapeAndSaysWhatIsAllowed() {
        assertThatThrownBy(() -> Segments.require("dirName", "../otherProject/x"))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining("dirName must be a single name")
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.PATH_ESCAPE);
    }
}
