package org.vancetope.worktarget.core.internal;

/**
 * Byte counts of text as UTF-8, without encoding it: what a file, a file name or a command line will
 * take on disk or in the kernel, where limits count bytes (a name of 255 bytes holds 255 ASCII letters,
 * 127 letters such as {@code 'é'}, 85 CJK characters or 63 emoji).
 */
public final class Utf8 {
    private Utf8() {
    }

    /**
     * The UTF-8 length of a text as {@link String#getBytes} encodes it (a lone surrogate becomes one
     * {@code '?'}).
     *
     * @param s the text
     * @return bytes
     */
    public static long length(CharSequence s) {
        return length(s, Long.MAX_VALUE);
    }

    /**
     * The UTF-8 length of a text as {@link String#getBytes} encodes it (a lone surrogate becomes one
     * {@code '?'}), or {@link Long#MAX_VALUE} when it has more chars than {@code limit} (each takes at
     * least a byte), without looking at them.
     *
     * @param s the text
     * @param limit the length beyond which the exact count does not matter
     * @return bytes, or {@link Long#MAX_VALUE}
     */
    public static long length(CharSequence s, long limit) {
        int n = s.length();
        if (n > limit) {
            return Long.MAX_VALUE;      // every char takes at least one byte
        }
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
