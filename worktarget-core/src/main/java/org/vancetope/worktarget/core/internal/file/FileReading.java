package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Shows the text of files: {@code file_read} (a window of lines, paged by {@link PageReader}, of one file
 * or of several sharing the result budget; a binary file as base64 when asked) and
 * {@code file_head_tail} (its first and/or last lines, the tail read backwards), each cut to
 * {@link FileToolSettings#resultMaxBytes()} bytes of JSON.
 */
final class FileReading {
    private final FileToolSettings settings;
    private final PageReader pages = new PageReader();

    FileReading(FileToolSettings settings) {
        this.settings = settings;
    }

    /** The per-file options of a {@code file_read} call, read and checked once for all its files. */
    private record ReadOptions(int startLine, int maxLines, int maxChars, boolean allowBinary) {
    }

    /** One file's read: its result and whether its share of the result budget cut it. */
    private record Outcome(FileResult result, boolean cutByBudget) {
    }

    /**
     * The JSON bytes reserved in a file's share of the budget for the fixed fields and the hint of its
     * result, besides twice its path (once as {@code path}, once in a message).
     */
    private static final int ENTRY_OVERHEAD = 640;

    /**
     * {@code file_read}: a window of one text file ({@code path}), or of each of several ({@code paths}),
     * streamed; with {@code allowBinary} a binary file comes back whole as base64.
     *
     * <p>The window ends at {@code maxLines}, {@code maxChars} or {@link FileToolSettings#resultMaxBytes()}
     * bytes of JSON, whichever comes first. The totals are counted only for a file of at most
     * {@link FileToolSettings#readTotalsMaxBytes()}, or when the window reaches the end; otherwise they
     * are null and {@code totalsKnown} is false, so a page of a big file costs about the page (see
     * {@link PageReader}). A window that contains a NUL is refused as binary, like a file whose first
     * 8 KiB do, unless the call passes {@code allowBinary}.
     *
     * <p>With {@code paths} (at most {@link FileToolSettings#readMaxFiles()}) every file gets its own entry,
     * a result or its own error, and the files share the result budget: each first gets an equal share,
     * then what the files that needed less left over goes, in equal parts, to the files their share cut.
     *
     * @param gate the gate
     * @param params path or paths, startLine, maxLines, maxChars, allowBinary
     * @return a {@link ReadResult}, a {@link BinaryReadResult}, or for paths a {@link MultiReadResult}
     * @throws ToolException on failure (for paths: only for parameters that concern the whole call)
     */
    FileResult read(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        Object many = params.get("paths");
        if (many != null && params.get("path") != null) {
            throw Params.invalid("Pass either path (one file) or paths (several files), not both; put the single "
                    + "path into paths.");
        }
        if (many == null && params.get("path") == null) {
            throw Params.invalid("Pass path (one file), or paths (a list of at most " + settings.readMaxFiles()
                    + " files).");
        }
        ReadOptions opts = new ReadOptions(
                Params.optInt(params, "startLine", 1, 1, Integer.MAX_VALUE),
                Params.optInt(params, "maxLines", Integer.MAX_VALUE, 1, Integer.MAX_VALUE),
                Params.optInt(params, "maxChars", settings.readDefaultChars(), 1, settings.readMaxChars()),
                Params.optBoolean(params, "allowBinary", false));
        if (many == null) {
            String userPath = Params.requireText(params, "path"); // an empty path gets the root's own message
            return readOne(gate, userPath, opts, settings.resultMaxBytes(), false).result();
        }
        return readMany(gate, paths(many), opts);
    }

    private List<String> paths(Object many) throws ToolException {
        if (!(many instanceof List<?> items)) {
            throw Params.invalid("Parameter 'paths' must be an array of paths, e.g. [\"a.txt\", \"src/b.txt\"].");
        }
        if (items.isEmpty()) {
            throw Params.invalid("Parameter 'paths' is empty; give at least one path, or use path.");
        }
        if (items.size() > settings.readMaxFiles()) {
            throw Params.invalid("Parameter 'paths' has " + items.size() + " paths; file_read reads at most "
                    + settings.readMaxFiles() + " files in one call (readMaxFiles). Split them over several calls.");
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            if (!(items.get(i) instanceof String s)) {
                throw Params.invalid("paths[" + i + "] must be a string path.");
            }
            out.add(s);
        }
        return out;
    }

    private MultiReadResult readMany(ConfinedRoot gate, List<String> paths, ReadOptions opts) {
        int k = paths.size();
        long total = settings.resultMaxBytes() - 512L;  // the list's brackets and commas, truncated, the hint
        long share = total / k;
        long[] budgets = new long[k];
        Outcome[] outcomes = new Outcome[k];
        ToolException[] errors = new ToolException[k];
        long used = 0;         // what the files not cut take, plus a whole share for each file that was cut
        int cut = 0;
        for (int i = 0; i < k; i++) {
            budgets[i] = Math.max(0, share - overhead(paths.get(i)));
            try {
                outcomes[i] = readOne(gate, paths.get(i), opts, budgets[i], true);
                if (outcomes[i].cutByBudget()) {
                    cut++;
                    used += share;
                } else {
                    used += JsonSize.of(outcomes[i].result().toMap()) + 1;
                }
            } catch (ToolException e) {
                errors[i] = NearNames.explain(e, gate, paths.get(i));
                used += JsonSize.of(new MultiReadResult.Entry(paths.get(i), null, errors[i]).toMap()) + 1;
            }
        }
        // what the files that needed less than their share left over goes, in equal parts, to the files their
        // share cut; each of those then takes at most its share plus its part, so the whole stays in the budget
        long spare = total - used;
        if (cut > 0 && spare > 0) {
            long extra = spare / cut;
            for (int i = 0; i < k; i++) {
                if (outcomes[i] != null && outcomes[i].cutByBudget()) {
                    try {
                        outcomes[i] = readOne(gate, paths.get(i), opts, budgets[i] + extra, true);
                    } catch (ToolException e) {
                        outcomes[i] = null;     // changed since the first read: report it as it is now
                        errors[i] = e;
                    }
                }
            }
        }
        List<MultiReadResult.Entry> entries = new ArrayList<>();
        boolean truncated = false;
        boolean byBudget = false;
        for (int i = 0; i < k; i++) {
            if (outcomes[i] != null) {
                entries.add(new MultiReadResult.Entry(paths.get(i), outcomes[i].result(), null));
                truncated |= outcomes[i].result() instanceof ReadResult r && r.truncated();
                byBudget |= outcomes[i].cutByBudget();
            } else {
                entries.add(new MultiReadResult.Entry(paths.get(i), null, errors[i]));
            }
        }
        String hint = byBudget ? "Some files were cut to their share of the result budget of "
                + settings.resultMaxBytes() + " bytes of JSON (resultMaxBytes), shared by the " + k + " files; read "
                + "fewer files at a time, or go on with path and the file's nextStartLine." : null;
        return new MultiReadResult(entries, truncated, hint);
    }

    private static long overhead(String userPath) {
        return ENTRY_OVERHEAD + 2 * JsonSize.of(userPath);
    }

    /** One file's read within {@code budget} bytes of JSON of content. */
    private Outcome readOne(ConfinedRoot gate, String userPath, ReadOptions opts, long budget, boolean shared)
            throws ToolException {
        int startLine = opts.startLine();
        Path file = gate.resolveForRead(userPath);
        PageReader.Page page;
        ConfinedRoot.OpenFile open = gate.openFile(userPath, file);
        try (SeekableByteChannel ch = open.channel()) {
            ByteBuffer first = ByteBuffer.allocate(TextScan.SNIFF);
            int got;
            do {
                got = ch.read(first);
            } while (got > 0 && first.hasRemaining());
            boolean binary = (TextScan.classify(first.array(), 0, first.position()) & TextScan.BINARY) != 0;
            if (opts.allowBinary() && (binary || MediaTypes.fromSignature(first.array(), first.position()) != null)) {
                return new Outcome(readBinary(gate, file, userPath, ch, open.attributes().size(), first, budget,
                        shared), false);
            }
            if (binary) {
                throw FileErrors.binaryRead(userPath, settings.binaryReadMaxBytes());
            }
            page = pages.read(ch, open.attributes(), open.path().toString(), startLine, opts.maxLines(),
                    opts.maxChars(), budget, settings.readTotalsMaxBytes());
        } catch (IOException e) {
            throw FileErrors.io(e, userPath, "read");
        }
        if (startLine > 1 && page.totalsKnown() && startLine > page.totalLines()) {
            throw Params.invalid("startLine " + startLine + " is past the end of " + ConfinedRoot.quote(userPath)
                    + ", which has " + page.totalLines() + " lines.");
        }
        if (page.content().indexOf('\0') >= 0) {
            throw Params.invalid("File " + ConfinedRoot.quote(userPath) + " contains NUL bytes in lines " + startLine
                    + "-" + (startLine + Math.max(1, page.returned()) - 1) + "; it looks binary there, and file_read "
                    + "shows text only. Use file_count for its size, or file_grep to find the text parts"
                    + (opts.allowBinary() ? "." : ", or pass allowBinary: true to get the whole file as base64."));
        }
        int returned = page.returned();
        long nextStart = page.nextStart();
        String budgetName = shared ? "this file's share of the result budget (" + budget + " bytes of JSON; "
                + "resultMaxBytes is shared by the files of paths)"
                : "the result budget of " + settings.resultMaxBytes() + " bytes of JSON (resultMaxBytes)";
        String hint = null;
        if (page.clipped()) {
            hint = "Line " + startLine + " is longer than " + (page.byBytes() ? budgetName : "maxChars")
                    + " and was cut; " + (page.byBytes() ? "" : "raise maxChars (at most "
                    + settings.readMaxChars() + ") or ") + "use file_grep to find the part you need"
                    + (nextStart < 0 ? "." : ", or go on with startLine " + nextStart + ".");
        } else if (page.byBytes()) {
            hint = "The page was cut at " + budgetName + "; go on with startLine " + nextStart
                    + ", or lower maxChars/maxLines.";
        }
        if (page.malformed() && page.content().indexOf('\uFFFD') >= 0) {
            hint = FileErrors.moreHint(hint, FileErrors.notUtf8Text());
        }
        ReadResult r = new ReadResult(gate.relative(file), page.content(), startLine,
                returned == 0 ? startLine - 1 : startLine + returned - 1,
                page.totalsKnown() ? page.totalLines() : null, page.totalsKnown() ? page.totalChars() : null,
                page.totalsKnown(), page.truncated(),
                nextStart < 0 ? null : (int) Math.min(Integer.MAX_VALUE, nextStart), hint);
        return new Outcome(r, page.byBytes());
    }

    /**
     * A binary file, whole, as base64: at most {@link FileToolSettings#binaryReadMaxBytes()} bytes, and no
     * more than the base64 of which fits in {@code budget} bytes of JSON.
     */
    private BinaryReadResult readBinary(ConfinedRoot gate, Path file, String userPath, SeekableByteChannel ch,
                                        long size, ByteBuffer first, long budget, boolean shared)
            throws IOException, ToolException {
        long fits = Math.max(0, budget) / 4 * 3;
        long cap = Math.min(settings.binaryReadMaxBytes(), fits);
        if (size > cap) {
            String what = "Shrink or convert it with exec_run (e.g. resize an image, extract a part with head -c or "
                    + "unzip), or move it with a file transfer.";
            String why;
            if (cap == settings.binaryReadMaxBytes()) {
                why = "file_read returns binary files of at most " + cap + " bytes as base64 (binaryReadMaxBytes). "
                        + "Nothing was returned. " + what;
            } else if (shared) {
                why = "its base64 does not fit in this file's share of the result budget (at most " + cap + " bytes "
                        + "of binary here; resultMaxBytes is shared by the files of paths). Nothing was returned. Read "
                        + "it alone with path, or: " + what;
            } else {
                why = "its base64 does not fit in the result budget (at most " + cap + " bytes of binary with "
                        + "resultMaxBytes " + settings.resultMaxBytes() + "). Nothing was returned. " + what;
            }
            throw new ToolException(ErrorCode.SIZE_LIMIT, "File " + ConfinedRoot.quote(userPath) + " is " + size
                    + " bytes; " + why);
        }
        byte[] data = new byte[(int) size];
        ByteBuffer bb = ByteBuffer.wrap(data);
        ch.position(0);
        while (bb.hasRemaining() && ch.read(bb) > 0) {
            // read all
        }
        int n = bb.position();
        String name = file.getFileName() == null ? "" : file.getFileName().toString();
        String mediaType = MediaTypes.of(name, first.array(), first.position());
        return new BinaryReadResult(gate.relative(file), mediaType, n,
                Base64.getEncoder().encodeToString(n == data.length ? data : Arrays.copyOf(data, n)));
    }

    /**
     * {@code file_head_tail}: the first and/or last lines; the head streamed, the tail read backwards.
     *
     * @param gate the gate
     * @param params path, head, tail
     * @return path, head, tail, headLines, tailLines, totalBytes, omittedBytes, truncated
     * @throws ToolException on failure
     */
    HeadTailResult headTail(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.requireText(params, "path"); // an empty path gets the root's own message
        int head = Params.optInt(params, "head", 0, 0, settings.headTailMaxLines());
        int tail = Params.optInt(params, "tail", 0, 0, settings.headTailMaxLines());
        if (head == 0 && tail == 0) {
            throw Params.invalid("Pass head and/or tail greater than 0 (each at most " + settings.headTailMaxLines()
                    + ").");
        }
        Path file = gate.resolveForRead(userPath);
        long capBytes = (long) settings.readMaxChars() * 4;
        boolean clipped = false;
        boolean byBytes = false;
        String headText = "";
        String tailText = "";
        boolean notUtf8 = false;
        long size;
        long headEnd = 0;
        long tailStart;
        try (SeekableByteChannel ch = gate.openFile(userPath, file).channel()) {
            size = ch.size();
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(TextScan.CHUNK, Math.max(1, size)));
            if (head > 0) {
                int found = 0;
                long pos = 0;
                outer:
                while (pos < size) {
                    buf.clear();
                    ch.position(pos);
                    int n = ch.read(buf);
                    if (n <= 0) {
                        break;
                    }
                    byte[] a = buf.array();
                    for (int i = 0; i < n; i++) {
                        if (a[i] == '\n' && ++found == head) {
                            headEnd = pos + i + 1;
                            break outer;
                        }
                    }
                    pos += n;
                    headEnd = pos;
                    if (pos >= capBytes) {
                        headEnd = capBytes;
                        clipped = true;
                        break;
                    }
                }
            }
            tailStart = size;
            if (tail > 0) {
                int found = 0;
                long end = size;
                long pos = size;
                boolean skipFinalNewline = true;
                outer:
                while (pos > 0) {
                    int len = (int) Math.min(buf.capacity(), pos);
                    pos -= len;
                    buf.clear().limit(len);
                    ch.position(pos);
                    while (buf.hasRemaining() && ch.read(buf) > 0) {
                        // fill
                    }
                    byte[] a = buf.array();
                    for (int i = len - 1; i >= 0; i--) {
                        long abs = pos + i;
                        if (a[i] == '\n') {
                            if (skipFinalNewline && abs == size - 1) {
                                continue;
                            }
                            if (++found == tail) {
                                tailStart = abs + 1;
                                break outer;
                            }
                        }
                    }
                    skipFinalNewline = false;
                    tailStart = pos;
                    if (end - pos >= capBytes) {
                        tailStart = end - capBytes;
                        clipped = true;
                        break;
                    }
                }
            }
            if (tail > 0 && tailStart < headEnd) {
                tailStart = headEnd;
            }
            byte[] h = readRange(ch, 0, headEnd);
            byte[] t = tail > 0 ? readRange(ch, tailStart, size) : new byte[0];
            if ((TextScan.classify(h, 0, h.length) & TextScan.BINARY) != 0
                    || (TextScan.classify(t, 0, t.length) & TextScan.BINARY) != 0) {
                throw FileErrors.binary(userPath, "file_head_tail");
            }
            // the result budget, counted on the bytes (an upper bound of their JSON): each side gets half, and
            // what one side does not need goes to the other
            long budget = settings.resultMaxBytes() - 4;
            long headBudget = t.length == 0 ? budget : Math.max(budget / 2, budget - jsonBoundOfBytes(t, 0, t.length));
            int hKeep = fittingBytes(h, 0, h.length, headBudget, true);
            budget -= jsonBoundOfBytes(h, 0, hKeep);
            int tKeep = fittingBytes(t, 0, t.length, budget, false);
            if (hKeep < h.length || tKeep < t.length) {
                clipped = true;
                byBytes = true;
                h = Arrays.copyOf(h, hKeep);
                tailStart += t.length - tKeep;
                t = Arrays.copyOfRange(t, t.length - tKeep, t.length);
            }
            headEnd = h.length;
            int skip = 0;
            while (skip < t.length && (t[skip] & 0xC0) == 0x80) {
                skip++;
            }
            headText = new String(h, StandardCharsets.UTF_8);
            tailText = new String(t, skip, t.length - skip, StandardCharsets.UTF_8);
            notUtf8 = TextScan.replacedBytes(headText, h, 0, h.length)
                    || TextScan.replacedBytes(tailText, t, skip, t.length - skip);
        } catch (IOException e) {
            throw FileErrors.io(e, userPath, "read");
        }
        String hint = byBytes ? "head and tail were cut to the result budget of " + settings.resultMaxBytes()
                + " bytes of JSON (resultMaxBytes); ask for fewer lines, or page with file_read and startLine." : null;
        if (notUtf8) {
            hint = FileErrors.moreHint(hint, FileErrors.notUtf8Text());
        }
        return new HeadTailResult(gate.relative(file), headText, tailText, lineCount(headText), lineCount(tailText),
                size, tail > 0 ? Math.max(0, tailStart - headEnd) : Math.max(0, size - headEnd), clipped, hint);
    }

    /**
     * How many bytes of {@code b[from, to)} fit in {@code budget} bytes of JSON (counted by
     * {@link JsonSize#byteBound}), taken from the start ({@code fromStart}) or from the end, never cutting a
     * UTF-8 sequence.
     */
    private static int fittingBytes(byte[] b, int from, int to, long budget, boolean fromStart) {
        if (jsonBoundOfBytes(b, from, to) <= budget) {
            return to - from;
        }
        long used = 0;
        if (fromStart) {
            int i = from;
            while (i < to && used + JsonSize.byteBound(b[i]) <= budget) {
                used += JsonSize.byteBound(b[i]);
                i++;
            }
            while (i > from && i < to && (b[i] & 0xC0) == 0x80) {
                i--;            // do not end inside a sequence
            }
            return i - from;
        }
        int i = to;
        while (i > from && used + JsonSize.byteBound(b[i - 1]) <= budget) {
            used += JsonSize.byteBound(b[i - 1]);
            i--;
        }
        while (i < to && (b[i] & 0xC0) == 0x80) {
            i++;                // do not start inside a sequence
        }
        return to - i;
    }

    private static long jsonBoundOfBytes(byte[] b, int from, int to) {
        long n = 0;
        for (int i = from; i < to; i++) {
            n += JsonSize.byteBound(b[i]);
        }
        return n;
    }

    private static int lineCount(String s) {
        if (s.isEmpty()) {
            return 0;
        }
        int n = 0;
        for (int i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) {
            n++;
        }
        return s.endsWith("\n") ? n : n + 1;
    }

    private static byte[] readRange(SeekableByteChannel ch, long from, long to) throws IOException {
        ByteBuffer bb = ByteBuffer.allocate((int) Math.max(0, to - from));
        ch.position(from);
        while (bb.hasRemaining() && ch.read(bb) > 0) {
            // fill
        }
        return bb.position() == bb.capacity() ? bb.array() : Arrays.copyOf(bb.array(), bb.position());
    }
}
