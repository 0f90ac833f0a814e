package org.vancetope.worktarget.core.internal.exec;

/**
 * Job output as a terminal shows it, for the text the exec tools return inline: a carriage return that
 * does not end a line starts that line over (progress bars and spinners redraw themselves that way, and
 * tools such as {@code curl} and Python's {@code tqdm} do so even when no terminal is attached), a
 * backspace takes back the character before it on its line, and escape sequences (colours, cursor moves,
 * window titles) and the bell are dropped. A {@code \r\n} line end is kept as it is. Without this, a download of a
 * minute fills the inline head and tail with thousands of redraws of one line, in colour codes.
 *
 * <p>It reads characters one at a time in any chunking (a {@code \r} at the end of one chunk waits for the
 * next), and tells a {@link Sink} what the screen shows; the output files keep every byte as written. A
 * carriage return at the very end is dropped with the line it would have restarted kept. Sequences are
 * bounded: one that does not end within {@value #MAX_SEQUENCE} characters is dropped up to there and the
 * rest read as text. Not thread-safe: one reader.
 */
final class TerminalText {
    /** The most characters one escape sequence may have before the rest is read as text again. */
    static final int MAX_SEQUENCE = 4096;

    private static final char ESC = 0x1b;
    private static final char BEL = 0x07;

    /** What is shown. */
    interface Sink {
        /**
         * Shows a character at the end.
         *
         * @param c the character
         */
        void put(char c);

        /** Takes back the characters of the last line (those after its last {@code '\n'}). */
        void startLineOver();

        /** Takes back the last character of the last line, if it has one. */
        void backspace();
    }

    private enum State {
        TEXT, CR, ESCAPE, CSI, OSC, OSC_ESCAPE
    }

    private final Sink sink;
    private State state = State.TEXT;
    private int sequence;

    /**
     * A reader that tells the sink.
     *
     * @param sink what is shown
     */
    TerminalText(Sink sink) {
        this.sink = sink;
    }

    /**
     * The text as a terminal shows it.
     *
     * @param text the raw text
     * @return the shown text
     */
    static String clean(CharSequence text) {
        StringBuilder out = new StringBuilder(text.length());
        int[] lineStart = {0};
        TerminalText t = new TerminalText(new Sink() {
            @Override
            public void put(char c) {
                out.append(c);
                if (c == '\n') {
                    lineStart[0] = out.length();
                }
            }

            @Override
            public void startLineOver() {
                out.setLength(lineStart[0]);
            }

            @Override
            public void backspace() {
                if (out.length() > lineStart[0]) {
                    out.setLength(out.length() - 1);
                }
            }
        });
        for (int i = 0; i < text.length(); i++) {
            t.accept(text.charAt(i));
        }
        t.end();
        return out.toString();
    }

    /**
     * Reads the next character.
     *
     * @param c the character
     */
    void accept(char c) {
        switch (state) {
            case CR -> {
                state = State.TEXT;
                if (c == '\n') {
                    sink.put('\r');
                    sink.put('\n');
                    return;
                }
                sink.startLineOver();
                text(c);
            }
            case ESCAPE -> {
                if (c == '[') {
                    enter(State.CSI);
                } else if (c == ']') {
                    enter(State.OSC);
                } else if (c >= 0x20 && c <= 0x2f) {
                    longer(c);                      // an intermediate character, e.g. ESC ( B
                } else if (c < 0x20 || c > 0x7e) {
                    state = State.TEXT;             // not a sequence after all
                    text(c);
                } else {
                    state = State.TEXT;             // its final character
                }
            }
            case CSI -> {
                if (c >= 0x20 && c <= 0x3f) {
                    longer(c);                      // parameters and intermediates, e.g. ESC [ 1 ; 3 2
                } else if (c >= 0x40 && c <= 0x7e) {
                    state = State.TEXT;             // its final character, e.g. m
                } else {
                    state = State.TEXT;
                    text(c);
                }
            }
            case OSC -> {
                if (c == BEL) {
                    state = State.TEXT;
                } else if (c == ESC) {
                    state = State.OSC_ESCAPE;
                } else if (c == '\n') {
                    state = State.TEXT;
                    text(c);
                } else {
                    longer(c);
                }
            }
            case OSC_ESCAPE -> {
                state = State.TEXT;
                if (c != '\\') {
                    text(c);
                }
            }
            default -> text(c);
        }
    }

    /**
     * Whether the next character, if it {@link #isPlain is plain}, is shown as it is: no carriage return
     * waits and no sequence is open. Then a run of plain characters may be put to the sink in one go.
     *
     * @return true between sequences
     */
    boolean inText() {
        return state == State.TEXT;
    }

    /**
     * Whether a character is shown as it is in text: not a control character other than line end and tab.
     *
     * @param c the character
     * @return true for a plain character
     */
    static boolean isPlain(char c) {
        return c >= 0x20 || c == '\n' || c == '\t';
    }

    /** The input ended: a carriage return still waiting keeps its line as it is. */
    void end() {
        state = State.TEXT;
    }

    private void text(char c) {
        switch (c) {
            case '\r' -> state = State.CR;
            case '\b' -> sink.backspace();
            case ESC -> enter(State.ESCAPE);
            case BEL -> {
                // the terminal's bell: nothing to see
            }
            default -> sink.put(c);
        }
    }

    private void enter(State s) {
        state = s;
        sequence = 0;
    }

    private void longer(char c) {
        if (++sequence > MAX_SEQUENCE) {
            state = State.TEXT;
            text(c);
        }
    }
}
