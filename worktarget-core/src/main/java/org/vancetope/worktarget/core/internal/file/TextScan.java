package org.vancetope.worktarget.core.internal.file;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Byte-level helpers that let searches skip work before any decoding: classify a buffer (binary,
 * ASCII, other) eight bytes at a time, decode strictly, count UTF-16 chars of UTF-8 bytes, and pull
 * the literal a regular expression requires out of its source; and how a long line is clipped for
 * display.
 */
final class TextScan {
    /** The piece size in which the file operations read, decode and encode. */
    static final int CHUNK = 64 * 1024;
    /** How many leading bytes of a file decide whether it looks binary. */
    static final int SNIFF = 8 * 1024;
    /** The buffer contains a NUL byte. */
    static final int BINARY = 1;
    /** The buffer contains a byte {@code >= 0x80}. */
    static final int NON_ASCII = 2;

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final String META = "\\^$.|?*+()[]{}";
    private static final String CLIP_MARKER = "…[clipped %d chars]";

    private TextScan() {
    }

    /**
     * Classifies bytes: {@link #BINARY} when a NUL occurs, {@link #NON_ASCII} when a high byte occurs.
     *
     * @param b the buffer
     * @param from the first index
     * @param to the end index (exclusive)
     * @return a bit set of {@link #BINARY} and {@link #NON_ASCII}
     */
    static int classify(byte[] b, int from, int to) {
        long or = 0;
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long w = (long) LONGS.get(b, i);
            or |= w;
            if (((w - ONES) & ~w & HIGHS) != 0) {
                return BINARY | ((or & HIGHS) != 0 ? NON_ASCII : 0);
            }
        }
        int flags = (or & HIGHS) != 0 ? NON_ASCII : 0;
        for (; i < to; i++) {
            byte c = b[i];
            if (c == 0) {
                return flags | BINARY;
            }
            if (c < 0) {
                flags |= NON_ASCII;
            }
        }
        return flags;
    }

    /** A strict UTF-8 decoder per thread, for {@link #replacedBytes}. */
    private static final ThreadLocal<CharsetDecoder> STRICT = ThreadLocal.withInitial(TextScan::strictUtf8);

    /**
     * Whether a text decoded with replacement from {@code b[off, off + len)} shows U+FFFD for bytes that are
     * not UTF-8, rather than for a U+FFFD the bytes hold as a character. Cheap when the text has no U+FFFD.
     *
     * @param decoded the text the bytes were decoded to, malformed sequences replaced
     * @param b the bytes
     * @param off where they start
     * @param len how many
     * @return true when some bytes are not UTF-8
     */
    static boolean replacedBytes(String decoded, byte[] b, int off, int len) {
        if (decoded.indexOf('\uFFFD') < 0) {
            return false;
        }
        CharsetDecoder decoder = STRICT.get().reset();
        try {
            decoder.decode(ByteBuffer.wrap(b, off, len));
            return false;
        } catch (CharacterCodingException e) {
            return true;
        }
    }

    /**
     * A strict UTF-8 decoder.
     *
     * @return a new decoder
     */
    static CharsetDecoder strictUtf8() {
        return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
    }

    /**
     * The number of UTF-16 chars the UTF-8 bytes decode to (lead bytes, plus one for each 4-byte lead).
     *
     * @param b the buffer
     * @param from first index
     * @param to end index
     * @return the char count
     */
    static long utf16Chars(byte[] b, int from, int to) {
        long n = 0;
        for (int i = from; i < to; i++) {
            int c = b[i] & 0xff;
            if ((c & 0xC0) != 0x80) {
                n++;
                if (c >= 0xF0) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * Counts {@code '\n'} bytes.
     *
     * @param b the buffer
     * @param from first index
     * @param to end index
     * @return the count
     */
    static int newlines(byte[] b, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            if (b[i] == '\n') {
                n++;
            }
        }
        return n;
    }

    /**
     * Whether a regular expression is a plain literal (no metacharacters at all).
     *
     * @param regex the source
     * @return true when it matches exactly its own text
     */
    static boolean isPlainLiteral(String regex) {
        for (int i = 0; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (META.indexOf(c) >= 0 || c == '\n' || c == '\r') {
                return false;
            }
        }
        return !regex.isEmpty();
    }

    /**
     * The longest run of literal text every match of a regular expression must contain, or null.
     * Conservative: gives up on alternation and inline flags, and only takes text outside groups and
     * classes that is not made optional by a following quantifier.
     *
     * @param regex the source
     * @return a required literal of at least two characters, or null
     */
    static String requiredLiteral(String regex) {
        List<String> all = requiredLiterals(regex);
        String best = null;
        for (String l : all) {
            if (best == null || l.length() > best.length()) {
                best = l;
            }
        }
        return best != null && best.length() >= 2 ? best : null;
    }

    /**
     * Every run of literal text that every match of a regular expression must contain (possibly empty).
     * Conservative: gives up on alternation and inline flags, and only takes text outside groups and
     * classes that is not made optional by a following quantifier.
     *
     * @param regex the source
     * @return the literal runs, in pattern order
     */
    static List<String> requiredLiterals(String regex) {
        List<String> runs = new ArrayList<>();
        if (regex.indexOf('|') >= 0 || regex.contains("(?") || regex.contains("\\Q") || regex.contains("\\E")) {
            return runs;
        }
        StringBuilder run = new StringBuilder();
        int depth = 0;
        int i = 0;
        while (i < regex.length()) {
            char c = regex.charAt(i);
            char lit;
            int next;
            boolean isLiteral;
            if (c == '\\' && i + 1 < regex.length()) {
                char e = regex.charAt(i + 1);
                isLiteral = !Character.isLetterOrDigit(e);
                lit = e;
                next = i + 2;
            } else if (c == '[') {
                int end = classEnd(regex, i);
                if (end < 0) {
                    return new ArrayList<>();
                }
                flush(runs, run);
                run.setLength(0);
                i = end + 1;
                i = skipQuantifier(regex, i);
                continue;
            } else if (c == '(') {
                depth++;
                flush(runs, run);
                run.setLength(0);
                i++;
                continue;
            } else if (c == ')') {
                depth--;
                flush(runs, run);
                run.setLength(0);
                i = skipQuantifier(regex, i + 1);
                continue;
            } else {
                isLiteral = META.indexOf(c) < 0;
                lit = c;
                next = i + 1;
            }
            if (!isLiteral || depth > 0) {
                flush(runs, run);
                run.setLength(0);
                i = next;
                continue;
            }
            boolean optional = next < regex.length() && "?*{".indexOf(regex.charAt(next)) >= 0;
            boolean repeated = next < regex.length() && regex.charAt(next) == '+';
            if (optional) {
                flush(runs, run);
                run.setLength(0);
                i = skipQuantifier(regex, next);
                continue;
            }
            run.append(lit);
            if (repeated) {
                flush(runs, run);
                run.setLength(0);
                i = skipQuantifier(regex, next);
                continue;
            }
            i = next;
        }
        flush(runs, run);
        return runs;
    }

    private static void flush(List<String> runs, StringBuilder run) {
        if (run.length() > 0) {
            runs.add(run.toString());
            run.setLength(0);
        }
    }

    private static int classEnd(String regex, int open) {
        int i = open + 1;
        if (i < regex.length() && regex.charAt(i) == '^') {
            i++;
        }
        if (i < regex.length() && regex.charAt(i) == ']') {
            i++;
        }
        int nested = 0;
        for (; i < regex.length(); i++) {
            char c = regex.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '[') {
                nested++;
            } else if (c == ']') {
                if (nested == 0) {
                    return i;
                }
                nested--;
            }
        }
        return -1;
    }

    private static int skipQuantifier(String regex, int i) {
        if (i >= regex.length()) {
            return i;
        }
        char c = regex.charAt(i);
        if (c == '?' || c == '*' || c == '+') {
            i++;
        } else if (c == '{') {
            int end = regex.indexOf('}', i);
            i = end < 0 ? regex.length() : end + 1;
        } else {
            return i;
        }
        if (i < regex.length() && (regex.charAt(i) == '?' || regex.charAt(i) == '+')) {
            i++;
        }
        return i;
    }

    /**
     * A line cut to {@code max} chars (never inside a surrogate pair) with a marker saying how many
     * chars were cut, or the line itself when it is not longer.
     *
     * @param s the line
     * @param max the most chars kept
     * @return the clipped line
     */
    static String clip(String s, int max) {
        if (s.length() <= max) {
            return s;
        }
        int cut = max;
        if (Character.isHighSurrogate(s.charAt(cut - 1))) {
            cut--;
        }
        return s.substring(0, cut) + String.format(CLIP_MARKER, s.length() - cut);
    }

    /**
     * A line cut to about {@code max} chars around a position in it: the line as {@link #clip} cuts it
     * when the position is within its first {@code max} chars, otherwise a window of {@code max} chars that
     * starts a little before the position, with a marker before and after it saying how many chars were
     * cut there (a match far into a minified or generated line stays visible).
     *
     * @param s the line
     * @param at a position in the line (the start of a match)
     * @param max the most chars kept
     * @return the clipped line
     */
    static String clipAround(String s, int at, int max) {
        if (s.length() <= max || at < 0 || at + Math.min(max / 4, 80) <= max) {
            return clip(s, max);
        }
        int from = Math.max(0, at - max / 4);
        if (from > 0 && Character.isLowSurrogate(s.charAt(from))) {
            from--;
        }
        int to = Math.min(s.length(), from + max);
        if (to < s.length() && Character.isHighSurrogate(s.charAt(to - 1))) {
            to--;
        }
        return String.format(CLIP_MARKER, from) + s.substring(from, to)
                + (to < s.length() ? String.format(CLIP_MARKER, s.length() - to) : "");
    }
}
