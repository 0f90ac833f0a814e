package org.vancetope.worktarget.core.internal.file;

/**
 * A substring search that is fast on the JVM: it looks for the needle's rarest character with
 * {@link String#indexOf(int, int)}, which the JIT turns into a wide vector scan (an order of magnitude
 * faster than {@link String#indexOf(String)}), and verifies each candidate. When the chosen character
 * turns out to be frequent in a text, it falls back to {@code indexOf(String)} for the rest.
 */
final class Finder {
    /** Printable ASCII from most to least frequent in source code and prose (a rough, static guess). */
    private static final String BY_FREQUENCY = " etaoinsrhldcum\nfpgwyb,.vk();\"=-/{}_x'0123:*><[]STACEIRNOLDPMFjqz"
            + "#$456789BGHKQUVWXYZJ!&|@%^~`?+\\\t\r";
    private static final int[] RANK = new int[256];
    private static final int MIN_MISSES = 16;

    static {
        java.util.Arrays.fill(RANK, 200);
        for (int i = 0; i < BY_FREQUENCY.length(); i++) {
            RANK[BY_FREQUENCY.charAt(i)] = i;
        }
    }

    private final String needle;
    private final char rare;
    private final int rareAt;

    /**
     * A finder for one needle.
     *
     * @param needle the text to find, not empty
     */
    Finder(String needle) {
        if (needle.isEmpty()) {
            throw new IllegalArgumentException("empty needle");
        }
        this.needle = needle;
        int best = 0;
        for (int i = 1; i < needle.length(); i++) {
            if (rank(needle.charAt(i)) > rank(needle.charAt(best))) {
                best = i;
            }
        }
        this.rare = needle.charAt(best);
        this.rareAt = best;
    }

    private static int rank(char c) {
        return c < 256 ? RANK[c] : 300;
    }

    /**
     * The needle.
     *
     * @return the text searched for
     */
    String needle() {
        return needle;
    }

    /**
     * The first occurrence at or after {@code from}.
     *
     * @param text the text
     * @param from the first start position to consider
     * @return the start of the occurrence, or -1
     */
    int indexIn(String text, int from) {
        if (needle.length() == 1) {
            return text.indexOf(rare, from);
        }
        int misses = 0;
        int i = from + rareAt;
        while (true) {
            int c = text.indexOf(rare, i);
            if (c < 0) {
                return -1;
            }
            int start = c - rareAt;
            if (text.startsWith(needle, start)) {
                return start;
            }
            if (++misses > MIN_MISSES && (long) misses * 64 > c - from) {
                // the "rare" character is common here: every earlier candidate failed, so no
                // occurrence starts before this one
                return text.indexOf(needle, start + 1);
            }
            i = c + 1;
        }
    }

    /**
     * Whether the text contains the needle.
     *
     * @param text the text
     * @return true when it occurs
     */
    boolean in(String text) {
        return indexIn(text, 0) >= 0;
    }
}
