package org.vancetope.worktarget.core.internal.file;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a file holds the text most like an {@code oldText} that {@code file_edit} did not find, quoted
 * exactly so that the caller can copy it: the run of lines that most of its lines line up with (a model that
 * retypes a block often changes one line of it), or for a single line the line most like it. "Not found"
 * alone makes the caller read the whole file again or guess.
 *
 * <p>One pass over the file's lines, plus one over the few candidates; nothing is kept. Stateless.
 */
final class ClosestText {
    /** The most lines of a file looked through. */
    static final int MAX_LINES = 200_000;
    /** The most lines of an oldText looked for. */
    static final int MAX_WANTED_LINES = 1_000;
    /** How much of the text found the hint quotes. */
    static final int MAX_QUOTED_CHARS = 1_000;
    /** Lines shorter than this (once stripped: a brace, {@code end}) line nothing up. */
    private static final int MIN_ANCHOR_CHARS = 4;
    /** How alike a single line must be (Dice coefficient of its character pairs) to be shown. */
    private static final double MIN_LINE_LIKENESS = 0.6;

    private ClosestText() {
    }

    /**
     * The hint, or null when nothing in the file is alike enough.
     *
     * @param text the file's text
     * @param oldText the text that was not found, without whitespace at its ends (not empty)
     * @return the hint, starting with a blank, or null
     */
    static String hint(String text, String oldText) {
        List<String> want = lines(oldText, MAX_WANTED_LINES + 1);
        List<String> file = lines(text, MAX_LINES + 1);
        if (want.size() > MAX_WANTED_LINES || file.size() > MAX_LINES) {
            return null;
        }
        if (want.size() == 1) {
            return closestLine(file, want.get(0).strip());
        }
        return closestRun(file, want);
    }

    /** The run of lines that at least half of the wanted lines long enough to count line up with, or null. */
    private static String closestRun(List<String> file, List<String> want) {
        Map<String, List<Integer>> at = new HashMap<>();
        int anchors = 0;
        for (int j = 0; j < want.size(); j++) {
            String key = want.get(j).strip();
            if (key.length() >= MIN_ANCHOR_CHARS) {
                at.computeIfAbsent(key, x -> new ArrayList<>()).add(j);
                anchors++;
            }
        }
        if (anchors == 0) {
            return null;
        }
        Map<Integer, Integer> votes = new HashMap<>();
        for (int p = 0; p < file.size(); p++) {
            List<Integer> js = at.get(file.get(p).strip());
            if (js != null) {
                for (int j : js) {
                    votes.merge(p - j, 1, Integer::sum);
                }
            }
        }
        int best = Integer.MIN_VALUE;
        int most = 0;
        for (Map.Entry<Integer, Integer> e : votes.entrySet()) {
            if (e.getValue() > most || e.getValue() == most && e.getKey() < best) {
                best = e.getKey();
                most = e.getValue();
            }
        }
        if (most == 0 || most * 2 < anchors) {
            return null;
        }
        int from = Math.max(0, best);
        int to = Math.min(file.size(), best + want.size());
        int same = 0;
        for (int p = from; p < to; p++) {
            if (file.get(p).strip().equals(want.get(p - best).strip())) {
                same++;
            }
        }
        return " The text most like it is at lines " + (from + 1) + "-" + to + " (" + same + " of " + want.size()
                + " lines the same); there the file reads" + quote(file.subList(from, to));
    }

    /** The line most like a single wanted line, or null. */
    private static String closestLine(List<String> file, String want) {
        if (want.length() < MIN_ANCHOR_CHARS) {
            return null;
        }
        int[] wanted = pairs(want);
        int[] scratch = new int[0];
        double best = 0;
        int line = -1;
        for (int p = 0; p < file.size(); p++) {
            String s = file.get(p).strip();
            if (s.length() < 2 || s.length() > 4 * want.length() || 4 * s.length() < want.length()) {
                continue;       // too unlike in length to be the line meant
            }
            if (scratch.length < s.length()) {
                scratch = new int[Math.max(s.length(), 2 * scratch.length)];
            }
            int n = pairs(s, scratch);
            double d = 2.0 * shared(wanted, scratch, n) / (wanted.length + n);
            if (d > best) {
                best = d;
                line = p;
            }
        }
        if (line < 0 || best < MIN_LINE_LIKENESS) {
            return null;
        }
        return " The line most like it is line " + (line + 1) + "; there the file reads" + quote(List.of(file.get(line)));
    }

    private static String quote(List<String> lines) {
        String exact = String.join("\n", lines);
        boolean cut = exact.length() > MAX_QUOTED_CHARS;
        return (cut ? " (the first " + MAX_QUOTED_CHARS + " characters)" : "") + ":\n"
                + (cut ? exact.substring(0, MAX_QUOTED_CHARS) : exact) + "\nIf that is the text meant, copy it exactly "
                + "into oldText; if not, read the file with file_read.";
    }

    /** The character pairs of a text, sorted. */
    private static int[] pairs(String s) {
        int[] out = new int[Math.max(0, s.length() - 1)];
        pairs(s, out);
        return out;
    }

    /** The character pairs of a text into {@code out}, sorted; their count. */
    private static int pairs(String s, int[] out) {
        int n = Math.max(0, s.length() - 1);
        for (int i = 0; i < n; i++) {
            out[i] = s.charAt(i) << 16 | s.charAt(i + 1);
        }
        java.util.Arrays.sort(out, 0, n);
        return n;
    }

    /** How many pairs two sorted lists share, each pair counted as often as both have it. */
    private static int shared(int[] a, int[] b, int bn) {
        int i = 0;
        int j = 0;
        int same = 0;
        while (i < a.length && j < bn) {
            if (a[i] == b[j]) {
                same++;
                i++;
                j++;
            } else if (a[i] < b[j]) {
                i++;
            } else {
                j++;
            }
        }
        return same;
    }

    /** The lines of a text (a {@code \r} before a line break dropped), at most {@code max}. */
    private static List<String> lines(String s, int max) {
        List<String> out = new ArrayList<>();
        int start = 0;
        while (out.size() < max) {
            int nl = s.indexOf('\n', start);
            int end = nl < 0 ? s.length() : nl;
            out.add(s.substring(start, end > start && s.charAt(end - 1) == '\r' ? end - 1 : end));
            if (nl < 0) {
                break;
            }
            start = nl + 1;
        }
        return out;
    }
}
