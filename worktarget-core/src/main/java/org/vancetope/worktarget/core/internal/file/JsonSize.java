package org.vancetope.worktarget.core.internal.file;

import java.util.Collection;
import java.util.Map;

/**
 * The size in bytes of the compact UTF-8 JSON a value serialises to, computed without serialising it:
 * what {@code resultMaxBytes} is measured in. Escapes are counted as a JSON writer emits them
 * ({@code \n}, {@code \"} two bytes, other control characters six, as a backslash-u escape), characters by
 * their UTF-8 length; a lone surrogate counts six bytes (the longest form any writer gives it), so the
 * figure is never below what Jackson or the core's writer produce for the same tree.
 */
final class JsonSize {
    private JsonSize() {
    }

    /**
     * The JSON size of a JSON-shaped tree (maps, collections, strings, numbers, booleans, null).
     *
     * @param v the value
     * @return bytes
     */
    static long of(Object v) {
        if (v == null) {
            return 4;
        }
        if (v instanceof CharSequence s) {
            return string(s, 0, s.length());
        }
        if (v instanceof Boolean b) {
            return b ? 4 : 5;
        }
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            return v.toString().length();
        }
        if (v instanceof Number n) {
            return n.toString().length();
        }
        if (v instanceof Map<?, ?> m) {
            long n = 2;
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                n += (first ? 0 : 1) + of(String.valueOf(e.getKey())) + 1 + of(e.getValue());
                first = false;
            }
            return n;
        }
        if (v instanceof Collection<?> c) {
            long n = 2;
            boolean first = true;
            for (Object o : c) {
                n += (first ? 0 : 1) + of(o);
                first = false;
            }
            return n;
        }
        return of(v.toString());
    }

    /**
     * The JSON size of a string literal of {@code s[from, to)}, quotes included.
     *
     * @param s the text
     * @param from first index
     * @param to end index
     * @return bytes
     */
    static long string(CharSequence s, int from, int to) {
        return 2 + body(s, from, to);
    }

    /**
     * The JSON size of {@code s[from, to)} inside a string literal, without the quotes.
     *
     * @param s the text
     * @param from first index
     * @param to end index
     * @return bytes
     */
    static long body(CharSequence s, int from, int to) {
        long n = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c < 0x80) {
                n += c == '"' || c == '\\' ? 2 : 1;
            } else if (c < 0x20) {
                n += c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f' ? 2 : 6;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                n += 6;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /**
     * The JSON size of one char in a string literal, counting a surrogate as a lone one (six bytes):
     * an upper bound usable while text is cut char by char.
     *
     * @param c the char
     * @return bytes
     */
    static int charBound(char c) {
        if (c >= 0x20 && c < 0x80) {
            return c == '"' || c == '\\' ? 2 : 1;
        }
        if (c < 0x20) {
            return c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f' ? 2 : 6;
        }
        if (c < 0x800) {
            return 2;
        }
        return Character.isSurrogate(c) ? 6 : 3;
    }

    /**
     * An upper bound of the JSON size of one byte of UTF-8 text inside a string literal (before it is
     * decoded): an invalid byte becomes U+FFFD, three bytes.
     *
     * @param b the byte
     * @return bytes
     */
    static int byteBound(byte b) {
        int c = b & 0xff;
        if (c >= 0x80) {
            return 3;
        }
        return charBound((char) c);
    }
}
