package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HeadTailTest {

    private static String digits(int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append((char) ('0' + i % 10));
        }
        return sb.toString();
    }

    @Test
    void textWithinTheCapIsReturnedUnchanged() {
        String text = digits(100);
        HeadTail.Rendered r = HeadTail.render(text, 100);
        assertThat(r.text()).isEqualTo(text);
        assertThat(r.truncated()).isFalse();
        assertThat(r.omitted()).isZero();
    }

    @Test
    void emptyTextIsNotTruncated() {
        assertThat(HeadTail.render("", 100)).isEqualTo(new HeadTail.Rendered("", false, 0));
    }

    @Test
    void longTextBecomesExactHeadSentinelAndTail() {
        // cap 100, total 1000: budget = 100 - 2 - 13 - 15 - 4 = 66; head 13, tail 53, omitted 934.
        String text = digits(1000);
        HeadTail.Rendered r = HeadTail.render(text, 100);
        String expected = text.substring(0, 13) + "\n…[truncated, 934 chars omitted]\n" + text.substring(1000 - 53);
        assertThat(r.text()).isEqualTo(expected);
        assertThat(r.truncated()).isTrue();
        assertThat(r.omitted()).isEqualTo(934);
    }

    @Test
    void renderedTextNeverExceedsTheCap() {
        for (int total = 8_001; total < 8_100; total++) {
            assertThat(HeadTail.render(digits(total), 8_000).text().length()).isLessThanOrEqualTo(8_000);
        }
        assertThat(HeadTail.render(digits(2_000_000), 8_000).text()).hasSizeLessThanOrEqualTo(8_000);
    }

    @Test
    void defaultCapKeepsAboutAFifthHeadAndFourFifthsTail() {
        String text = "h".repeat(10_000) + "t".repeat(10_000);
        HeadTail.Rendered r = HeadTail.render(text, 8_000);
        String[] parts = r.text().split("\n", -1);
        assertThat(parts).hasSize(3);
        // budget = 8000 - 2 - 28 - 5 = 7965; head 1593, tail 6372; omitted = 20000 - 7965
        assertThat(parts[0]).isEqualTo("h".repeat(1593));
        assertThat(parts[1]).isEqualTo("…[truncated, 12035 chars omitted]");
        assertThat(parts[2]).isEqualTo("t".repeat(6372));
        assertThat(r.omitted()).isEqualTo(12_035);
    }

    @Test
    void omittedCountPlusKeptCharsIsTheTotal() {
        String text = digits(54_321);
        HeadTail.Rendered r = HeadTail.render(text, 500);
        int sentinelStart = r.text().indexOf("\n…[truncated, ");
        int tailStart = r.text().indexOf('\n', sentinelStart + 1) + 1;
        int kept = sentinelStart + (r.text().length() - tailStart);
        assertThat(kept + r.omitted()).isEqualTo(54_321);
    }

    @Test
    void surrogatePairsAreNeverSplit() {
        String smiley = "\uD83D\uDE00";
        String text = smiley.repeat(1_000);
        HeadTail.Rendered r = HeadTail.render(text, 100);
        String head = r.text().substring(0, r.text().indexOf('\n'));
        String tail = r.text().substring(r.text().lastIndexOf('\n') + 1);
        assertThat(head.length() % 2).isZero();
        assertThat(tail.length() % 2).isZero();
        assertThat(Character.isHighSurrogate(tail.charAt(0))).isTrue();
        assertThat(r.omitted() + head.length() + tail.length()).isEqualTo(2_000);
    }

    @Test
    void streamingRenderFromHeadAndRingEqualsRenderOfTheWholeText() {
        String text = digits(30_000);
        HeadTail.Rendered whole = HeadTail.render(text, 1_000);
        HeadTail.Rendered streamed = HeadTail.render(text.substring(0, 1_000), text.substring(29_000), 30_000, 1_000);
        assertThat(streamed).isEqualTo(whole);
    }

    @Test
    void capBelowTheMinimumIsRefused() {
        assertThatThrownBy(() -> HeadTail.render("x", HeadTail.MIN_CAP - 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least " + HeadTail.MIN_CAP);
    }

    @Test
    void tooShortHeadForTheTotalIsRefused() {
        assertThatThrownBy(() -> HeadTail.render("abc", "abc", 5, 100))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTailShorterThanItsShareIsShownWholeAndTheOmittedCountCoversTheRest() {
        HeadTail.Rendered r = HeadTail.render("h".repeat(100), "xyz", 500, 100);
        assertThat(r.truncated()).isTrue();
        assertThat(r.text()).endsWith("]\nxyz");
        int head = r.text().indexOf('\n');
        assertThat(r.omitted()).isEqualTo(500 - head - 3);
        assertThat(r.text()).contains(HeadTail.sentinel(r.omitted()));
    }

    @Test
    void sentinelHasTheSpecFormat() {
        assertThat(HeadTail.sentinel(42)).isEqualTo("…[truncated, 42 chars omitted]");
    }
}
