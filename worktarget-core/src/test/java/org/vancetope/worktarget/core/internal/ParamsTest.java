package org.vancetope.worktarget.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

class ParamsTest {

    @Test
    void aMissingRequiredStringIsInvalidParams() {
        assertThatThrownBy(() -> Params.requireString(Map.of(), "path"))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining("Missing required parameter 'path'")
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.INVALID_PARAMS);
    }

    @Test
    void aRequiredStringOfTheWrongTypeNamesTheType() {
        assertThatThrownBy(() -> Params.requireString(Map.of("path", 3), "path")).hasMessageContaining("a number");
    }

    @Test
    void anEmptyRequiredStringIsRejectedButEmptyTextIsAccepted() throws ToolException {
        assertThatThrownBy(() -> Params.requireString(Map.of("path", ""), "path")).hasMessageContaining("empty");
        assertThat(Params.requireText(Map.of("content", ""), "content")).isEmpty();
    }

    @Test
    void integersOutOfBoundsNameTheBounds() {
        assertThatThrownBy(() -> Params.optInt(Map.of("n", 501), "n", 10, 1, 500))
                .hasMessageContaining("between 1 and 500").hasMessageContaining("501");
    }

    @Test
    void wholeDoublesAreAcceptedAsIntegersButFractionsAreNot() throws ToolException {
        assertThat(Params.optInt(Map.of("n", 5.0), "n", 10, 1, 500)).isEqualTo(5);
        assertThatThrownBy(() -> Params.optInt(Map.of("n", 5.5), "n", 10, 1, 500)).hasMessageContaining("integer");
    }

    @Test
    void absentOptionalsGiveTheirDefaults() throws ToolException {
        assertThat(Params.optInt(Map.of(), "n", 10, 1, 500)).isEqualTo(10);
        assertThat(Params.optBoolean(Map.of(), "b", true)).isTrue();
        assertThat(Params.optString(Map.of(), "s", "d")).isEqualTo("d");
        assertThat(Params.optStringMap(Map.of(), "env")).isEmpty();
    }

    @Test
    void aNonBooleanIsRejected() {
        assertThatThrownBy(() -> Params.optBoolean(Map.of("b", "yes"), "b", false)).hasMessageContaining("true or false");
    }

    @Test
    void choicesAreCaseInsensitiveAndListTheAllowedValues() throws ToolException {
        assertThat(Params.optChoice(Map.of("s", "STDERR"), "s", "stdout", List.of("stdout", "stderr"))).isEqualTo("stderr");
        assertThatThrownBy(() -> Params.optChoice(Map.of("s", "both"), "s", "stdout", List.of("stdout", "stderr")))
                .hasMessageContaining("stdout, stderr");
    }

    @Test
    void aStringMapMustHoldOnlyStrings() {
        assertThatThrownBy(() -> Params.optStringMap(Map.of("env", Map.of("A", 1)), "env"))
                .hasMessageContaining("strings");
    }

    @Test
    void aParameterOfTheWrongTypeIsInvalidParamsNamingTheParameter() {
        assertThatThrownBy(() -> Params.optLong(Map.of("n", "5"), "n", 0, 0, 9))
                .isInstanceOf(ToolException.class)
                .hasMessage("Parameter 'n' must be an integer, got a string.")
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.INVALID_PARAMS);
    }

    @Test
    void aParameterBeyondEveryLongIsOutOfRange() {
        assertThatThrownBy(() -> Params.optLong(Map.of("n", new java.math.BigInteger("99999999999999999999")), "n", 0,
                0, Long.MAX_VALUE)).hasMessage("Parameter 'n' must be at least 0, got 99999999999999999999.");
    }
}
