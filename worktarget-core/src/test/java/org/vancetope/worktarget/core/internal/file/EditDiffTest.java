package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class EditDiffTest {

    /** Applies the hunks of a diff (not cut) to the lines of the text it was made from. */
    private static List<String> apply(List<String> original, String diff) {
        List<String> out = new ArrayList<>();
        int next = 0;     // the next original line (0-based) not yet copied
        String[] lines = diff.isEmpty() ? new String[0] : diff.split("\n", -1);
        int k = 0;
        while (k < lines.length && !lines[k].isEmpty()) {
            assertThat(lines[k]).startsWith("@@ line ");
            int at = Integer.parseInt(lines[k].substring(8, lines[k].length() - 3)) - 1;
            k++;
            if (k < lines.length && lines[k].startsWith(" ") && at > 0) {
                k++;                                                    // the context line before
            }
            out.addAll(original.subList(next, at));
            next = at;
            while (k < lines.length && lines[k].startsWith("-")) {
                assertThat(original.get(next)).isEqualTo(lines[k].substring(1));
                next++;
                k++;
            }
            while (k < lines.length && lines[k].startsWith("+")) {
                out.add(lines[k].substring(1));
                k++;
            }
            if (k < lines.length && lines[k].startsWith(" ")) {
                assertThat(original.get(next)).isEqualTo(lines[k].substring(1));   // the context line after
                k++;
            }
        }
        out.addAll(original.subList(next, original.size()));
        return out;
    }

    private static List<String> lines(String text) {
        List<String> out = new ArrayList<>(List.of(text.split("\n", -1)));
        out.remove(out.size() - 1);     // every text here ends with a newline
        return out;
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.of("a", "b", "c", "", "a b").list().ofMaxSize(30)
                .map(l -> l.isEmpty() ? "" : String.join("\n", l) + "\n");
    }

    @Property(tries = 500)
    void theHunksTurnTheOldTextIntoTheNewOne(@ForAll("texts") String before, @ForAll("texts") String after) {
        byte[] a = before.getBytes(StandardCharsets.UTF_8);
        byte[] b = after.getBytes(StandardCharsets.UTF_8);
        String diff = EditDiff.of(a, a.length, b, b.length, 10_000, 10_000);
        assertThat(apply(lines(before), diff)).isEqualTo(lines(after));
        assertThat(diff.isEmpty()).isEqualTo(before.equals(after));
    }

    private static String diff(String before, String after) {
        byte[] a = before.getBytes(StandardCharsets.UTF_8);
        byte[] b = after.getBytes(StandardCharsets.UTF_8);
        return EditDiff.of(a, a.length, b, b.length, 100, 200);
    }

    @Test
    void aChangeOfTheLineEndingAloneIsNamedUnderLinesThatReadTheSame() {
        assertThat(diff("one\r\ntwo\r\nthree\r\n", "one\r\ntwo\nthree\r\n")).isEqualTo(
                "@@ line 2 @@\n one\n-two\n+two\n\\ Line endings only: where a '-' and a '+' line read the same, "
                        + "CRLF (\\r\\n) became LF (\\n)\n three\n");
        assertThat(diff("one\ntwo\n", "one\r\ntwo\r\n")).endsWith(
                "\\ Line endings only: where a '-' and a '+' line read the same, LF (\\n) became CRLF (\\r\\n)\n");
    }

    @Test
    void aCarriageReturnInsideALineIsShownAsBackslashR() {
        assertThat(diff("one\r\nthree\r\n", "one\r\nthree\r\r\n")).isEqualTo("@@ line 2 @@\n one\n-three\n+three\\r\n");
    }

    @Test
    void aChangedTextGetsNoLineEndingNote() {
        assertThat(diff("one\r\ntwo\r\n", "one\r\nTWO\n")).isEqualTo("@@ line 2 @@\n one\n-two\n+TWO\n");
        assertThat(diff("one\r\ntwo", "one\r\ntwo\r\n")).doesNotContain("Line endings only")
                .contains(EditDiff.NO_NEWLINE);
    }

    @Test
    void onlyTheLinesOfTheChangedPlaceAreShownInALargeText() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 200_000; i++) {
            sb.append("line ").append(i).append('\n');
        }
        String before = sb.toString();
        String after = before.replace("line 100000\n", "LINE\n");
        byte[] a = before.getBytes(StandardCharsets.UTF_8);
        byte[] b = after.getBytes(StandardCharsets.UTF_8);
        assertThat(EditDiff.of(a, a.length, b, b.length, 40, 200))
                .isEqualTo("@@ line 100001 @@\n line 99999\n-line 100000\n+LINE\n line 100001\n");
    }

    @Test
    void aRewrittenBlockLongerThanTheWindowIsOneChangedPlace() {
        StringBuilder x = new StringBuilder("top\n");
        StringBuilder y = new StringBuilder("top\n");
        for (int i = 0; i < 3 * EditDiff.WINDOW; i++) {
            x.append("old ").append(i).append('\n');
            y.append("new ").append(i).append('\n');
        }
        x.append("bottom\n");
        y.append("bottom\n");
        byte[] a = x.toString().getBytes(StandardCharsets.UTF_8);
        byte[] b = y.toString().getBytes(StandardCharsets.UTF_8);
        String diff = EditDiff.of(a, a.length, b, b.length, 10_000, 200);
        assertThat(apply(lines(x.toString()), diff)).isEqualTo(lines(y.toString()));
        assertThat(diff.lines().filter(l -> l.startsWith("@@"))).hasSize(1);
    }
}
