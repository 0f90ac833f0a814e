package org.vancetope.worktarget.core.internal.file;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Finds the lines of a decoded file that match a pattern, searching the whole text at once (a
 * literal with a {@link Finder} (a vectorised scan for its rarest character); a regex with one
 * {@link Matcher} over the text) and only then cutting out lines. A candidate line is confirmed by
 * matching the pattern against that line alone, so results equal a per-line search.
 *
 * <p>Every matcher reads the text through a {@link GuardedText}, so matching stops with
 * {@link CallDeadline.Stop} soon after the call's deadline passes or the call is cancelled, however
 * badly the pattern backtracks.
 */
final class Searcher {

    /**
     * One matching line.
     *
     * @param line the 1-based line number
     * @param start the line's start offset in the text
     * @param end the line's end offset (before its terminator)
     */
    record Hit(int line, int start, int end) {
    }

    private final Pattern linePattern;
    private final List<Finder> literals;
    private final boolean plain;
    private final Finder byteNeedle;

    /**
     * A searcher.
     *
     * @param pattern the caller's pattern, already compiled with the caller's flags
     * @param caseInsensitive whether matching ignores case
     */
    Searcher(Pattern pattern, boolean caseInsensitive) {
        this.plain = !caseInsensitive && TextScan.isPlainLiteral(pattern.pattern());
        List<String> lits = caseInsensitive ? List.of()
                : plain ? List.of(pattern.pattern()) : TextScan.requiredLiterals(pattern.pattern());
        this.literals = lits.stream().map(Finder::new).toList();
        this.linePattern = Pattern.compile(pattern.pattern(), pattern.flags() | Pattern.MULTILINE);
        byte[] longest = null;
        for (String l : lits) {
            byte[] b = l.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            if (longest == null || b.length > longest.length) {
                longest = b;
            }
        }
        this.byteNeedle = longest == null ? null
                : new Finder(new String(longest, java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    /**
     * Whether raw bytes can contain a match, decided before decoding: false when the longest required
     * literal is missing. The bytes are given as a Latin-1 string (one char per byte, a plain copy) so
     * that the JVM's vectorised {@link String#indexOf(String)} does the byte search; in valid UTF-8 a
     * literal's bytes occur exactly where the literal occurs in the text.
     *
     * @param bytesAsLatin1 the file's bytes, one char per byte
     * @return false when no line can match
     */
    boolean mayMatch(String bytesAsLatin1) {
        return byteNeedle == null || byteNeedle.in(bytesAsLatin1);
    }

    /**
     * The matching lines.
     *
     * <p>With required literals, every one must occur in the text (a vectorised
     * {@link String#indexOf(String)} each); the one whose first occurrence comes latest, a cheap sign
     * of rarity, then guides the search: only lines containing it are matched against the pattern.
     * Without literals one matcher runs over the whole text and candidate lines are confirmed.
     *
     * @param text the whole text
     * @param max stop after this many hits
     * @param deadline the call's deadline, checked while matching
     * @param rel the file, for the timeout message
     * @return the hits in order
     * @throws CallDeadline.Stop when the call is over
     */
    List<Hit> search(String text, int max, CallDeadline deadline, String rel) {
        List<Hit> hits = new ArrayList<>();
        GuardedText guarded = new GuardedText(text, deadline, rel);
        if (literals.isEmpty()) {
            return searchRegex(text, guarded, max, hits);
        }
        Finder guide = null;
        int first = -1;
        for (Finder lit : literals) {
            int i = lit.indexIn(text, 0);
            if (i < 0) {
                return hits;
            }
            if (i > first) {
                first = i;
                guide = lit;
            }
        }
        int len = text.length();
        int lineNo = 1;
        int counted = 0;
        Matcher m = plain ? null : linePattern.matcher(guarded);
        int idx = first;
        while (idx >= 0 && hits.size() < max) {
            int ls = text.lastIndexOf('\n', idx - 1) + 1;
            int le = lineEnd(text, idx);
            int contentEnd = trimCr(text, ls, le);
            boolean confirmed = true;
            if (m != null) {
                m.region(ls, contentEnd);
                confirmed = m.find();
            }
            if (confirmed) {
                lineNo += countNewlines(text, counted, ls);
                counted = ls;
                hits.add(new Hit(lineNo, ls, contentEnd));
            }
            if (le >= len) {
                break;
            }
            if (plain) {
                deadline.check(rel);
            }
            idx = guide.indexIn(text, le + 1);
        }
        return hits;
    }

    private List<Hit> searchRegex(String text, GuardedText guarded, int max, List<Hit> hits) {
        int len = text.length();
        int lineNo = 1;
        int counted = 0;
        Matcher m = linePattern.matcher(guarded);
        int pos = 0;
        while (pos <= len && hits.size() < max && m.find(pos)) {
            int s = m.start();
            int ls = text.lastIndexOf('\n', s - 1) + 1;
            if (s == len && ls == len && len > 0 && text.charAt(len - 1) == '\n') {
                break; // an empty match after the final newline is not a line
            }
            int le = lineEnd(text, s);
            int contentEnd = trimCr(text, ls, le);
            m.region(ls, contentEnd);
            boolean confirmed = m.find();
            m.reset();
            lineNo += countNewlines(text, counted, ls);
            counted = ls;
            if (confirmed) {
                hits.add(new Hit(lineNo, ls, contentEnd));
            }
            pos = le + 1;
        }
        return hits;
    }

    /**
     * Whether one line (without its terminator) matches.
     *
     * @param line the line
     * @param deadline the call's deadline, checked while matching
     * @param rel the file, for the timeout message
     * @return true on a match
     * @throws CallDeadline.Stop when the call is over
     */
    boolean matchesLine(CharSequence line, CallDeadline deadline, String rel) {
        return linePattern.matcher(new GuardedText(line, deadline, rel)).find();
    }

    private static int lineEnd(String text, int from) {
        int le = text.indexOf('\n', from);
        return le < 0 ? text.length() : le;
    }

    static int trimCr(String text, int ls, int le) {
        return le > ls && text.charAt(le - 1) == '\r' ? le - 1 : le;
    }

    private static int countNewlines(String text, int from, int to) {
        int n = 0;
        int i = text.indexOf('\n', from);
        while (i >= 0 && i < to) {
            n++;
            i = text.indexOf('\n', i + 1);
        }
        return n;
    }

    /**
     * Compiles the caller's pattern.
     *
     * @param regex the Java regular expression
     * @param ci whether matching ignores case (Unicode-aware)
     * @return the pattern
     * @throws ToolException {@code invalid_params} for a pattern that does not compile, saying where
     */
    static Pattern compile(String regex, boolean ci) throws ToolException {
        try {
            return Pattern.compile(regex, ci ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
        } catch (PatternSyntaxException e) {
            throw Params.invalid("pattern is not a valid Java regular expression: " + e.getDescription()
                    + " near index " + e.getIndex() + ". Escape special characters such as ( [ { . * + ? with '\\'.");
        }
    }
}
