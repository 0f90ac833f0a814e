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
    private static final ThreadLocal<CharsetDecoder> DECODERS = ThreadLocal.withInitial(TextScan::strictUtf8);

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
     * @param gate the gate
     * @param params pattern, path, pathGlob, caseInsensitive, contextBefore, contextAfter, maxDepth, limit,
     *        includeGenerated
     * @return path, matches ({@code path}, {@code line}, {@code text}, optional {@code before}/{@code after}),
     *         count, truncated, filesSearched, filesMatched, skippedLarge, skippedBinary, skippedNonUtf8,
     *         skippedGeneratedDirs, and a hint when truncated
     * @throws ToolException {@code invalid_params} for a bad pattern, {@code timeout}, {@code cancelled}
     */
    GrepResult grep(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String regex = Params.requireString(params, "pattern");
        String userPath = Params.optString(params, "path", ".");
        Glob glob = Glob.compile(Params.optString(params, "pathGlob", null));
        boolean ci = Params.optBoolean(params, "caseInsensitive", false);
        int ctxBefore = Params.optInt(params, "contextBefore", 0, 0, settings.grepMaxContext());
        int ctxAfter = Params.optInt(params, "contextAfter", 0, 0, settings.grepMaxContext());
        int maxDepth = Params.optInt(params, "maxDepth", settings.defaultMaxDepth(), 0, settings.maxDepthLimit());
        int limit = Params.optInt(params, "limit", settings.grepDefaultLimit(), 1, settings.grepMaxLimit());
        boolean includeGenerated = Params.optBoolean(params, "includeGenerated", false);
        Pattern pattern = Searcher.compile(regex, ci);
        Searcher searcher = new Searcher(pattern, ci);
        Path base = gate.resolveForRead(userPath);
        BasicFileAttributes baseAttrs = FileErrors.attrs(base, userPath);
        GrepCollector col = new GrepCollector(limit, settings.resultMaxBytes());
        CallDeadline deadline = CallDeadline.start("file_grep", settings.searchTimeout().toMillis());
        int skippedGenerated = 0;
        String prefix = TreeWalker.prefix(gate, baseAttrs.isDirectory() ? base : base.getParent());
        try {
            if (baseAttrs.isDirectory()) {
                try (SafeDirectory dir = gate.open(base)) {
                    TreeWalker.Spec spec = new TreeWalker.Spec(dir, maxDepth, glob,
                            includeGenerated ? null : settings.generatedDirNames(), null);
                    int[] counts = TreeWalker.walk(lanes, deadline, spec, e -> {
                        if (col.beyondCutoff(e.rel())) {
                            col.skippedByLimit.incrementAndGet();
                            return;
                        }
                        List<GrepCollector.Hit> hits = grepFile(e, prefix, searcher, limit + 1, ctxBefore,
                                ctxAfter, col, deadline);
                        if (hits != null && !hits.isEmpty()) {
                            col.add(e.rel(), hits);
                        }
                    });
                    skippedGenerated = counts[0];
                } catch (IOException e) {
                    throw FileErrors.io(e, userPath, "list");
                }
            } else {
                try (SafeDirectory dir = gate.open(base.getParent())) {
                    String name = base.getFileName().toString();
                    TreeWalker.Entry single = new TreeWalker.Entry(name, base, baseAttrs.size(),
                            baseAttrs.lastModifiedTime().toMillis(), dir, name);
                    List<GrepCollector.Hit> hits = grepFile(single, prefix, searcher, limit + 1, ctxBefore,
                            ctxAfter, col, deadline);
                    if (hits != null && !hits.isEmpty()) {
                        col.add(single.rel(), hits);
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
        List<GrepResult.Match> matches = col.matches();
        return new GrepResult(gate.relative(base), matches, col.truncated(), col.searched.get(), col.filesMatched(),
                col.large.get(), col.binary.get(), col.nonUtf8.get(), skippedGenerated,
                col.truncated() ? grepHint(col, prefix, matches, limit, ctxBefore, ctxAfter) : null);
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

    /** Returns null when the file was skipped, else its matches (possibly empty), at most one over the byte budget. */
    private List<GrepCollector.Hit> grepFile(TreeWalker.Entry e, String prefix, Searcher searcher, int max,
                                             int ctxBefore, int ctxAfter, GrepCollector stats, CallDeadline deadline) {
        if (e.size() > settings.grepMaxFileBytes()) {
            stats.large.incrementAndGet();
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
            return null;
        }
        if (n > settings.grepMaxFileBytes()) {
            stats.large.incrementAndGet();
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
            return List.of();
        }
        if (bytes.indexOf(0) >= 0) {
            stats.binary.incrementAndGet();
            return null;
        }
        String text = new String(buf, 0, n, StandardCharsets.UTF_8);
        if (text.indexOf('\uFFFD') >= 0 && TextScan.decodeStrict(DECODERS.get(), buf, n) == null) {
            stats.nonUtf8.incrementAndGet();
            return null;
        }
        stats.searched.incrementAndGet();
        String rel = prefix + e.rel();
        List<Searcher.Hit> hits;
        try {
            hits = searcher.search(text, max, deadline, rel);
        } catch (StackOverflowError so) {
            throw deadline.fail(Params.invalid("The pattern recursed too deeply while matching a long line of "
                    + ConfinedRoot.quote(rel) + " (Java regex recursion, e.g. (a|b)* or (.|\\n)* over thousands of "
                    + "characters). Use a character class instead (e.g. [ab]* or [^x]*), or narrow path or pathGlob."));
        }
        if (hits.isEmpty()) {
            return List.of();
        }
        List<GrepCollector.Hit> out = new ArrayList<>(hits.size());
        long used = 2;
        for (Searcher.Hit h : hits) {
            GrepResult.Match m = new GrepResult.Match(rel, h.line(),
                    TextScan.clip(text.substring(h.start(), h.end()), settings.grepLineClipChars()),
                    ctxBefore > 0 ? contextBefore(text, h.start(), ctxBefore) : null,
                    ctxAfter > 0 ? contextAfter(text, h.end(), ctxAfter) : null);
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
