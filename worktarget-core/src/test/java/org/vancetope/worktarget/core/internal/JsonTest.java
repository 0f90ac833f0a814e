package org.vancetope.worktarget.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void writesScalarsListsAndMapsInOrder() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("b", 1);
        m.put("a", Arrays.asList(true, null, "x", 2.5));
        m.put("c", Map.of());
        assertThat(Json.write(m)).isEqualTo("{\"b\":1,\"a\":[true,null,\"x\",2.5],\"c\":{}}");
    }

    @Test
    void escapesControlCharactersQuotesAndBackslashes() {
        assertThat(Json.write("a\"b\\c\nd\u0001")).isEqualTo("\"a\\\"b\\\\c\\nd\\u0001\"");
    }

    @Test
    void prettyIndentsByTwoSpacesAndEndsWithANewline() {
        assertThat(Json.pretty(Map.of("k", List.of(1)))).isEqualTo("{\n  \"k\": [\n    1\n  ]\n}\n");
    }

    @Test
    void wholeDoublesAreWrittenAsIntegersAndNonFiniteAsNull() {
        assertThat(Json.write(List.of(3.0, Double.NaN))).isEqualTo("[3,null]");
    }
}
