package org.vancetope.worktarget.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FieldReaderTest {

    /** A refusal that keeps the field it names. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;
        final String field;

        Refused(String field, String message) {
            super(message);
            this.field = field;
        }
    }

    private static final FieldReader.Vocabulary<Refused> WORDS = new FieldReader.Vocabulary<>() {
        @Override
        public String subject(String field) {
            return "Field '" + field + "'";
        }

        @Override
        public String missing(String field) {
            return "Send the field '" + field + "'.";
        }

        @Override
        public Refused refusal(String field, String message) {
            return new Refused(field, message);
        }
    };

    private static FieldReader<Refused> reader(String field, Object value) {
        Map<String, Object> m = new HashMap<>();
        m.put(field, value);
        return new FieldReader<>(m, WORDS);
    }

    @Test
    void anAbsentOrNullFieldIsAbsent() throws Refused {
        FieldReader<Refused> r = reader("a", null);
        assertThat(r.has("a")).isFalse();
        assertThat(r.string("a")).isNull();
        assertThat(r.bool("b")).isNull();
        assertThat(r.integer("c", 0, 9)).isNull();
        assertThat(r.object("d")).isNull();
        assertThat(r.stringMap("e")).isEmpty();
        assertThat(r.integer("c", 7, 0, 9)).isEqualTo(7);
    }

    @Test
    void aRequiredFieldThatIsAbsentGetsTheCallersMissingMessage() {
        assertThatThrownBy(() -> reader("x", 1).requireString("s")).isInstanceOf(Refused.class)
                .hasMessage("Send the field 's'.");
        assertThatThrownBy(() -> reader("x", 1).requireBool("b")).hasMessage("Send the field 'b'.");
        assertThatThrownBy(() -> reader("x", 1).requireInteger("n", 0, 9)).hasMessage("Send the field 'n'.");
    }

    @Test
    void theRefusalNamesTheField() {
        assertThatThrownBy(() -> reader("s", 3).string("s")).isInstanceOfSatisfying(Refused.class,
                e -> assertThat(e.field).isEqualTo("s"));
    }

    @Test
    void aStringOfTheWrongTypeNamesTheTypeItGot() {
        assertThatThrownBy(() -> reader("s", 3).string("s")).hasMessage("Field 's' must be a string, got a number.");
        assertThatThrownBy(() -> reader("s", true).string("s")).hasMessage("Field 's' must be a string, got a boolean.");
        assertThatThrownBy(() -> reader("s", List.of()).string("s")).hasMessage("Field 's' must be a string, got an array.");
        assertThatThrownBy(() -> reader("s", Map.of()).string("s")).hasMessage("Field 's' must be a string, got an object.");
    }

    @Test
    void anEmptyStringIsRefusedOnlyWhereItMustNotBeEmpty() throws Refused {
        assertThat(reader("s", "").requireString("s")).isEmpty();
        assertThatThrownBy(() -> reader("s", "").requireNonEmpty("s")).hasMessage("Field 's' must not be empty.");
    }

    @Test
    void aBooleanOfTheWrongTypeIsRefused() {
        assertThatThrownBy(() -> reader("b", "yes").bool("b")).hasMessage("Field 'b' must be true or false, got a string.");
    }

    @Test
    void integersOfEveryIntegralShapeAreAccepted() throws Refused {
        assertThat(reader("n", 5).integer("n", 0, 9)).isEqualTo(5L);
        assertThat(reader("n", 5L).integer("n", 0, 9)).isEqualTo(5L);
        assertThat(reader("n", (short) 5).integer("n", 0, 9)).isEqualTo(5L);
        assertThat(reader("n", BigInteger.valueOf(5)).integer("n", 0, 9)).isEqualTo(5L);
        assertThat(reader("n", 5.0).integer("n", 0, 9)).isEqualTo(5L);
        assertThat(reader("n", new BigDecimal("5.00")).integer("n", 0, 9)).isEqualTo(5L);
        assertThat(reader("n", Long.MAX_VALUE).integer("n", 0, Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aFractionIsNotAnInteger() {
        assertThatThrownBy(() -> reader("n", 5.5).integer("n", 0, 9)).hasMessage("Field 'n' must be an integer, got 5.5.");
        assertThatThrownBy(() -> reader("n", Double.NaN).integer("n", 0, 9)).hasMessage("Field 'n' must be an integer, got NaN.");
        assertThatThrownBy(() -> reader("n", Double.POSITIVE_INFINITY).integer("n", 0, 9))
                .hasMessageContaining("must be an integer");
    }

    @Test
    void aNonNumberIsNotAnInteger() {
        assertThatThrownBy(() -> reader("n", "5").integer("n", 0, 9)).hasMessage("Field 'n' must be an integer, got a string.");
    }

    @Test
    void anIntegerOutOfBoundsNamesTheBoundsAndTheValue() {
        assertThatThrownBy(() -> reader("n", 10).integer("n", 1, 9)).hasMessage("Field 'n' must be between 1 and 9, got 10.");
        assertThatThrownBy(() -> reader("n", 0).integer("n", 1, 9)).hasMessage("Field 'n' must be between 1 and 9, got 0.");
    }

    @Test
    void anIntegerBelowAnOpenRangeSaysAtLeast() {
        assertThatThrownBy(() -> reader("n", -1).integer("n", 0, Long.MAX_VALUE))
                .hasMessage("Field 'n' must be at least 0, got -1.");
    }

    @Test
    void anIntegerAboveAnOpenRangeSaysAtMost() {
        assertThatThrownBy(() -> reader("n", 10).integer("n", Long.MIN_VALUE, 9))
                .hasMessage("Field 'n' must be at most 9, got 10.");
    }

    @Test
    void anIntegerBeyondEveryLongIsOutOfRangeNotWrappedAround() {
        assertThatThrownBy(() -> reader("n", new BigInteger("99999999999999999999999")).integer("n", 0, Long.MAX_VALUE))
                .hasMessage("Field 'n' must be at least 0, got 99999999999999999999999.");
        assertThatThrownBy(() -> reader("n", 1e30).integer("n", 0, Long.MAX_VALUE))
                .hasMessageContaining("must be at least 0");
        assertThatThrownBy(() -> reader("n", new BigDecimal("1e1000000")).integer("n", 0, Long.MAX_VALUE))
                .hasMessageContaining("must be at least 0");
    }

    @Test
    void anObjectOfTheWrongTypeIsRefused() {
        assertThatThrownBy(() -> reader("o", List.of(1)).object("o"))
                .hasMessage("Field 'o' must be a JSON object, got an array.");
    }

    @Test
    void aStringMapMustHoldOnlyStrings() throws Refused {
        assertThat(reader("m", Map.of("A", "1")).stringMap("m")).containsEntry("A", "1");
        assertThatThrownBy(() -> reader("m", Map.of("A", 1)).stringMap("m"))
                .hasMessage("Field 'm' must be an object whose values are strings.");
        assertThatThrownBy(() -> reader("m", "A=1").stringMap("m"))
                .hasMessage("Field 'm' must be an object of strings or a list of {name, value} entries, got a string.");
    }

    @Test
    void aStringMapMayComeAsAListOfNameValueEntriesInOrder() throws Refused {
        assertThat(reader("m", java.util.List.of(Map.of("name", "B", "value", "2"), Map.of("name", "A", "value", "1")))
                .stringMap("m")).containsExactly(Map.entry("B", "2"), Map.entry("A", "1"));
    }

    @Test
    void anEmptyListIsAnEmptyStringMap() throws Refused {
        assertThat(reader("m", java.util.List.of()).stringMap("m")).isEmpty();
    }

    @Test
    void aListEntryThatIsNotAnObjectIsRefusedNamingItsIndex() {
        assertThatThrownBy(() -> reader("m", java.util.List.of("A=1")).stringMap("m"))
                .hasMessageContaining("entry 0 is a string");
    }

    @Test
    void aListEntryWithoutANameIsRefused() {
        assertThatThrownBy(() -> reader("m", java.util.List.of(Map.of("value", "1"))).stringMap("m"))
                .hasMessageContaining("{name, value} entries with string name and value");
    }

    @Test
    void aCallersOwnRefusalIsWordedLikeTheReaders() {
        assertThat(reader("c", "x").refuse("c", "must be one of a, b.")).hasMessage("Field 'c' must be one of a, b.");
    }
}
