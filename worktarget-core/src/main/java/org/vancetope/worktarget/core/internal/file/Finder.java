package org.vancetope.worktarget.core.internal.file;

/**
 * A substring search that is fast on the JVM: it looks for the needle's rarest character with
 * {@link String#indexOf(int, int)}, which the JIT turns into a wide vector scan (an order of magnitude
 * faster than {@link String#indexOf(String)}), and verifies each candidate. The rarity is a static
 * guess; when the chosen character turns out to be frequent in a text, the search goes on with the
 * needle's next rarest character (up to {@value #CANDIDATES} of them), and only when all of them are
 * frequent with {@code indexOf(String)} for the rest.
 */
final class Finder {
    /**
     * Printable ASCII from most to least frequent in source code and prose (a rough, static guess;
     * upper-case letters are common in code, rare lower-case letters are rarer).
     */
    private static final String BY_FREQUENCY = " etaoinsrhldcum\nfpgwyb,.()\";=-/{}:SAECTIRNOLDPMFvk'x0123*><[]"
            + "BGHKVWXYZQJU#$456789!&|@%^~`?+\\\t\r_jqz";
    private static final int[] RANK = new int[256];
    private static final int MIN_MISSES = 16;
    /** How many of the needle's rarest characters are tried before falling back to {@code indexOf(String)}. */
    static final int CANDIDATES = 3;
    /** A candidate character that occurs more often than once per this many chars is too common. */
    private static final int SPARSE = 256;

    static {
        java.util.Arrays.fill(RANK, 200);
        for (int i = 0; i < BY_FREQUENCY.length(); i++) {
            RANK[BY_FREQUENCY.charAt(i)] = i;
        }
    }

    private final String needle;
    /** The needle's distinct characters, rarest first (at most {@link #CANDIDATES}). */
    private final char[] rare;
    /** Where each of {@link #rare} occurs in the needle (its first occurrence). */
    private final int[] rareAt;

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
        Integer[] order = new Integer[needle.length()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        // stable: among equally rare characters the earlier one wins
        java.util.Arrays.sort(order, (x, y) -> Integer.compare(rank(needle.charAt(y)), rank(needle.charAt(x))));
        char[] chars = new char[CANDIDATES];
        int[] at = new int[CANDIDATES];
        int n = 0;
        for (int i = 0; i < order.length && n < CANDIDATES; i++) {
            char c = needle.charAt(order[i]);
            if (needle.indexOf(c) == order[i]) {
                chars[n] = c;
                at[n++] = order[i];
            }
        }
        this.rare = java.util.Arrays.copyOf(chars, n);
        this.rareAt = java.util.Arrays.copyOf(at, n);
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
            return text.indexOf(rare[0], from);
        }
        int k = 0;
        char c0 = rare[0];
        int off = rareAt[0];
        int misses = 0;
        // no occurrence starts before this: every candidate before it was checked
        int clear = from;
        int i = from + off;
        while (true) {
            int c = text.indexOf(c0, i);
            if (c < 0) {
                return -1;
            }
            int start = c - off;
            if (start >= clear && text.startsWith(needle, start)) {
                return start;
            }
            if (++misses > MIN_MISSES && (long) misses * SPARSE > c - clear) {
                // this character is common here: every start up to this candidate failed
                clear = Math.max(clear, start + 1);
                if (++k >= rare.length) {
                    return text.indexOf(needle, clear);
                }
                c0 = rare[k];
                off = rareAt[k];
                misses = 0;
                i = clear + off;
                continue;
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
