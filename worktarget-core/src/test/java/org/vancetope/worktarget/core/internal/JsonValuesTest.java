package org.vancetope.worktarget.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonValuesTest {

    @Test
    void longsThatFitAnIntBecomeIntegersEverywhereInTheTree() {
        Map<String, Object> r = JsonValues.normalize(Map.of("a", 3L, "b", List.of(4L, Map.of("c", (short) 5))));
        assertThat(r.get("a")).isInstanceOf(Integer.class).isEqualTo(3);
        assertThat(r.get("b")).isEqualTo(List.of(4, Map.of("c", 5)));
    }

    @Test
    void longsBeyondTheIntRangeStayLongs() {
        assertThat(JsonValues.normalize(Map.of("big", 5_000_000_000L)).get("big")).isEqualTo(5_000_000_000L);
    }

    @Test
    void otherValuesAreKept() {
        assertThat(JsonValues.normalize(Map.of("s", "x", "d", 1.5, "t", true)))
                .containsEntry("s", "x").containsEntry("d", 1.5).containsEntry("t", true);
    }
}
