package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.spi.ToolException;

/**
 * {@code file_grep}: searches one file or a tree for lines matching a Java regex, reading each file
 * whole into a per-thread buffer and matching it with a {@link Searcher}, while a
 * {@link GrepCollector} keeps the matches that fit {@code limit} and the result budget.
 */
final class FileGrep {
    /** One read buffer per thread, grown to the largest file read so far (at most the grep size limit + 1). */
    private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[TextScan.CHUNK]);

    /**
     * The most lines one match of a {@code multiline} search may span; a longer match is looked for again
     * within that many lines from its first line.
     */
    static final int MULTILINE_WINDOW_LINES = 200;
    /** What {@code load} returns for a file that was searched and cannot match. */
    private static final String NO_MATCH = new String(new char[0]);

    private final FileToolSettings settings;
    private final SearchLanes lanes;

    FileGrep(FileToolSettings settings, SearchLanes lanes) {
        this.settings = settings;
        this.lanes = lanes;
    }

    /**
     * {@code file_grep}: lines matching a Java regex in one file or a tree.
     *
     * <p>Files are searched in parallel while the tree is walked, on threads of the call's own
     * ({@link SearchLanes}). Each file is read whole (it is at most
     * {@link FileToolSettings#grepMaxFileBytes()}); its bytes are first searched for the longest literal
     * the pattern requires, and only a file that may match is decoded as UTF-8 and matched line by line.
     * Skipped and counted: files over the size limit, binary files (a NUL byte in the first 8 KiB, or
     * anywhere in a file that may match), and files that may match but are not valid UTF-8 (a non-UTF-8
     * file that cannot match is simply not a hit).
     *
     * <p>Matches are ordered by path and line and kept while they fit both {@code limit} and
     * {@link FileToolSettings#resultMaxBytes()} bytes of JSON (context lines included); files whose path
     * sorts after the last match that can still be kept are not searched, so the result does not depend
     * on thread timing. A cut result has {@code truncated} true and a {@code hint}; {@code filesSearched}
     * counts only the files actually searched. The call fails {@code timeout} at
     * {@link FileToolSettings#searchTimeout()} (matching checks it) and {@code cancelled} when its
     * thread is interrupted.
     *
     * <p>{@code literal} searches for the pattern as plain text; {@code multiline} lets a match span up to
     * {@value #MULTILINE_WINDOW_LINES} lines (each match reports its start {@code line} and its
     * {@code endLine}); {@code countOnly} returns a {@link GrepCountResult} (per-file counts and a total)
     * instead of lines. Files ignored by {@code .gitignore} (see {@link GitIgnore}) and paths matching
     * {@code exclude} are not searched.
     *
     * @param gate the gate
     * @param params pattern, path, pathGlob, caseInsensitive, contextBefore, contextAfter, maxDepth, limit,
     *        includeGenerated, literal, countOnly, multiline, includeIgnored, exclude
     * @return a {@link GrepResult} (path, matches ({@code path}, {@code line}, {@code text}, optional
     *         {@code before}/{@code after}/{@code endLine}), count, truncated, filesSearched, filesMatched,
     *         skippedLarge, skippedBinary, skippedNonUtf8, skippedGeneratedDirs, skippedIgnored, and a hint when
     *         truncated), or a {@link GrepCountResult} for countOnly
     * @throws ToolException {@code invalid_params} for a bad pattern, {@code timeout}, {@code cancelled}
     */
    FileResult grep(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String regex = Params.requireString(params, "pattern");
        String userPath = Params.optString(params, "path", ".");
        Glob glob = Glob.compile(Params.optString(params, "pathGlob", null));
        boolean ci = Params.optBoolean(params, "caseInsensitive", false);
        int ctxBefore = Params.optInt(params, "contextBefore", 0, 0, settings.grepMaxContext());
        int ctxAfter = Params.optInt(params, "contextAfter", 0, 0, settings.grepMaxContext());
        int maxDepth = Params.optInt(params, "maxDepth", settings.defaultMaxDepth(), 0, settings.maxDepthLimit());
        int limit = Params.optInt(params, "limit", settings.grepDefaultLimit(), 1, settings.grepMaxLimit());
        boolean includeGenerated = Params.optBoolean(params, "includeGenerated", false);
        boolean literal = Params.optBoolean(params, "literal", false);
        boolean countOnly = Params.optBoolean(params, "countOnly", false);
        boolean multiline = Params.optBoolean(params, "multiline", false);
        boolean includeIgnored = Params.optBoolean(params, "includeIgnored", false);
        Excludes excludes = Excludes.of(params);
        if (literal && !multiline && (regex.indexOf('\n') >= 0 || regex.indexOf('\r') >= 0)) {
            throw Params.invalid("pattern contains a line break, but lines are matched one at a time. Set multiline "
                    + "to true to search for text that spans lines.");
        }
        if (countOnly && (ctxBefore > 0 || ctxAfter > 0)) {
            throw Params.invalid("countOnly returns counts, not lines: leave out contextBefore and contextAfter, or set "
                    + "countOnly to false.");
        }
        Pattern pattern = Searcher.compile(regex, ci, literal);
        Searcher searcher = new Searcher(pattern, ci, literal ? regex : null);
        Mode mode = new Mode(ctxBefore, ctxAfter, multiline);
        Path base = gate.resolveForRead(userPath);
        BasicFileAttributes baseAttrs = FileErrors.attrs(base, userPath);
        GrepCollector col = new GrepCollector(limit, settings.resultMaxBytes());
        ConcurrentHashMap<String, Integer> counts = countOnly ? new ConcurrentHashMap<>() : null;
        CallDeadline deadline = CallDeadline.start("file_grep", settings.searchTimeout().toMillis());
        TreeWalker.Skipped skipped = new TreeWalker.Skipped(0, 0, 0, 0, maxDepth);
        String prefix = TreeWalker.prefix(gate, baseAttrs.isDirectory() ? base : base.getParent());
        try {
            if (baseAttrs.isDirectory()) {
                try (SafeDirectory dir = gate.open(base)) {
                    TreeWalker.Spec spec = new TreeWalker.Spec(dir, maxDepth, glob,
                            includeGenerated ? null : settings.generatedDirNames(), null, excludes,
                            includeIgnored ? null : GitIgnore.above(gate, base));
                    skipped = TreeWalker.walk(lanes, deadline, spec, e -> {
                        if (counts != null) {
                            int c = countFile(e, prefix, searcher, mode, col, deadline);
                            if (c > 0) {
                                counts.put(e.rel(), c);
                            }
                            return;
                        }
                        if (col.beyondCutoff(e.rel())) {
                            col.skippedByLimit.incrementAndGet();
                            return;
                        }
                        List<GrepCollector.Hit> hits = grepFile(e, prefix, searcher, limit + 1, mode, col, deadline);
                        if (hits != null && !hits.isEmpty()) {
                            col.add(e.rel(), hits);
                        }
                    });
                } catch (IOException e) {
                    throw FileErrors.io(e, userPath, "list");
                }
            } else {
                try (SafeDirectory dir = gate.open(base.getParent())) {
                    String name = base.getFileName().toString();
                    TreeWalker.Entry single = new TreeWalker.Entry(name, baseAttrs.size(),
                            baseAttrs.lastModifiedTime().toMillis(), dir, base.getFileName());
                    if (counts != null) {
                        int c = countFile(single, prefix, searcher, mode, col, deadline);
                        if (c > 0) {
                            counts.put(single.rel(), c);
                        }
                    } else {
                        List<GrepCollector.Hit> hits = grepFile(single, prefix, searcher, limit + 1, mode, col,
                                deadline);
                        if (hits != null && !hits.isEmpty()) {
                            col.add(single.rel(), hits);
                        }
                    }
                    IOException unreadable = col.firstUnreadable.get();
                    if (unreadable != null) {
                        // the one file named: one that cannot be read is an error, as for file_read, not "no match"
                        throw FileErrors.io(unreadable, userPath, "read");
                    }
                } catch (IOException e) {
                    throw FileErrors.io(e, userPath, "read");
                }
            }
        } catch (CallDeadline.Stop e) {
            throw deadline.failure("The pattern probably backtracks catastrophically on long lines (nested "
                    + "quantifiers such as (a+)+ or (.*)*): simplify it (a+ instead of (a+)+, a possessive a++ or an "
                    + "atomic group), or narrow path or pathGlob.");
        }
        if (counts != null) {
            return countResult(gate.relative(base), prefix, counts, limit, col, skipped);
        }
        List<GrepResult.Match> matches = col.matches();
        return new GrepResult(gate.relative(base), matches, col.truncated(), col.searched.get(), col.filesMatched(),
                col.large.get(), col.binary.get(), col.nonUtf8.get(), skipped.generatedDirs(), skipped.ignored(),
                FileErrors.moreHint(FileErrors.moreHint(col.truncated() ? grepHint(col, prefix, matches, limit, ctxBefore,
                        ctxAfter) : matches.isEmpty() ? skipped.nothingFoundHint("match", settings.maxDepthLimit()) : null,
                        notSearchedHint(col, prefix)), unreadableHint(col, prefix, skipped)));
    }

    /** The count-only result: files by path, cut to {@code limit} files and the result budget. */
    private GrepCountResult countResult(String path, String prefix, Map<String, Integer> counts, int limit,
                                        GrepCollector col, TreeWalker.Skipped skipped) {
        TreeMap<String, Integer> sorted = new TreeMap<>(counts);
        long total = 0;
        for (int c : sorted.values()) {
            total += c;
        }
        List<GrepCountResult.FileCount> files = new ArrayList<>();
        long bytes = 2;
        boolean byBytes = false;
        for (Map.Entry<String, Integer> en : sorted.entrySet()) {
            if (files.size() >= limit) {
                break;
            }
            GrepCountResult.FileCount fc = new GrepCountResult.FileCount(prefix + en.getKey(), en.getValue());
            long b = fc.jsonSize() + 1;
            if (bytes + b > settings.resultMaxBytes()) {
                byBytes = true;
                break;
            }
            bytes += b;
            files.add(fc);
        }
        boolean truncated = files.size() < sorted.size();
        String hint = null;
        if (truncated) {
            hint = "Only " + files.size() + " of " + sorted.size() + " files with matches are listed ("
                    + (byBytes ? "the result budget of " + settings.resultMaxBytes() + " bytes of JSON" : "limit")
                    + "); totalMatches counts them all. " + (byBytes ? "" : "Raise limit (at most "
                    + settings.grepMaxLimit() + ") or ") + "narrow path or pathGlob to see the rest.";
        }
        return new GrepCountResult(path, files, total, sorted.size(), truncated, col.searched.get(), col.large.get(),
                col.binary.get(), col.nonUtf8.get(), skipped.generatedDirs(), skipped.ignored(),
                FileErrors.moreHint(FileErrors.moreHint(sorted.isEmpty() ? skipped.nothingFoundHint("match", settings.maxDepthLimit()) : hint,
                        notSearchedHint(col, prefix)), unreadableHint(col, prefix, skipped)));
    }

    /**
     * What to do about the files that were skipped although they may hold a match, or null when there are
     * none: the files over the size limit (not read at all) and the files that are not UTF-8 but hold the
     * pattern's bytes, each counted and the first {@value GrepCollector#NAMED} named, and how to search them
     * with a command. Without it, an empty result reads as "not there".
     */
    private String notSearchedHint(GrepCollector col, String prefix) {
        List<String> parts = new ArrayList<>(2);
        if (col.large.get() > 0) {
            parts.add(files(col.large.get()) + " over " + settings.grepMaxFileBytes() + " bytes"
                    + " (grepMaxFileBytes) " + named(col.largeNames.list(), col.large.get(), prefix));
        }
        if (col.nonUtf8.get() > 0) {
            parts.add(files(col.nonUtf8.get()) + " that " + (col.nonUtf8.get() == 1 ? "is" : "are")
                    + " not UTF-8 text " + named(col.nonUtf8Names.list(), col.nonUtf8.get(), prefix));
        }
        if (col.lateNul.get() > 0) {
            parts.add(files(col.lateNul.get()) + " that " + (col.lateNul.get() == 1 ? "starts" : "start") + " as text "
                    + "but " + (col.lateNul.get() == 1 ? "holds" : "hold") + " a NUL byte further on, so "
                    + (col.lateNul.get() == 1 ? "it counts" : "they count") + " as binary "
                    + named(col.lateNulNames.list(), col.lateNul.get(), prefix));
        }
        if (parts.isEmpty()) {
            return null;
        }
        int n = col.large.get() + col.nonUtf8.get() + col.lateNul.get();
        return "Not searched, so matches there are not shown: " + String.join("; ", parts) + ". Search "
                + (n == 1 ? "it" : "them") + " with exec_run, for example "
                + "grep -n -F -e TEXT -- FILE for a fixed string or grep -n -P -e PATTERN -- FILE for a regular "
                + "expression" + (col.lateNul.get() > 0 ? " (with -a for a file that counts as binary)" : "") + ".";
    }

    /** The files that could not be read and the directories that could not be listed, or null for none. */
    private static String unreadableHint(GrepCollector col, String prefix, TreeWalker.Skipped skipped) {
        String files = null;
        if (col.unreadable.get() > 0) {
            boolean one = col.unreadable.get() == 1;
            files = files(col.unreadable.get()) + " could not be read (no permission, or removed meanwhile) "
                    + named(col.unreadableNames.list(), col.unreadable.get(), prefix) + ", so matches in "
                    + (one ? "it" : "them") + " are not shown. See why with exec_run, for example ls -l on "
                    + (one ? "it" : "them") + ".";
        }
        return FileErrors.moreHint(files, skipped.unreadableHint());
    }

    private static String files(int n) {
        return n == 1 ? "1 file" : n + " files";
    }

    private static String named(List<String> rels, int count, String prefix) {
        List<String> quoted = new ArrayList<>(rels.size());
        for (String rel : rels) {
            quoted.add(ConfinedRoot.quote(prefix + rel));
        }
        return "(" + String.join(", ", quoted) + (count > rels.size() ? ", …" : "") + ")";
    }

    /**
     * How matches are looked for and shown.
     *
     * @param before context lines before each match
     * @param after context lines after each match
     * @param multiline whether a match may span lines
     */
    private record Mode(int before, int after, boolean multiline) {
    }

    private String grepHint(GrepCollector col, String prefix, List<GrepResult.Match> matches, int limit,
                            int ctxBefore, int ctxAfter) {
        String left = col.firstLeftOut(prefix);
        String where = left != null ? " The first match left out is " + left + "."
                : matches.isEmpty() ? "" : " Files after " + ConfinedRoot.quote(
                        matches.get(matches.size() - 1).path()) + " were not searched.";
        if (col.byBytes()) {
            return "The matches shown fill the result budget of " + settings.resultMaxBytes() + " bytes of JSON "
                    + "(resultMaxBytes); the rest were left out." + where + " To get the rest, "
                    + (ctxBefore + ctxAfter > 0 ? "lower contextBefore/contextAfter (now " + ctxBefore + "/" + ctxAfter
                    + "), " : "") + "narrow path, pathGlob or pattern (for example path = the file named above), or "
                    + "lower limit.";
        }
        return "Only the first " + limit + " matches are shown (limit)." + where + " Raise limit (at most "
                + settings.grepMaxLimit() + ") or narrow path, pathGlob or pattern to see the rest.";
    }

    /** The thread's read buffer with at least {@code size} bytes, keeping the first {@code keep} bytes of {@code old}. */
    private static byte[] buffer(int size, int keep, byte[] old) {
        byte[] b = BUFFERS.get();
        if (b.length < size) {
            byte[] grown = new byte[(int) Math.max(size, Math.min(Integer.MAX_VALUE - 16, b.length * 2L))];
            if (old != null && keep > 0) {
                System.arraycopy(old, 0, grown, 0, keep);
            }
            BUFFERS.set(grown);
            return grown;
        }
        if (old != null && old != b && keep > 0) {
            System.arraycopy(old, 0, b, 0, keep);
        }
        return b;
    }

    /**
     * The file's text, or null when it was skipped (too large, binary, not UTF-8, unreadable) or cannot
     * match (then it counts as searched and the marker {@link #NO_MATCH} is returned).
     */
    private String load(TreeWalker.Entry e, Searcher searcher, GrepCollector stats) {
        if (e.size() > settings.grepMaxFileBytes()) {
            stats.large.incrementAndGet();
            stats.largeNames.add(e.rel());
            return null;
        }
        int limit = (int) settings.grepMaxFileBytes();
        byte[] buf = buffer((int) Math.min(limit + 1L, e.size() + 1), 0, null);
        int n;
        try (SeekableByteChannel ch = e.open()) {
            // one read for a file that did not change since the walk saw its size; one byte more detects growth
            ByteBuffer bb = ByteBuffer.wrap(buf, 0, (int) Math.min(limit + 1L, e.size() + 1));
            int r;
            while ((r = ch.read(bb)) > 0 && bb.hasRemaining() && bb.position() < e.size()) {
                // keep reading a file that is delivered in pieces
            }
            if (r > 0 && bb.position() > e.size() && bb.position() <= limit) {
                int pos = bb.position();
                buf = buffer(limit + 1, pos, buf);
                bb = ByteBuffer.wrap(buf);
                bb.position(pos);
                while (bb.hasRemaining() && ch.read(bb) > 0) {
                    // the file grew since the walk: read on, up to the limit
                }
            }
            n = bb.position();
        } catch (IOException | UnsupportedOperationException ex) {
            stats.unreadable.incrementAndGet();
            stats.unreadableNames.add(e.rel());
            if (ex instanceof IOException io) {
                stats.firstUnreadable.compareAndSet(null, io);
            }
            return null;
        }
        if (n > settings.grepMaxFileBytes()) {
            stats.large.incrementAndGet();
            stats.largeNames.add(e.rel());
            return null;
        }
        // one char per byte: a plain copy that lets the vectorised String.indexOf search the raw bytes
        String bytes = new String(buf, 0, n, StandardCharsets.ISO_8859_1);
        if (!searcher.mayMatch(bytes)) {
            // cannot match: like git, only the first 8 KiB decide whether it counts as binary
            if ((n <= TextScan.SNIFF ? bytes : bytes.substring(0, TextScan.SNIFF)).indexOf(0) >= 0) {
                stats.binary.incrementAndGet();
                return null;
            }
            stats.searched.incrementAndGet();
            return NO_MATCH;
        }
        if (bytes.indexOf(0) >= 0) {
            stats.binary.incrementAndGet();
            if (n > TextScan.SNIFF && bytes.substring(0, TextScan.SNIFF).indexOf(0) < 0) {
                // text, as far as its start tells (a log with a stray NUL after a crash): say it was skipped
                stats.lateNul.incrementAndGet();
                stats.lateNulNames.add(e.rel());
            }
            return null;
        }
        // a byte order mark is no part of the first line's text: '^first' matches it, as in ripgrep
        int from = n >= 3 && buf[0] == (byte) 0xEF && buf[1] == (byte) 0xBB && buf[2] == (byte) 0xBF ? 3 : 0;
        String text = new String(buf, from, n - from, StandardCharsets.UTF_8);
        if (TextScan.replacedBytes(text, buf, from, n - from)) {
            stats.nonUtf8.incrementAndGet();
            stats.nonUtf8Names.add(e.rel());
            return null;
        }
        stats.searched.incrementAndGet();
        return text;
    }

    /** Matches as spans: one line each, or (multiline) the lines a match spans. */
    private List<Searcher.Span> spans(Searcher searcher, String text, int max, Mode mode, CallDeadline deadline,
                                      String rel) {
        try {
            if (mode.multiline()) {
                return searcher.searchMultiline(text, max, MULTILINE_WINDOW_LINES, deadline, rel);
            }
            List<Searcher.Hit> hits = searcher.search(text, max, deadline, rel);
            List<Searcher.Span> out = new ArrayList<>(hits.size());
            for (Searcher.Hit h : hits) {
                out.add(new Searcher.Span(h.line(), h.line(), h.start(), h.end()));
            }
            return out;
        } catch (StackOverflowError so) {
            throw deadline.fail(Params.invalid("The pattern recursed too deeply while matching a long line of "
                    + ConfinedRoot.quote(rel) + " (Java regex recursion, e.g. (a|b)* or (.|\\n)* over thousands of "
                    + "characters). Use a character class instead (e.g. [ab]* or [^x]*), or narrow path or pathGlob."));
        }
    }

    /** Returns -1 when the file was skipped, else how many matches it has. */
    private int countFile(TreeWalker.Entry e, String prefix, Searcher searcher, Mode mode, GrepCollector stats,
                          CallDeadline deadline) {
        String text = load(e, searcher, stats);
        if (text == null) {
            return -1;
        }
        if (text == NO_MATCH) {
            return 0;
        }
        return spans(searcher, text, Integer.MAX_VALUE, mode, deadline, prefix + e.rel()).size();
    }

    /** Returns null when the file was skipped, else its matches (possibly empty), at most one over the byte budget. */
    private List<GrepCollector.Hit> grepFile(TreeWalker.Entry e, String prefix, Searcher searcher, int max,
                                             Mode mode, GrepCollector stats, CallDeadline deadline) {
        String text = load(e, searcher, stats);
        if (text == null) {
            return null;
        }
        if (text == NO_MATCH) {
            return List.of();
        }
        String rel = prefix + e.rel();
        List<Searcher.Span> hits = spans(searcher, text, max, mode, deadline, rel);
        if (hits.isEmpty()) {
            return List.of();
        }
        List<GrepCollector.Hit> out = new ArrayList<>(hits.size());
        long used = 2;
        for (Searcher.Span h : hits) {
            int clipAt = settings.grepLineClipChars();
            // a long line is shown around its match, not from its start (where a minified file's match is not)
            String shown = h.end() - h.start() <= clipAt || mode.multiline()
                    ? TextScan.clip(text.substring(h.start(), h.end()), clipAt)
                    : TextScan.clipAround(text.substring(h.start(), h.end()),
                            searcher.firstMatchIn(text, h.start(), h.end()), clipAt);
            GrepResult.Match m = new GrepResult.Match(rel, h.line(), shown,
                    mode.before() > 0 ? contextBefore(text, h.start(), mode.before()) : null,
                    mode.after() > 0 ? contextAfter(text, h.end(), mode.after()) : null,
                    mode.multiline() ? h.endLine() : null);
            long b = m.jsonSize() + 1;
            out.add(new GrepCollector.Hit(m, b));
            used += b;
            if (used > stats.maxBytes) {
                break;          // this file alone is over the budget: what follows can never be kept
            }
        }
        return out;
    }

    private List<String> contextBefore(String text, int lineStart, int count) {
        List<String> out = new ArrayList<>();
        int end = lineStart - 1;
        while (out.size() < count && end >= 0) {
            int ls = text.lastIndexOf('\n', end - 1) + 1;
            out.add(0, TextScan.clip(text.substring(ls, Searcher.trimCr(text, ls, end)),
                    settings.grepLineClipChars()));
            end = ls - 1;
        }
        return out;
    }

    private List<String> contextAfter(String text, int lineEnd, int count) {
        List<String> out = new ArrayList<>();
        int nl = text.indexOf('\n', lineEnd);
        while (out.size() < count && nl >= 0 && nl + 1 < text.length()) {
            int ls = nl + 1;
            int le = text.indexOf('\n', ls);
            if (le < 0) {
                le = text.length();
            }
            out.add(TextScan.clip(text.substring(ls, Searcher.trimCr(text, ls, le)), settings.grepLineClipChars()));
            nl = le < text.length() ? le : -1;
        }
        return out;
    }
}
