package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * One {@code file_read} page: decodes UTF-8 (malformed bytes become U+FFFD) from the nearest known
 * line start before {@code startLine} and collects the window; then, only for a file of at most
 * {@code readTotalsMaxBytes}, counts on to the end for the file's totals. A page of a bigger file
 * costs about the page and the distance to it, not the file: its totals are known only when the
 * window itself reached the end of the file.
 *
 * <p>Line starts seen on the way (about one per MiB) are remembered per file in a small cache keyed by
 * the file's path, {@link BasicFileAttributes#fileKey() file key}, size and modification time, so the
 * next page of a big file starts decoding near its first line instead of at the top. The cache only
 * saves work: a page is the same with or without it (every decision depends on the content and the
 * size, never on where decoding started or how the reads were cut). Totals are never cached.
 */
final class PageReader {
    private static final int CHUNK = 64 * 1024;
    private static final long CHECKPOINT_EVERY = 1L << 20;
    private static final int MAX_CHECKPOINTS = 4096;
    private static final int MAX_FILES = 64;

    /** A position at the start of a line: the line's number, its byte offset, the chars before it. */
    private record Checkpoint(long line, long offset, long chars) {
    }

    private record FileId(String path, Object fileKey, long size, FileTime modified) {
    }

    /** Line starts of one file version. */
    private static final class LineIndex {
        private final TreeMap<Long, Checkpoint> byLine = new TreeMap<>();
        private final long spacing;

        LineIndex(long size) {
            this.spacing = Math.max(CHECKPOINT_EVERY, size / MAX_CHECKPOINTS + 1);
        }

        synchronized Checkpoint floor(long line) {
            Map.Entry<Long, Checkpoint> e = byLine.floorEntry(line);
            return e == null ? null : e.getValue();
        }

        synchronized void add(Checkpoint c) {
            Map.Entry<Long, Checkpoint> below = byLine.floorEntry(c.line());
            Map.Entry<Long, Checkpoint> above = byLine.ceilingEntry(c.line());
            if ((below == null || c.offset() - below.getValue().offset() >= spacing)
                    && (above == null || above.getValue().offset() - c.offset() >= spacing)) {
                byLine.put(c.line(), c);
            }
        }
    }

    private final Map<FileId, LineIndex> indexes = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<FileId, LineIndex> eldest) {
            return size() > MAX_FILES;
        }
    };

    /**
     * What a page holds.
     *
     * @param content the window
     * @param returned lines in the window (a clipped line counts)
     * @param truncated whether the window stopped before the end of the file
     * @param clipped whether the window is one line cut short
     * @param byBytes whether the result budget (not maxLines / maxChars) ended the window
     * @param nextStart the line the next page starts at, or -1; when the totals are not known and the
     *        window is one clipped line, the next line is assumed to exist
     * @param totalLines the file's lines, or -1 when not counted
     * @param totalChars the file's UTF-16 chars, or -1 when not counted
     * @param malformed whether bytes that are not UTF-8 were met (and shown as U+FFFD) on the way to and in
     *                  the window: with a U+FFFD in the content, the file is not UTF-8 there
     */
    record Page(String content, int returned, boolean truncated, boolean clipped, boolean byBytes, long nextStart,
                long totalLines, long totalChars, boolean malformed) {
        boolean totalsKnown() {
            return totalLines >= 0;
        }
    }

    /**
     * Reads one page.
     *
     * @param ch the file, open
     * @param attrs its attributes (for the line-start cache), or null
     * @param path its validated path (for the cache)
     * @param startLine the first line, 1-based
     * @param maxLines most lines
     * @param maxChars most chars
     * @param maxJsonBytes most bytes of JSON of the content
     * @param totalsMaxBytes files up to this size are counted to the end for the totals
     * @return the page
     * @throws IOException on failure
     */
    Page read(SeekableByteChannel ch, BasicFileAttributes attrs, String path, int startLine, int maxLines,
              int maxChars, long maxJsonBytes, long totalsMaxBytes) throws IOException {
        LineIndex index = attrs == null ? null : index(new FileId(path, attrs.fileKey(), attrs.size(),
                attrs.lastModifiedTime()), attrs.size());
        Checkpoint from = index == null ? null : index.floor(startLine);
        long size = attrs != null ? attrs.size() : ch.size();
        Scan s = new Scan(startLine, maxLines, maxChars, maxJsonBytes, size <= totalsMaxBytes, index);
        if (from != null) {
            s.line = from.line();
            s.chars = from.chars();
            s.lineStartChars = from.chars();
            ch.position(from.offset());
            s.offset = from.offset();
        } else {
            ch.position(0);
        }
        s.run(ch);
        return s.page();
    }

    private LineIndex index(FileId id, long size) {
        synchronized (indexes) {
            return indexes.computeIfAbsent(id, k -> new LineIndex(size));
        }
    }

    /** The state of one page's scan. */
    private static final class Scan {
        final int startLine;
        final int maxLines;
        final int maxChars;
        final long maxJsonBytes;
        final boolean countToEnd;
        final LineIndex index;
        final StringBuilder content = new StringBuilder();
        final StringBuilder lineBuf = new StringBuilder();
        long contentBytes;
        /** The number of the line being scanned. */
        long line = 1;
        /** Chars before the current position. */
        long chars;
        /** Chars before the start of the current line. */
        long lineStartChars;
        /** The file offset of the next byte handed to the decoder at an aligned boundary. */
        long offset;
        int returned;
        boolean collecting = true;
        boolean truncated;
        boolean clipped;
        boolean byBytes;
        long nextStart = -1;
        /** The scan reached the end of the file while the window was still open (or it counted to the end). */
        boolean endReached;
        /** Bytes that are not UTF-8 were decoded as U+FFFD. */
        boolean malformed;

        Scan(int startLine, int maxLines, int maxChars, long maxJsonBytes, boolean countToEnd, LineIndex index) {
            this.startLine = startLine;
            this.maxLines = maxLines;
            this.maxChars = maxChars;
            this.maxJsonBytes = maxJsonBytes;
            this.countToEnd = countToEnd;
            this.index = index;
        }

        void run(SeekableByteChannel ch) throws IOException {
            // REPORT, and decode() replaces as REPLACE would (one U+FFFD per malformed sequence), noting it
            CharsetDecoder dec = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
            ByteBuffer in = ByteBuffer.allocate(CHUNK);
            CharBuffer out = CharBuffer.allocate(CHUNK);
            byte[] a = in.array();
            boolean eof;
            while (true) {
                int r = 0;
                while (in.hasRemaining() && (r = ch.read(in)) > 0) {
                    // fill the buffer: every chunk is full but the last
                }
                eof = r < 0;
                in.flip();
                int lim = in.limit();
                int lastNl = -1;
                for (int i = lim - 1; i >= in.position(); i--) {
                    if (a[i] == '\n') {
                        lastNl = i;
                        break;
                    }
                }
                if (lastNl >= 0) {
                    // decode up to a line end: afterwards the offset is exactly the start of a line
                    in.limit(lastNl + 1);
                    decode(dec, in, out, false);
                    offset += in.position();
                    if (index != null && in.position() == lastNl + 1) {
                        index.add(new Checkpoint(line, offset, chars));
                    }
                    in.limit(lim);
                }
                if (eof) {
                    decode(dec, in, out, true);
                    flush(dec, out);
                    break;
                }
                if (lastNl < 0) {
                    int before = in.position();
                    decode(dec, in, out, false); // a long line: leaves at most an incomplete sequence
                    offset += in.position() - before;
                }
                in.compact();
                if (!collecting && !countToEnd) {
                    break;              // the window is done and the file is too big to count
                }
            }
            endReached = collecting || countToEnd;
            if (lineBuf.length() > 0 && line >= startLine && collecting) {
                offer(line);                // a last line without a newline
            }
        }

        private void decode(CharsetDecoder dec, ByteBuffer in, CharBuffer out, boolean endOfInput) {
            while (true) {
                CoderResult cr = dec.decode(in, out, endOfInput);
                if (cr.isError()) {
                    malformed = true;
                    if (!out.hasRemaining()) {
                        consume(out);
                    }
                    out.put('\uFFFD');
                    in.position(in.position() + cr.length());
                    continue;
                }
                consume(out);
                if (!cr.isOverflow()) {
                    return;
                }
            }
        }

        private void flush(CharsetDecoder dec, CharBuffer out) {
            while (dec.flush(out).isOverflow()) {
                consume(out);
            }
            consume(out);
        }

        /** Processes and empties the decoded chars. */
        private void consume(CharBuffer out) {
            out.flip();
            char[] c = out.array();
            int n = out.limit();
            int i = 0;
            while (i < n) {
                int nl = -1;
                for (int k = i; k < n; k++) {
                    if (c[k] == '\n') {
                        nl = k;
                        break;
                    }
                }
                int end = nl < 0 ? n : nl + 1;
                if (collecting && line >= startLine) {
                    lineBuf.append(c, i, end - i);
                    if (lineBuf.length() > maxChars + CHUNK) {
                        lineBuf.setLength(maxChars + 1); // only maxChars of one line can be shown
                    }
                }
                chars += end - i;
                if (nl >= 0) {
                    if (collecting && line >= startLine) {
                        offer(line);
                    }
                    lineBuf.setLength(0);
                    line++;
                    lineStartChars = chars;
                }
                i = end;
            }
            out.clear();
        }

        private void offer(long ln) {
            if (returned < maxLines && content.length() + lineBuf.length() <= maxChars) {
                long b = JsonSize.body(lineBuf, 0, lineBuf.length());
                if (contentBytes + b <= maxJsonBytes) {
                    content.append(lineBuf);
                    contentBytes += b;
                    returned++;
                    return;
                }
                byBytes = true;
            }
            collecting = false;
            truncated = true;
            if (returned == 0 && maxLines > 0) {
                int cut = fitting(lineBuf, Math.min(maxChars, lineBuf.length()), maxJsonBytes);
                if (cut < lineBuf.length() && !byBytes) {
                    byBytes = cut < Math.min(maxChars, lineBuf.length());
                }
                content.append(lineBuf, 0, cut);
                returned = 1;
                clipped = true;
                nextStart = ln + 1;
            } else {
                nextStart = ln;
            }
        }

        /** How many chars of {@code s} (at most {@code max}) fit in {@code budget} bytes of JSON, never splitting a pair. */
        private static int fitting(CharSequence s, int max, long budget) {
            long used = 0;
            int i = 0;
            while (i < max) {
                char c = s.charAt(i);
                int w = 1;
                long b;
                if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    w = 2;
                    b = 4;
                } else {
                    b = JsonSize.charBound(c);
                }
                if (i + w > max || used + b > budget) {
                    break;
                }
                used += b;
                i += w;
            }
            return i;
        }

        Page page() {
            boolean known = endReached;
            long totalLines = known ? (chars > lineStartChars ? line : line - 1) : -1;
            long next = nextStart;
            if (known && next > totalLines) {
                next = -1;           // a clipped last line: nothing follows
            }
            return new Page(content.toString(), returned, truncated, clipped, byBytes, next, totalLines,
                    known ? chars : -1, malformed);
        }
    }
}
