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

    /** The longest pattern of {@code file_grep} and {@code file_count}, in UTF-16 characters. */
    static final int MAX_PATTERN_CHARS = 10_000;

    /**
     * The pattern within one line, matched against the line alone (a region that ends before the line's
     * {@code \n} or {@code \r\n}, with anchoring bounds): not in multiline mode, so {@code ^} and {@code $}
     * match at the line's bounds only, also on an empty line ({@code ^$}; Java's multiline {@code ^} never
     * matches at the end of the input, which an empty line is); only {@code \n} ends a line, so not at a
     * lone {@code \r}, U+0085 or U+2028 inside it either, and {@code .} matches every character but
     * {@code \n}, as in ripgrep.
     */
    private final Pattern linePattern;
    /** The pattern over the whole text of a file without {@code \r}: line ends are {@code \n} alone. */
    private final Pattern unixTextPattern;
    /**
     * The pattern over the whole text of a file with a {@code \r}: {@code $} matches before a {@code \r\n}
     * too, so that candidates for {@code foo$} are found in CRLF files, and multiline searches see CRLF line
     * ends. (Its {@code .} does not match a lone {@code \r}, U+0085 or U+2028, so in such a file a pattern
     * without a required literal misses a line that needs it to.)
     */
    private final Pattern textPattern;
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
        this(pattern, caseInsensitive, null);
    }

    /**
     * A searcher for a pattern that may be a plain text.
     *
     * @param pattern the pattern compiled with the caller's flags (for a literal: its quoted form)
     * @param caseInsensitive whether matching ignores case
     * @param literal the caller's text when the pattern is a literal ({@code literal: true}), else null
     */
    Searcher(Pattern pattern, boolean caseInsensitive, String literal) {
        boolean lineLiteral = literal != null && !literal.isEmpty() && literal.indexOf('\n') < 0
                && literal.indexOf('\r') < 0;
        this.plain = !caseInsensitive && (literal != null ? lineLiteral : TextScan.isPlainLiteral(pattern.pattern()));
        List<String> lits = caseInsensitive ? List.of()
                : plain ? List.of(literal != null ? literal : pattern.pattern())
                : literal != null ? (literal.isEmpty() ? List.of() : List.of(literal))
                : TextScan.requiredLiterals(pattern.pattern());
        this.literals = lits.stream().map(Finder::new).toList();
        this.textPattern = Pattern.compile(pattern.pattern(), pattern.flags() | Pattern.MULTILINE);
        this.unixTextPattern = Pattern.compile(pattern.pattern(), pattern.flags() | Pattern.MULTILINE
                | Pattern.UNIX_LINES);
        this.linePattern = Pattern.compile(pattern.pattern(), (pattern.flags() & ~Pattern.MULTILINE)
                | Pattern.UNIX_LINES);
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
        Matcher m = wholeText(text).matcher(guarded);
        Matcher line = linePattern.matcher(guarded);
        int pos = 0;
        while (pos <= len && hits.size() < max && m.find(pos)) {
            int s = m.start();
            int ls = text.lastIndexOf('\n', s - 1) + 1;
            if (s == len && ls == len && len > 0 && text.charAt(len - 1) == '\n') {
                break; // an empty match after the final newline is not a line
            }
            int le = lineEnd(text, s);
            int contentEnd = trimCr(text, ls, le);
            line.region(ls, contentEnd);
            boolean confirmed = line.find();
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
     * One match of a multiline search.
     *
     * @param line the 1-based line the match starts on
     * @param endLine the 1-based line the match ends on
     * @param start the start offset of the match's first line
     * @param end the end offset of the match's last line (before its terminator)
     */
    record Span(int line, int endLine, int start, int end) {
    }

    /**
     * Where the pattern first matches in a line of the text (for showing a long line around its match).
     *
     * @param text the text
     * @param from the line's start
     * @param to the line's end
     * @return the match's offset from the line's start, or -1
     */
    int firstMatchIn(String text, int from, int to) {
        java.util.regex.Matcher m = linePattern.matcher(text).region(from, to);
        return m.find() ? m.start() - from : -1;
    }

    /**
     * The matches of the pattern over the whole text, which may span lines ({@code multiline: true}).
     * {@code ^} and {@code $} match at line boundaries; {@code .} does not match a newline unless the
     * pattern says {@code (?s)}. A match may span at most {@code windowLines} lines: a longer one is
     * looked for again within the window of lines that starts on its first line, and when none fits
     * the search goes on after its first character. Matches do not overlap.
     *
     * @param text the whole text
     * @param max stop after this many matches
     * @param windowLines the most lines one match may span
     * @param deadline the call's deadline, checked while matching
     * @param rel the file, for the timeout message
     * @return the matches in order
     * @throws CallDeadline.Stop when the call is over
     */
    List<Span> searchMultiline(String text, int max, int windowLines, CallDeadline deadline, String rel) {
        List<Span> out = new ArrayList<>();
        if (!literals.isEmpty()) {
            for (Finder lit : literals) {
                if (lit.indexIn(text, 0) < 0) {
                    return out;
                }
            }
        }
        int len = text.length();
        Matcher m = wholeText(text).matcher(new GuardedText(text, deadline, rel));
        m.useTransparentBounds(true);
        m.useAnchoringBounds(false);
        int pos = 0;
        int lineNo = 1;
        int counted = 0;
        while (pos <= len && out.size() < max) {
            m.region(pos, len);
            if (!m.find()) {
                break;
            }
            int s = m.start();
            int e = m.end();
            int ls = text.lastIndexOf('\n', s - 1) + 1;
            if (s == len && ls == len && len > 0 && text.charAt(len - 1) == '\n') {
                break; // an empty match after the final newline is not a line
            }
            int windowEnd = windowEnd(text, ls, windowLines);
            if (e > windowEnd) {
                m.region(s, windowEnd);
                if (!m.find()) {
                    pos = s + 1;
                    continue;
                }
                s = m.start();
                e = m.end();
                ls = text.lastIndexOf('\n', s - 1) + 1;
            }
            lineNo += countNewlines(text, counted, ls);
            counted = ls;
            int lastLineStart = e > s ? text.lastIndexOf('\n', e - 2) + 1 : ls;
            if (lastLineStart < ls) {
                lastLineStart = ls;
            }
            int endLine = lineNo + countNewlines(text, ls, lastLineStart);
            int le = lineEnd(text, lastLineStart);
            out.add(new Span(lineNo, endLine, ls, trimCr(text, lastLineStart, le)));
            pos = e > s ? e : s + 1;
        }
        return out;
    }

    private Pattern wholeText(String text) {
        return text.indexOf('\r') < 0 ? unixTextPattern : textPattern;
    }

    /** The end offset of the {@code lines}-th line starting at {@code ls} (before its terminator). */
    private static int windowEnd(String text, int ls, int lines) {
        int end = ls;
        for (int i = 0; i < lines; i++) {
            int nl = text.indexOf('\n', end);
            if (nl < 0) {
                return text.length();
            }
            end = i == lines - 1 ? nl : nl + 1;
        }
        return end;
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
        return compile(regex, ci, false);
    }


    /**
     * Compiles the caller's pattern, or quotes it when it is plain text.
     *
     * @param regex the Java regular expression, or the text for a literal
     * @param ci whether matching ignores case (Unicode-aware)
     * @param literal whether {@code regex} is plain text (no metacharacters)
     * @return the pattern
     * @throws ToolException {@code invalid_params} for a pattern that does not compile, saying where
     */
    static Pattern compile(String regex, boolean ci, boolean literal) throws ToolException {
        // compiling takes time that grows with the square of a plain text's length (100,000 characters: seconds;
        // millions: hours), before the call's deadline runs and without heeding a cancel
        if (regex.length() > MAX_PATTERN_CHARS) {
            throw Params.invalid("pattern has " + regex.length() + " characters; at most " + MAX_PATTERN_CHARS
                    + " are searched for. Search for a shorter part that identifies the text (a line or two of it).");
        }
        if (literal) {
            return Pattern.compile(Pattern.quote(regex), ci ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
        }
        try {
            return Pattern.compile(regex, ci ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
        } catch (PatternSyntaxException e) {
            throw Params.invalid("pattern is not a valid Java regular expression: " + e.getDescription()
                    + " near index " + e.getIndex() + ". Escape special characters such as ( [ { . * + ? with '\\', "
                    + "or set literal to true to search for the text as it is.");
        }
    }
}
