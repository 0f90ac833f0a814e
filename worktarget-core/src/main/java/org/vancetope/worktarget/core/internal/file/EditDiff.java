package org.vancetope.worktarget.core.internal.file;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The diff {@code file_edit} shows: the file as it was against the file as the edits left it, line by
 * line, whatever the edits were (several edits, {@code replaceAll}, replacements on one line), so that
 * what it shows is what is (or, with {@code dryRun}, would be) written.
 *
 * <p>Each changed place is a hunk {@code @@ line N @@} (N: its first line in the file as it was), with
 * the line before it as context ({@code ' '}), its old lines ({@code '-'}), its new lines ({@code '+'})
 * and the line after it as context. A line whose newline the edit added or removed at the end of the file
 * is followed by {@code \ No newline at end of file}. Lines keep no {@code \r} of a CRLF file; a hunk
 * where a {@code \r} alone was added or removed before a newline says so in a line
 * {@code \ Line endings only: ...}.
 *
 * <p>Works on the bytes (UTF-8; a line is decoded only when it is shown): the common start and end of
 * both texts are skipped first, then the lines in between are compared from the front, and after a
 * difference the nearest line both sides share again (within {@value #WINDOW} lines on each side) ends
 * the changed place; past the window, the rest is one place. Edits are local, so the places are found in
 * about one pass over the changed region, the lines are indexed as the pass goes (only those near it are
 * kept), and the text stops at {@code maxLines} lines.
 */
final class EditDiff {
    /** How far, in lines of each side, a difference looks for a line both sides share again. */
    static final int WINDOW = 64;
    /** The marker of a last line without its newline, as unified diffs write it. */
    static final String NO_NEWLINE = "\\ No newline at end of file";

    private final byte[] a;
    private final int an;
    private final byte[] b;
    private final int bn;
    /** The lines of the compared region of each side, found as the comparison goes. */
    private final Lines as;
    private final Lines bs;
    /** Where the compared region starts (the same in both) and its first line's number. */
    private final int start;
    private final int firstLine;
    private final int aEnd;

    private EditDiff(byte[] a, int an, byte[] b, int bn) {
        this.a = a;
        this.an = an;
        this.b = b;
        this.bn = bn;
        int lim = Math.min(an, bn);
        int p = 0;
        while (p < lim && a[p] == b[p]) {
            p++;
        }
        int s0 = p;
        while (s0 > 0 && a[s0 - 1] != '\n') {
            s0--;
        }
        start = s0;
        int s = 0;
        while (s < an - start && s < bn - start && a[an - 1 - s] == b[bn - 1 - s]) {
            s++;
        }
        int ae = an - s;
        int be = bn - s;
        // the shared end starts at a line start in both (its bytes are the same: both move on together)
        while (ae < an && !((ae == start || a[ae - 1] == '\n') && (be == start || b[be - 1] == '\n'))) {
            ae++;
            be++;
        }
        aEnd = ae;
        as = new Lines(a, start, ae);
        bs = new Lines(b, start, be);
        int line = 1;
        for (int i = 0; i < start; i++) {
            if (a[i] == '\n') {
                line++;
            }
        }
        firstLine = line;
    }

    /**
     * The line starts of a region, found forward on demand and kept only near the comparison (the line
     * before it and the window after it), so that a diff of a large file holds a few thousand of them.
     */
    private static final class Lines {
        private final byte[] t;
        private final int end;
        private int[] starts = new int[256];
        /** The line number of {@code starts[0]}. */
        private int base;
        /** How many starts are known from {@code base} on. */
        private int known = 1;
        /** Whether the region's last line is known (then {@code starts[known - 1]} is the region's end). */
        private boolean done;

        Lines(byte[] t, int from, int end) {
            this.t = t;
            this.end = end;
            starts[0] = from;
            done = from == end;
        }

        /** Whether line k exists (k is below the number of lines). */
        boolean exists(int k) {
            reach(k + 1);
            return k < base + known - 1;
        }

        /** Whether k is the number of lines (the end of the region). */
        boolean isEnd(int k) {
            reach(k + 1);
            return done && k == base + known - 1;
        }

        /** Where line k starts (k may be the number of lines: the region's end). */
        int start(int k) {
            reach(k);
            return starts[k - base];
        }

        /** Forgets the lines before k (they are not looked at again). */
        void forgetBefore(int k) {
            int drop = k - base;
            if (drop > 1024) {
                System.arraycopy(starts, drop, starts, 0, known - drop);
                known -= drop;
                base = k;
            }
        }

        private void reach(int k) {
            while (!done && base + known - 1 < k) {
                int from = starts[known - 1];
                int i = from;
                while (i < end && t[i] != '\n') {
                    i++;
                }
                int next = Math.min(end, i + 1);
                if (known == starts.length) {
                    starts = Arrays.copyOf(starts, starts.length * 2);
                }
                starts[known++] = next;
                done = next >= end;
            }
        }
    }

    private boolean same(int i, int j) {
        return Arrays.equals(a, as.start(i), as.start(i + 1), b, bs.start(j), bs.start(j + 1));
    }

    /**
     * The diff of two texts.
     *
     * @param a the text as it was
     * @param an its length
     * @param b the text as the edits left it
     * @param bn its length
     * @param maxLines the most lines of the diff; a last line says when more were left out
     * @param clipChars the most characters of one shown line
     * @return the diff, {@code ""} when the texts are equal
     */
    static String of(byte[] a, int an, byte[] b, int bn, int maxLines, int clipChars) {
        if (an == bn && Arrays.equals(a, 0, an, b, 0, bn)) {
            return "";
        }
        return new EditDiff(a, an, b, bn).render(maxLines, clipChars);
    }

    private String render(int maxLines, int clipChars) {
        List<String> out = new ArrayList<>();
        int i = 0;
        int j = 0;
        boolean cut = false;
        while (as.exists(i) || bs.exists(j)) {
            as.forgetBefore(i - 1);
            bs.forgetBefore(j - 1);
            if (as.exists(i) && bs.exists(j) && same(i, j)) {
                i++;
                j++;
                continue;
            }
            int[] next = resync(i, j);
            if (out.size() >= maxLines) {
                cut = true;
                break;
            }
            hunk(out, i, next[0], j, next[1], clipChars);
            i = next[0];
            j = next[1];
        }
        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < out.size() && k < maxLines; k++) {
            sb.append(out.get(k)).append('\n');
        }
        if (cut || out.size() > maxLines) {
            sb.append("… (the diff is cut here at ").append(maxLines).append(" lines; more changed lines follow)\n");
        }
        return sb.toString();
    }

    /** The nearest lines (x ≥ i, y ≥ j) both sides share again, or the ends of both. */
    private int[] resync(int i, int j) {
        for (int sum = 1; sum <= 2 * WINDOW; sum++) {
            for (int di = Math.max(0, sum - WINDOW); di <= Math.min(sum, WINDOW); di++) {
                int x = i + di;
                int y = j + sum - di;
                boolean xIn = as.exists(x);
                boolean yIn = bs.exists(y);
                if (xIn && yIn ? same(x, y) : as.isEnd(x) && bs.isEnd(y)) {
                    return new int[] {x, y};
                }
            }
        }
        int x = i;
        while (as.exists(x)) {
            x++;
        }
        int y = j;
        while (bs.exists(y)) {
            y++;
        }
        return new int[] {x, y};
    }

    private void hunk(List<String> out, int i0, int i1, int j0, int j1, int clipChars) {
        out.add("@@ line " + (firstLine + i0) + " @@");
        String before = i0 > 0 ? line(a, as.start(i0 - 1), as.start(i0))
                : start > 0 ? line(a, lineStartBefore(start), start) : null;
        if (before != null) {
            out.add(" " + TextScan.clip(before, clipChars));
        }
        boolean aNoNewline = an > 0 && a[an - 1] != '\n';
        boolean bNoNewline = bn > 0 && b[bn - 1] != '\n';
        // a long line is shown around where the old and the new text first differ (a change far into a
        // minified line would otherwise be clipped away on both sides)
        int at = -1;
        if (i1 > i0 && j1 > j0) {
            String o = line(a, as.start(i0), as.start(i0 + 1));
            String w = line(b, bs.start(j0), bs.start(j0 + 1));
            int k = 0;
            while (k < o.length() && k < w.length() && o.charAt(k) == w.charAt(k)) {
                k++;
            }
            at = k;
        }
        for (int i = i0; i < i1; i++) {
            out.add("-" + shown(line(a, as.start(i), as.start(i + 1)), i == i0 ? at : -1, clipChars));
            if (as.start(i + 1) == an && aNoNewline && !bNoNewline) {
                out.add(NO_NEWLINE);
            }
        }
        for (int j = j0; j < j1; j++) {
            out.add("+" + shown(line(b, bs.start(j), bs.start(j + 1)), j == j0 ? at : -1, clipChars));
            if (bs.start(j + 1) == bn && bNoNewline && !aNoNewline) {
                out.add(NO_NEWLINE);
            }
        }
        String endings = endingsNote(i0, i1, j0, j1);
        if (endings != null) {
            out.add(endings);
        }
        String after = as.exists(i1) ? line(a, as.start(i1), as.start(i1 + 1))
                : aEnd < an ? line(a, aEnd, lineEndAfter(aEnd)) : null;
        if (after != null) {
            out.add(" " + TextScan.clip(after, clipChars));
        }
    }

    /**
     * A note under a hunk whose old and new lines, paired in order, read the same where only a {@code \r}
     * before the newline was added or removed (lines are shown without it, so the pair alone would show no
     * change), or null.
     */
    private String endingsNote(int i0, int i1, int j0, int j1) {
        int toLf = 0;
        int toCrlf = 0;
        for (int k = 0; i0 + k < i1 && j0 + k < j1; k++) {
            int af = as.start(i0 + k);
            int at = as.start(i0 + k + 1);
            int bf = bs.start(j0 + k);
            int bt = bs.start(j0 + k + 1);
            boolean aCr = endsWithCr(a, af, at);
            boolean bCr = endsWithCr(b, bf, bt);
            boolean bothEnd = at > af && a[at - 1] == '\n' && bt > bf && b[bt - 1] == '\n';
            if (bothEnd && aCr != bCr && line(a, af, at).equals(line(b, bf, bt))) {
                if (aCr) {
                    toLf++;
                } else {
                    toCrlf++;
                }
            }
        }
        if (toLf + toCrlf == 0) {
            return null;
        }
        String change = toCrlf == 0 ? "CRLF (\\r\\n) became LF (\\n)" : toLf == 0 ? "LF (\\n) became CRLF (\\r\\n)"
                : "CRLF (\\r\\n) and LF (\\n) were swapped";
        return "\\ Line endings only: where a '-' and a '+' line read the same, " + change;
    }

    private static boolean endsWithCr(byte[] t, int from, int to) {
        int end = to > from && t[to - 1] == '\n' ? to - 1 : to;
        return end > from && t[end - 1] == '\r';
    }

    private static String shown(String line, int at, int clipChars) {
        return at < 0 ? TextScan.clip(line, clipChars) : TextScan.clipAround(line, at, clipChars);
    }

    private int lineStartBefore(int lineStart) {
        int k = lineStart - 1;
        while (k > 0 && a[k - 1] != '\n') {
            k--;
        }
        return k;
    }

    private int lineEndAfter(int from) {
        int k = from;
        while (k < an && a[k] != '\n') {
            k++;
        }
        return Math.min(an, k + 1);
    }

    /**
     * A line as shown: decoded, without its newline and a CR before it; a CR left inside it is shown as
     * {@code \r} (else an added one would be invisible, and the line would read as unchanged).
     */
    private static String line(byte[] t, int from, int to) {
        int end = to;
        if (end > from && t[end - 1] == '\n') {
            end--;
        }
        if (end > from && t[end - 1] == '\r') {
            end--;
        }
        String text = new String(t, from, end - from, StandardCharsets.UTF_8);
        return text.indexOf('\r') < 0 ? text : text.replace("\r", "\\r");
    }
}
