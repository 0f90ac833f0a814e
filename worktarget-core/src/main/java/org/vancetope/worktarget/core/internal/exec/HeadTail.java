package org.vancetope.worktarget.core.internal.exec;

import java.util.Objects;

/**
 * The HEAD_TAIL renderer of exec output: text longer than the inline cap becomes about
 * 20 % of its start, the sentinel line {@code …[truncated, N chars omitted]} with the exact number of
 * omitted characters, and about 80 % of its end. Every backend renders exec output through this one
 * class.
 *
 * <pre>{@code
 * HeadTail.Rendered r = HeadTail.render(longText, 8_000);
 * // r.text() = head + "\n…[truncated, 41234 chars omitted]\n" + tail, at most 8,000 chars
 * }</pre>
 *
 * <p>The rendered text, sentinel and newlines included, never exceeds the cap. Cuts never split a
 * surrogate pair. It does not cut at line boundaries and does not look at the content otherwise.
 */
public final class HeadTail {
    /** The smallest cap the renderer accepts: room for the sentinel and some text. */
    public static final int MIN_CAP = 80;

    private static final String SENTINEL_PREFIX = "…[truncated, ";
    private static final String SENTINEL_SUFFIX = " chars omitted]";

    private HeadTail() {
    }

    /**
     * A rendered stream.
     *
     * @param text the inline text
     * @param truncated whether characters were omitted
     * @param omitted how many characters were omitted (0 when not truncated)
     */
    public record Rendered(String text, boolean truncated, long omitted) {
        /** Validates. */
        public Rendered {
            Objects.requireNonNull(text, "text");
        }
    }

    /**
     * The sentinel line for a number of omitted characters, without newlines.
     *
     * @param omitted the exact number of omitted characters
     * @return e.g. {@code "…[truncated, 1200 chars omitted]"}
     */
    public static String sentinel(long omitted) {
        return SENTINEL_PREFIX + omitted + SENTINEL_SUFFIX;
    }

    /**
     * Renders a complete text.
     *
     * @param text the whole text
     * @param cap the inline cap, at least {@link #MIN_CAP}
     * @return the text itself when it fits, else head, sentinel and tail
     */
    public static Rendered render(CharSequence text, int cap) {
        int len = text.length();
        if (len <= cap) {
            checkCap(cap);
            return new Rendered(text.toString(), false, 0);
        }
        return render(text.subSequence(0, Math.min(len, cap)), text.subSequence(Math.max(0, len - cap), len), len, cap);
    }

    /**
     * Renders a stream of which only the true start and the true end are kept in memory.
     *
     * @param head the first characters of the stream: all of it when {@code total <= cap}, otherwise at
     *             least the first {@code cap} characters
     * @param tail the last characters of the stream, normally at least {@code min(total, cap)} of them; when
     *             fewer are known (a capture that took back a line it had to forget the start of), all of them
     *             are shown and the omitted count covers the rest
     * @param total how many characters the stream has in all
     * @param cap the inline cap, at least {@link #MIN_CAP}
     * @return the rendering
     * @throws IllegalArgumentException when the head is too short for the promise above
     */
    public static Rendered render(CharSequence head, CharSequence tail, long total, int cap) {
        checkCap(cap);
        if (total <= cap) {
            if (head.length() != total) {
                throw new IllegalArgumentException("head must hold the whole text when it fits the cap");
            }
            return new Rendered(head.toString(), false, 0);
        }
        // Budget for text: cap minus two newlines and the sentinel. The digit count of the total is an
        // upper bound of the digit count of the omitted count, so the result never exceeds the cap.
        int budget = cap - 2 - SENTINEL_PREFIX.length() - SENTINEL_SUFFIX.length() - Long.toString(total).length();
        int headLen = budget / 5;
        int tailLen = budget - headLen;
        if (head.length() < headLen) {
            throw new IllegalArgumentException("head must hold at least cap characters");
        }
        tailLen = Math.min(tailLen, tail.length());
        if (headLen > 0 && Character.isHighSurrogate(head.charAt(headLen - 1))) {
            headLen--;
        }
        int tailFrom = tail.length() - tailLen;
        if (tailLen > 0 && Character.isLowSurrogate(tail.charAt(tailFrom))) {
            tailFrom++;
            tailLen--;
        }
        long omitted = total - headLen - tailLen;
        StringBuilder sb = new StringBuilder(cap);
        sb.append(head, 0, headLen).append('\n').append(sentinel(omitted)).append('\n')
                .append(tail, tailFrom, tail.length());
        return new Rendered(sb.toString(), true, omitted);
    }

    private static void checkCap(int cap) {
        if (cap < MIN_CAP) {
            throw new IllegalArgumentException("inline cap must be at least " + MIN_CAP + ", got " + cap);
        }
    }
}
