package org.vancetope.worktarget.core.internal.exec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains one output stream of a job: every byte goes to the stream's file (up to a size cap), and the
 * decoded text is kept in memory only as its true first characters and a ring of its last ones, so a
 * job that prints gigabytes costs bounded memory. Not thread-safe for writing: one thread pumps, any
 * thread may take snapshots.
 */
final class StreamCapture {
    private static final Logger LOG = LoggerFactory.getLogger(StreamCapture.class);

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
    private long totalChars;
    private long fileBytes;
    private volatile boolean fileCapped;
    private volatile Instant lastOutputAt;
    private OutputStream out;

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
        this.out = Channels.newOutputStream(file);
    }

    /** The file's name in the job output directory. */
    String name() {
        return name;
    }

    Instant lastOutputAt() {
        return lastOutputAt;
    }

    /**
     * Reads the stream to its end, then closes the stream and the file.
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
        try (in) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                if (n == 0) {
                    continue;
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
            bytes.flip();
            decoder.decode(bytes, chars, true);
            decoder.flush(chars);
            chars.flip();
            append(chars);
        } catch (IOException e) {
            // The pipe was closed under us (the engine is closing); what was read so far stays.
            LOG.debug("exec output stream of {} ended: {}", name, e.toString());
        } finally {
            closeFile();
        }
    }

    private void writeFile(byte[] buf, int n) {
        OutputStream o;
        synchronized (this) {
            o = out;
        }
        if (o == null || fileCapped) {
            return;
        }
        int take = (int) Math.min(n, fileCap - fileBytes);
        try {
            o.write(buf, 0, take);
            fileBytes += take;
            if (take < n) {
                fileCapped = true;
            }
        } catch (IOException e) {
            LOG.warn("exec output file {} could not be written, keeping only the in-memory head and tail: {}",
                    name, e.toString());
            fileCapped = true;
        }
    }

    private synchronized void append(CharBuffer cb) {
        while (cb.hasRemaining()) {
            char c = cb.get();
            if (headLen < charCap) {
                if (headLen == head.length) {
                    head = java.util.Arrays.copyOf(head, Math.min(charCap, head.length * 2));
                }
                head[headLen++] = c;
            } else {
                if (ring == null) {
                    ring = java.util.Arrays.copyOf(head, charCap); // the head is the tail so far
                    ringPos = 0;
                }
                ring[ringPos] = c;
                ringPos = ringPos + 1 == ring.length ? 0 : ringPos + 1;
            }
            totalChars++;
        }
    }

    /** Closes the file; later output is still drained and kept in memory, but not written. */
    void closeFile() {
        OutputStream o;
        synchronized (this) {
            o = out;
            out = null;
        }
        if (o != null) {
            try {
                o.close();
            } catch (IOException e) {
                LOG.debug("closing exec output file {} failed: {}", name, e.toString());
            }
        }
    }

    /**
     * Whether the file stopped growing because it reached its cap.
     *
     * @return true when capped
     */
    boolean fileCapped() {
        return fileCapped;
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
        int tailLen = (int) Math.min(totalChars, ring.length);
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
