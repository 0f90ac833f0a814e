package org.vancetope.worktarget.core.internal.exec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the last lines of a file from its end, block by block backwards, so the cost depends on the
 * lines asked for, not on the file's size. A final line terminator does not count as an empty line. Each
 * line is returned as a terminal shows it ({@link TerminalText}: the last redraw of a progress line, no
 * colour codes); the file keeps what was written.
 */
final class TailReader {
    private static final int BLOCK = 8192;

    private TailReader() {
    }

    /**
     * The last lines.
     *
     * @param lines the lines and whether the read bound cut them
     * @param truncated whether the byte bound was hit before {@code n} whole lines were found
     */
    record Tail(List<String> lines, boolean truncated) {
    }

    /**
     * Reads the last {@code n} lines.
     *
     * @param ch the open file (closed by the caller)
     * @param n how many lines, at least 1
     * @param maxBytes the most bytes to read
     * @return the lines, oldest first
     * @throws IOException when the file cannot be read
     */
    static Tail lastLines(SeekableByteChannel ch, int n, int maxBytes) throws IOException {
        long size = ch.size();
        if (size == 0) {
            return new Tail(List.of(), false);
        }
        long end = size;
        // Ignore one trailing newline: "a\nb\n" has two lines.
        byte[] last = readAt(ch, size - 1, 1);
        if (last[0] == '\n') {
            end = size - 1;
        }
        long pos = end;
        int newlines = 0;
        long from = 0;
        boolean found = false;
        while (pos > 0 && end - pos < maxBytes) {
            int len = (int) Math.min(BLOCK, Math.min(pos, maxBytes - (end - pos)));
            long start = pos - len;
            byte[] block = readAt(ch, start, len);
            for (int i = len - 1; i >= 0; i--) {
                if (block[i] == '\n' && ++newlines == n) {
                    from = start + i + 1;
                    found = true;
                    break;
                }
            }
            if (found) {
                break;
            }
            pos = start;
        }
        boolean truncated = false;
        if (!found) {
            from = pos;
            truncated = pos > 0;
        }
        byte[] data = readAt(ch, from, (int) (end - from));
        String text = new String(data, StandardCharsets.UTF_8);
        List<String> out = new ArrayList<>();
        int s = 0;
        for (int i = 0; i <= text.length(); i++) {
            if (i == text.length() || text.charAt(i) == '\n') {
                String line = text.substring(s, i);
                out.add(TerminalText.clean(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line));
                s = i + 1;
            }
        }
        return new Tail(out, truncated);
    }

    private static byte[] readAt(SeekableByteChannel ch, long position, int len) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(len);
        ch.position(position);
        while (buf.hasRemaining()) {
            if (ch.read(buf) < 0) {
                break;
            }
        }
        byte[] out = new byte[buf.position()];
        buf.flip();
        buf.get(out);
        return out;
    }
}
