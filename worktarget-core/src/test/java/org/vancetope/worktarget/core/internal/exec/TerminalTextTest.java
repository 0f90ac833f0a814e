package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * Exec output inline is what a terminal shows: progress redraws ({@code \r}), backspaces, colours and other
 * escape sequences applied; {@code \r\n} kept. The capture's bounded head and ring show the same as the
 * whole text would, in any chunking.
 */
class TerminalTextTest {
    private static final int CAP = 100;
    private static final Pattern SENTINEL = Pattern.compile("\n…\\[truncated, (\\d+) chars omitted]\n");

    @Test
    void aCarriageReturnStartsItsLineOver() {
        assertThat(TerminalText.clean("downloading 10%\rdownloading 55%\rdownloading 100%\ndone\n"))
                .isEqualTo("downloading 100%\ndone\n");
        assertThat(TerminalText.clean("first\nab\rc")).isEqualTo("first\nc");
    }

    @Test
    void windowsLineEndsAreKept() {
        assertThat(TerminalText.clean("a\r\nb\r\n")).isEqualTo("a\r\nb\r\n");
        assertThat(TerminalText.clean("a\r\r\nb")).as("a redraw, then a line end").isEqualTo("\r\nb");
    }

    @Test
    void aCarriageReturnAtTheEndKeepsItsLine() {
        assertThat(TerminalText.clean("50%\r100%\r")).isEqualTo("100%");
    }

    @Test
    void aBackspaceTakesBackOneCharacterOfItsLineOnly() {
        assertThat(TerminalText.clean("ab\bc")).isEqualTo("ac");
        assertThat(TerminalText.clean("a\n\b\bb")).isEqualTo("a\nb");
        assertThat(TerminalText.clean("spin -\b\\\b|\b/\bdone")).isEqualTo("spin done");
    }

    @Test
    void colourAndCursorSequencesAreDropped() {
        assertThat(TerminalText.clean("\u001b[32m✓\u001b[39m passed \u001b[1;31mfailed\u001b[0m\n"))
                .isEqualTo("✓ passed failed\n");
        assertThat(TerminalText.clean("\u001b[2K\u001b[1Gline\u001b[?25l\u001b(B\u001b7x\u001b8")).isEqualTo("linex");
    }

    @Test
    void windowTitlesAndTheBellAreDropped() {
        assertThat(TerminalText.clean("\u001b]0;my title\u0007text\u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\\u0007"))
                .isEqualTo("textlink");
    }

    @Test
    void aSequenceThatDoesNotEndIsReadAsTextAfterItsBound() {
        String open = "\u001b]" + "x".repeat(TerminalText.MAX_SEQUENCE) + "after";
        assertThat(TerminalText.clean(open)).isEqualTo("after");
        assertThat(TerminalText.clean("\u001b[12\nnext")).as("a line end is never part of a sequence")
                .isEqualTo("\nnext");
        assertThat(TerminalText.clean("a\u001b")).isEqualTo("a");
    }

    @Test
    void textWithoutControlsIsUnchanged() {
        String s = "plain text\twith tabs, üñíçødé and 😀\n";
        assertThat(TerminalText.clean(s)).isEqualTo(s);
    }

    @Test
    void aCaptureOfAProgressBarKeepsTheLinesAroundIt() {
        StringBuilder out = new StringBuilder("Collecting numpy\n");
        for (int i = 0; i <= 1000; i++) {
            out.append("\r\u001b[32m").append(i / 10).append("%\u001b[0m |").append("#".repeat(i / 50));
        }
        out.append("\nInstalled numpy\n");
        StreamCapture c = capture(out.toString(), 7);
        HeadTail.Rendered r = c.render(CAP);
        assertThat(r.truncated()).isFalse();
        assertThat(r.text()).isEqualTo("Collecting numpy\n100% |" + "#".repeat(20) + "\nInstalled numpy\n");
    }

    @Provide
    Arbitrary<String> output() {
        return Arbitraries.strings().withChars("ab\té\n\n\r\r\b\u001b[]m;0\u0007").ofMaxLength(600);
    }

    /** Long plain runs (that fill the head and wrap the ring in one copy) between control fragments. */
    @Provide
    Arbitrary<String> mostlyPlain() {
        return Arbitraries.oneOf(Arbitraries.strings().withChars("abcdef é\n").ofMinLength(1).ofMaxLength(250),
                Arbitraries.of("\r", "\b", "\u001b[31m", "\r\n", "\u001b]0;t\u0007", "\u001b"))
                .list().ofMaxSize(12).map(parts -> String.join("", parts));
    }

    @Property(tries = 3000)
    void aCaptureOfLongPlainRunsShowsTheSameAsTheWholeText(@ForAll("mostlyPlain") String raw,
                                                            @ForAll @IntRange(min = 1, max = 300) int chunk) {
        aCaptureShowsTheSameAsTheWholeTextInAnyChunking(raw, chunk);
    }

    @Property(tries = 3000)
    void aCaptureShowsTheSameAsTheWholeTextInAnyChunking(@ForAll("output") String raw,
                                                           @ForAll @IntRange(min = 1, max = 40) int chunk) {
        String shown = TerminalText.clean(raw);
        HeadTail.Rendered whole = HeadTail.render(shown, CAP);
        HeadTail.Rendered r = capture(raw, chunk).render(CAP);
        if (!whole.truncated()) {
            assertThat(r).isEqualTo(whole);
            return;
        }
        assertThat(r.truncated()).isTrue();
        Matcher m = SENTINEL.matcher(r.text());
        assertThat(m.find()).isTrue();
        String head = r.text().substring(0, m.start());
        String tail = r.text().substring(m.end());
        Matcher w = SENTINEL.matcher(whole.text());
        assertThat(w.find()).isTrue();
        assertThat(head).isEqualTo(whole.text().substring(0, w.start()));
        assertThat(shown).endsWith(tail);
        assertThat(tail.length()).isLessThanOrEqualTo(whole.text().length() - w.end());
        assertThat(r.omitted()).isEqualTo(Long.parseLong(m.group(1)))
                .isEqualTo(shown.length() - head.length() - tail.length());
    }

    /** Pumps the text through a capture with an inline cap of {@link #CAP}, at most {@code chunk} bytes a read. */
    private static StreamCapture capture(String text, int chunk) {
        StreamCapture c = new StreamCapture("t", Channels.newChannel(OutputStream.nullOutputStream()), 1 << 20, CAP,
                Clock.systemUTC());
        c.pump(new ChunkedInput(text.getBytes(StandardCharsets.UTF_8), chunk));
        return c;
    }
}
