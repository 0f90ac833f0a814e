package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Shows the text of one file: {@code file_read} (a window of lines, paged by {@link PageReader}) and
 * {@code file_head_tail} (its first and/or last lines, the tail read backwards), each cut to
 * {@link FileToolSettings#resultMaxBytes()} bytes of JSON.
 */
final class FileReading {
    private final FileToolSettings settings;
    private final PageReader pages = new PageReader();

    FileReading(FileToolSettings settings) {
        this.settings = settings;
    }

    /**
     * {@code file_read}: a window of a text file, streamed.
     *
     * <p>The window ends at {@code maxLines}, {@code maxChars} or {@link FileToolSettings#resultMaxBytes()}
     * bytes of JSON, whichever comes first. The totals are counted only for a file of at most
     * {@link FileToolSettings#readTotalsMaxBytes()}, or when the window reaches the end; otherwise they
     * are null and {@code totalsKnown} is false, so a page of a big file costs about the page (see
     * {@link PageReader}). A window that contains a NUL is refused as binary, like a file whose first
     * 8 KiB do.
     *
     * @param gate the gate
     * @param params path, startLine, maxLines, maxChars
     * @return path, content, startLine, endLine, totalLines, totalChars, totalsKnown, truncated, nextStartLine,
     *         and a hint when the window was cut
     * @throws ToolException on failure
     */
    ReadResult read(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.requireText(params, "path"); // an empty path gets the root's own message
        int startLine = Params.optInt(params, "startLine", 1, 1, Integer.MAX_VALUE);
        int maxLines = Params.optInt(params, "maxLines", Integer.MAX_VALUE, 1, Integer.MAX_VALUE);
        int maxChars = Params.optInt(params, "maxChars", settings.readDefaultChars(), 1, settings.readMaxChars());
        Path file = gate.resolveForRead(userPath);
        PageReader.Page page;
        ConfinedRoot.OpenFile open = gate.openFile(userPath, file);
        try (SeekableByteChannel ch = open.channel()) {
            ByteBuffer first = ByteBuffer.allocate(TextScan.SNIFF);
            int got;
            do {
                got = ch.read(first);
            } while (got > 0 && first.hasRemaining());
            if ((TextScan.classify(first.array(), 0, first.position()) & TextScan.BINARY) != 0) {
                throw FileErrors.binary(userPath, "file_read");
            }
            page = pages.read(ch, open.attributes(), open.path().toString(), startLine, maxLines, maxChars,
                    settings.resultMaxBytes(), settings.readTotalsMaxBytes());
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
                    + "shows text only. Use file_count for its size, or file_grep to find the text parts.");
        }
        int returned = page.returned();
        long nextStart = page.nextStart();
        String hint = null;
        if (page.clipped()) {
            hint = "Line " + startLine + " is longer than " + (page.byBytes()
                    ? "the result budget of " + settings.resultMaxBytes() + " bytes of JSON (resultMaxBytes)"
                    : "maxChars") + " and was cut; " + (page.byBytes() ? "" : "raise maxChars (at most "
                    + settings.readMaxChars() + ") or ") + "use file_grep to find the part you need"
                    + (nextStart < 0 ? "." : ", or go on with startLine " + nextStart + ".");
        } else if (page.byBytes()) {
            hint = "The page was cut at the result budget of " + settings.resultMaxBytes() + " bytes of JSON "
                    + "(resultMaxBytes); go on with startLine " + nextStart + ", or lower maxChars/maxLines.";
        }
        return new ReadResult(gate.relative(file), page.content(), startLine,
                returned == 0 ? startLine - 1 : startLine + returned - 1,
                page.totalsKnown() ? page.totalLines() : null, page.totalsKnown() ? page.totalChars() : null,
                page.totalsKnown(), page.truncated(),
                nextStart < 0 ? null : (int) Math.min(Integer.MAX_VALUE, nextStart), hint);
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
        } catch (IOException e) {
            throw FileErrors.io(e, userPath, "read");
        }
        String hint = byBytes ? "head and tail were cut to the result budget of " + settings.resultMaxBytes()
                + " bytes of JSON (resultMaxBytes); ask for fewer lines, or page with file_read and startLine." : null;
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
