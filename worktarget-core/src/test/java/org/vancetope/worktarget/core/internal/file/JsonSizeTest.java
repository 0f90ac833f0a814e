package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.internal.Json;

class JsonSizeTest {

    private static long written(Object v) {
        return Json.write(v).getBytes(StandardCharsets.UTF_8).length;
    }

    @Test
    void sizeEqualsTheLengthOfTheWrittenJsonForValidText() {
        Random rnd = new Random(3);
        char[] alphabet = {'a', 'Z', '0', ' ', '"', '\\', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u0001', '\u001f',
            '\u007f', 'é', 'ß', '\u07ff', '\u0800', '€', '\uffff'};
        for (int round = 0; round < 500; round++) {
            StringBuilder sb = new StringBuilder();
            int len = rnd.nextInt(40);
            for (int i = 0; i < len; i++) {
                if (rnd.nextInt(8) == 0) {
                    sb.append("\uD83D\uDE00");
                } else {
                    sb.append(alphabet[rnd.nextInt(alphabet.length)]);
                }
            }
            String s = sb.toString();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("path", s);
            m.put("line", rnd.nextInt(100_000));
            m.put("big", (long) Integer.MAX_VALUE + rnd.nextInt(10));
            m.put("ok", rnd.nextBoolean());
            m.put("none", null);
            m.put("before", List.of(s, "x", s));
            assertThat(JsonSize.of(s)).as("%s", Arrays.toString(s.toCharArray())).isEqualTo(written(s));
            assertThat(JsonSize.of(m)).isEqualTo(written(m));
        }
    }

    @Test
    void aLoneSurrogateIsCountedAtLeastAsLongAsAnyWriterMakesIt() {
        String s = "a\uD800b\uDC00";
        assertThat(JsonSize.of(s)).isEqualTo(2 + 1 + 6 + 1 + 6).isGreaterThanOrEqualTo(written(s));
    }

    @Test
    void boundsAreNeverBelowTheExactSize() {
        for (char c = 0; c < 0xFFFF; c++) {
            assertThat((long) JsonSize.charBound(c)).isGreaterThanOrEqualTo(JsonSize.body(String.valueOf(c), 0, 1));
        }
        for (int b = 0; b < 256; b++) {
            byte[] one = {(byte) b};
            String decoded = new String(one, StandardCharsets.UTF_8);
            assertThat((long) JsonSize.byteBound((byte) b)).isGreaterThanOrEqualTo(
                    JsonSize.body(decoded, 0, decoded.length()));
        }
    }
}
