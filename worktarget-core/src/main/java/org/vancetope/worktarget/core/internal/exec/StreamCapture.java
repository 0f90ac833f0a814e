package org.vancetope.worktarget.core.internal.exec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains one output stream of a job: every byte goes to the stream's file (up to a size cap), and the
 * decoded text, as a terminal shows it ({@link TerminalText}: progress redraws, colours and other escape
 * sequences applied), is kept in memory only as its true first characters and a ring of its last ones, so a
 * job that prints gigabytes costs bounded memory. When the file stops growing before the stream ends
 * — at its cap, on a full disk, on another write error — the capture records why ({@link #fileCut()}),
 * and the in-memory tail stays the true end. Not thread-safe for writing: one thread pumps, any
 * thread may take snapshots or close the file.
 */
final class StreamCapture {
    private static final Logger LOG = LoggerFactory.getLogger(StreamCapture.class);

    /** Why a stream's file holds less than the stream. */
    enum Cut {
        /** The file reached {@code outputFileMaxBytes}. */
        CAP,
        /** The file system reported that it is full ({@code ENOSPC}) or that the quota is used up ({@code EDQUOT}). */
        DISK_FULL,
        /** Another write error. */
        WRITE_ERROR
    }

    private final String name;
    private final long fileCap;
    private final Clock clock;
    private final int charCap;
    /** The first characters, grown up to charCap as output arrives (most jobs print little). */
    private char[] head;
    /** The last charCap characters, allocated when the output first exceeds charCap. */
    private char[] ring;
    private int headLen;
    private int ringPos;
    /** How many of the ring's characters are the text's last ones (fewer after a line was started over). */
    private int ringValid;
    /** How many characters the shown text has. */
    private long totalChars;
    /** Where the shown text's last line starts: what a carriage return takes back. */
    private long lineStart;
    /** The character {@link #put} adds, as a run. */
    private final char[] one = new char[1];
    private final TerminalText terminal = new TerminalText(new TerminalText.Sink() {
        @Override
        public void put(char c) {
            StreamCapture.this.put(c);
        }

        @Override
        public void startLineOver() {
            takeBack(totalChars - lineStart);
        }

        @Override
        public void backspace() {
            if (totalChars > lineStart) {
                takeBack(1);
            }
        }
    });
    private volatile Instant lastOutputAt;
    /** Guards {@link #file}: a write and a close never overlap. */
    private final Object fileLock = new Object();
    private WritableByteChannel file;
    private volatile long fileBytes;
    private volatile Cut cut;
    private volatile String cutDetail;
    /** The second read end of the pipe, or null: see {@link #keep}. */
    private volatile ReadableByteChannel kept;
    private final CompletableFuture<Void> drained = new CompletableFuture<>();

    /**
     * Creates the capture over its already created file.
     *
     * @param name the file's name in the root's job output directory
     * @param file the new file, open for writing (made by handle, so a job cannot redirect it); owned here
     * @param fileCap the most bytes the file may hold
     * @param charCap how many characters of head and of tail to keep
     * @param clock the clock for {@code lastOutputAt}
     */
    StreamCapture(String name, WritableByteChannel file, long fileCap, int charCap, Clock clock) {
        this.name = name;
        this.fileCap = fileCap;
        this.clock = clock;
        this.charCap = charCap;
        this.head = new char[Math.min(charCap, 256)];
        this.file = file;
    }

    /** The file's name in the job output directory. */
    String name() {
        return name;
    }

    Instant lastOutputAt() {
        return lastOutputAt;
    }

    /**
     * A second read end of the same pipe, opened while the shell could not yet have changed its output (see
     * {@code JobLauncher}), read after the JDK's own stream ended. The JDK closes its read end as soon as
     * the shell exits; a process the command left in the background ({@code server &}) that still writes
     * to the job's output would then die of SIGPIPE at its next line. With this end open, such output goes
     * on into the file (up to its cap) and the in-memory tail until the last writer closes the pipe or the
     * job is forgotten ({@link #stop()}).
     *
     * @param second the second read end, or null; set before {@link #pump} runs
     */
    void keep(ReadableByteChannel second) {
        this.kept = second;
    }

    /**
     * Completes when the JDK's stream of the shell's output has ended (all of it read): what the job's
     * result waits for. What background processes write later is read on ({@link #keep}).
     *
     * @return the future
     */
    CompletableFuture<Void> drained() {
        return drained;
    }

    /**
     * Stops reading what background processes write (closing the second read end, which wakes a read in
     * progress), for a job that is forgotten.
     */
    void stop() {
        ReadableByteChannel k = kept;
        if (k != null) {
            try {
                k.close();
            } catch (IOException e) {
                LOG.debug("closing the kept output of {} failed: {}", name, e.toString());
            }
        }
    }

    /**
     * Reads the stream to its end, then the kept second read end, if any, to its end; then closes both and
     * the file.
     *
     * @param in the process output
     */
    void pump(InputStream in) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        byte[] buf = new byte[8192];
        ByteBuffer bytes = ByteBuffer.allocate(8192 + 8);
        CharBuffer chars = CharBuffer.allocate(8192 + 8);
        ReadableByteChannel second = kept;
        try {
            try (in) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    accept(buf, n, decoder, bytes, chars);
                }
            } catch (IOException e) {
                // The pipe was closed under us (the engine is closing); what was read so far stays.
                LOG.debug("exec output stream of {} ended: {}", name, e.toString());
            }
            if (second == null) {
                endOfInput(decoder, bytes, chars);
            }
            drained.complete(null);
            if (second != null) {
                try (second) {
                    ByteBuffer bb = ByteBuffer.wrap(buf);
                    int n;
                    while ((n = second.read(bb.clear())) >= 0) {
                        accept(buf, n, decoder, bytes, chars);
                    }
                } catch (IOException e) {
                    // closed by stop() (the job was forgotten) or by the engine
                    LOG.debug("kept exec output of {} ended: {}", name, e.toString());
                }
                endOfInput(decoder, bytes, chars);
            }
        } finally {
            drained.complete(null);
            closeFile();
        }
    }

    private void accept(byte[] buf, int n, CharsetDecoder decoder, ByteBuffer bytes, CharBuffer chars) {
        if (n == 0) {
            return;
        }
        lastOutputAt = clock.instant();
        writeFile(buf, n);
        bytes.put(buf, 0, n).flip();
        decoder.decode(bytes, chars, false);
        bytes.compact();
        chars.flip();
        append(chars);
        chars.clear();
    }

    private void endOfInput(CharsetDecoder decoder, ByteBuffer bytes, CharBuffer chars) {
        bytes.flip();
        decoder.decode(bytes, chars, true);
        decoder.flush(chars);
        chars.flip();
        append(chars);
        chars.clear();
        endOfText();
    }

    private void writeFile(byte[] buf, int n) {
        synchronized (fileLock) {
            if (file == null || cut != null) {
                return;
            }
            int take = (int) Math.min(n, fileCap - fileBytes);
            ByteBuffer bb = ByteBuffer.wrap(buf, 0, take);
            try {
                while (bb.hasRemaining()) {
                    fileBytes += file.write(bb);
                }
                if (take < n) {
                    cut = Cut.CAP;
                }
            } catch (IOException e) {
                cutDetail = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
                cut = diskFull(e) ? Cut.DISK_FULL : Cut.WRITE_ERROR;
                LOG.warn("exec output file {} stopped at {} bytes ({}); keeping only the in-memory head and tail: {}",
                        name, fileBytes, cut == Cut.DISK_FULL ? "the disk is full" : "write error", e.toString());
            }
        }
    }

    /** Whether an I/O error says that the file system is full or the quota used up (the OS's own texts). */
    static boolean diskFull(IOException e) {
        String m = e.getMessage();
        return m != null && (m.contains("No space left on device") || m.contains("Disk quota exceeded"));
    }

    private synchronized void append(CharBuffer cb) {
        char[] a = cb.array();
        int i = cb.arrayOffset() + cb.position();
        int end = cb.arrayOffset() + cb.limit();
        while (i < end) {
            if (terminal.inText()) {
                // most output is runs of plain characters: those go in one copy, not one call each
                int j = i;
                int lastLineEnd = -1;
                while (j < end && TerminalText.isPlain(a[j])) {
                    if (a[j] == '\n') {
                        lastLineEnd = j;
                    }
                    j++;
                }
                if (j > i) {
                    putRun(a, i, j - i);
                    if (lastLineEnd >= 0) {
                        lineStart = totalChars - (j - lastLineEnd - 1);
                    }
                    i = j;
                    continue;
                }
            }
            terminal.accept(a[i++]);
        }
        cb.position(cb.limit());
    }

    /**
     * Adds shown characters: to the head while it holds the whole text, to the ring once there is one; the
     * caller updates {@link #lineStart}.
     */
    private void putRun(char[] a, int off, int n) {
        int inHead = headLen < charCap && headLen == totalChars ? Math.min(n, charCap - headLen) : 0;
        if (inHead > 0) {
            if (headLen + inHead > head.length) {
                head = java.util.Arrays.copyOf(head, Math.min(charCap, Math.max(head.length * 2, headLen + inHead)));
            }
            System.arraycopy(a, off, head, headLen, inHead);
            headLen += inHead;
            if (ring != null) {
                putRing(a, off, inHead);
            }
        }
        if (inHead < n) {
            if (ring == null) {
                ring = java.util.Arrays.copyOf(head, charCap); // the head is the tail so far
                ringPos = 0;
                ringValid = charCap;
            }
            putRing(a, off + inHead, n - inHead);
        }
        totalChars += n;
    }

    private void putRing(char[] a, int off, int n) {
        int len = ring.length;
        if (n >= len) {
            System.arraycopy(a, off + n - len, ring, 0, len);
            ringPos = 0;
            ringValid = len;
            return;
        }
        int first = Math.min(n, len - ringPos);
        System.arraycopy(a, off, ring, ringPos, first);
        System.arraycopy(a, off + first, ring, 0, n - first);
        ringPos = (ringPos + n) % len;
        ringValid = Math.min(len, ringValid + n);
    }

    private synchronized void endOfText() {
        terminal.end();
    }

    /** Adds one shown character, as a run of one. */
    private void put(char c) {
        one[0] = c;
        putRun(one, 0, 1);
        if (c == '\n') {
            lineStart = totalChars;
        }
    }

    /** Takes back the last {@code n} shown characters (of the last line). */
    private void takeBack(long n) {
        if (n <= 0) {
            return;
        }
        totalChars -= n;
        headLen = (int) Math.min(headLen, totalChars);
        if (ring != null) {
            int back = (int) Math.min(n, ringValid);
            ringValid -= back;
            ringPos = Math.floorMod(ringPos - back, ring.length);
        }
    }

    /**
     * Closes the file (waiting for a write in progress); later output is still drained and kept in
     * memory, but not written.
     */
    void closeFile() {
        WritableByteChannel f;
        synchronized (fileLock) {
            f = file;
            file = null;
        }
        if (f != null) {
            try {
                f.close();
            } catch (IOException e) {
                LOG.debug("closing exec output file {} failed: {}", name, e.toString());
            }
        }
    }

    /**
     * Why the file holds less than the stream, or null while it holds all of it.
     *
     * @return the cut, or null
     */
    Cut fileCut() {
        return cut;
    }

    /**
     * Whether the file stopped growing before the stream's end (for any {@link Cut}): then the in-memory
     * tail, not the file, has the true end.
     *
     * @return true when cut
     */
    boolean fileCapped() {
        return cut != null;
    }

    /**
     * The error text of a {@link Cut#DISK_FULL} or {@link Cut#WRITE_ERROR} cut.
     *
     * @return the text, or null
     */
    String cutDetail() {
        return cutDetail;
    }

    /**
     * How many bytes the file holds.
     *
     * @return the bytes written
     */
    long fileBytes() {
        return fileBytes;
    }

    /**
     * The last lines of the in-memory tail (used when the file stopped at its cap).
     *
     * @param n how many lines
     * @return the lines; truncated when the ring did not hold {@code n} whole lines
     */
    synchronized TailReader.Tail tailLines(int n) {
        String text = tailText();
        if (text.endsWith("\n")) {
            text = text.substring(0, text.length() - 1);
        }
        int from = text.length();
        int found = 0;
        while (found < n) {
            int nl = text.lastIndexOf('\n', from - 1);
            if (nl < 0) {
                from = 0;
                break;
            }
            from = nl;
            found++;
        }
        boolean truncated = found < n && totalChars > charCap;
        String window = found == n ? text.substring(from + 1) : text.substring(from);
        java.util.List<String> lines = new java.util.ArrayList<>(java.util.Arrays.asList(window.split("\n", -1)));
        lines.replaceAll(l -> l.endsWith("\r") ? l.substring(0, l.length() - 1) : l);
        return new TailReader.Tail(lines, truncated);
    }

    private String tailText() {
        if (ring == null) {
            return new String(head, 0, headLen);
        }
        int tailLen = ringValid;
        char[] tail = new char[tailLen];
        int start = ringPos - tailLen;
        if (start >= 0) {
            System.arraycopy(ring, start, tail, 0, tailLen);
        } else {
            int firstPart = -start;
            System.arraycopy(ring, ring.length - firstPart, tail, 0, firstPart);
            System.arraycopy(ring, 0, tail, firstPart, ringPos);
        }
        return new String(tail);
    }

    /**
     * Renders what was captured so far.
     *
     * @param cap the inline cap
     * @return the rendering
     */
    synchronized HeadTail.Rendered render(int cap) {
        return HeadTail.render(CharBuffer.wrap(head, 0, headLen), tailText(), totalChars, cap);
    }
}
