package org.vancetope.worktarget.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.transfer.TransferListener.Role;

/** The tour's progress bar: one line redrawn in place on a terminal, plain lines elsewhere. */
class ProgressBarTest {
    private static final long TOTAL = 1_000;

    private static String draw(boolean terminal) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ProgressBar bar = new ProgressBar(new PrintStream(bytes, true, StandardCharsets.UTF_8), terminal);
        for (long done = 0; done <= TOTAL; done += 25) {
            bar.onProgress("t-1", Role.SENDER, done, TOTAL);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void onATerminalATransferIsOneLineRedrawnInPlace() {
        String shown = draw(true);
        assertThat(shown.split(System.lineSeparator(), -1)).as("one line, ended at 100%").hasSize(2);
        assertThat(shown).startsWith("\r  [").endsWith("\r  [##############################] 100%  1,000 / 1,000 bytes "
                + "(sending)" + System.lineSeparator());
        assertThat(shown.chars().filter(c -> c == '\r').count()).as("a redraw per step").isEqualTo(41);
    }

    @Test
    void elsewhereATransferIsAPlainLineAtEveryTenth() {
        String shown = draw(false);
        assertThat(shown).doesNotContain("\r");
        assertThat(shown.lines()).hasSize(11).first().isEqualTo("  [..............................]   0%  0 / 1,000 bytes (sending)");
        assertThat(shown.lines()).last().isEqualTo("  [##############################] 100%  1,000 / 1,000 bytes (sending)");
    }
}
