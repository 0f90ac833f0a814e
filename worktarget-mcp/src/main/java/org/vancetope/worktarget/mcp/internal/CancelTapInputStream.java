package org.vancetope.worktarget.mcp.internal;

import io.modelcontextprotocol.json.McpJsonMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stdin of the stdio transport, read line by line (one JSON-RPC message a line) so that each message
 * passes {@link Inbound} before the SDK reads it: tool calls are tagged with their key and cancel
 * notifications reach the {@link CallRegistry} as soon as they arrive, whatever the SDK is busy with.
 * Cancel notifications are not passed on (the SDK has no handler for them). When the input ends, the
 * running calls are cancelled and the end reaches the SDK once every request read was answered;
 * {@link #ended()} opens then.
 */
public final class CancelTapInputStream extends InputStream {
    private static final Logger LOG = LoggerFactory.getLogger(CancelTapInputStream.class);

    private final InputStream in;
    private final McpJsonMapper json;
    private final CallRegistry calls;
    private final CountDownLatch ended = new CountDownLatch(1);
    private final Object lock = new Object();
    private int unanswered;
    private byte[] line = new byte[0];
    private int pos;

    /**
     * A tap.
     *
     * @param in the raw input
     * @param json the SDK's mapper
     * @param calls the running calls
     */
    public CancelTapInputStream(InputStream in, McpJsonMapper json, CallRegistry calls) {
        this.in = in;
        this.json = json;
        this.calls = calls;
    }

    /**
     * Opens when the input ended (the client closed stdin) and every request was answered, or it failed.
     *
     * @return the latch
     */
    public CountDownLatch ended() {
        return ended;
    }

    /**
     * The client closed its input: the calls still running are cancelled, and the SDK sees the end of the
     * input only once every request read was answered (it stops writing when its input ends, which would
     * drop those answers).
     */
    private void drain() {
        calls.cancelAll();
        try {
            if (!awaitAnswered(30_000)) {
                LOG.warn("Some MCP requests were still unanswered 30 s after the client closed its input");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            ended.countDown();
        }
    }

    /** A response went out (counted by {@link ResponseTapOutputStream}). */
    void answered() {
        synchronized (lock) {
            unanswered = Math.max(0, unanswered - 1);
            lock.notifyAll();
        }
    }

    /**
     * Waits until every request read so far was answered, or the time passed.
     *
     * @param millis the longest wait
     * @return whether every request was answered
     * @throws InterruptedException when interrupted
     */
    public boolean awaitAnswered(long millis) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000L;
        synchronized (lock) {
            while (unanswered > 0) {
                long left = (end - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    return false;
                }
                lock.wait(left);
            }
            return true;
        }
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (pos >= line.length && !nextLine()) {
            return -1;
        }
        int n = Math.min(len, line.length - pos);
        System.arraycopy(line, pos, b, off, n);
        pos += n;
        return n;
    }

    private boolean nextLine() throws IOException {
        while (true) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            int c;
            try {
                while ((c = in.read()) >= 0) {
                    buf.write(c);
                    if (c == '\n') {
                        break;
                    }
                }
            } catch (IOException e) {
                ended.countDown();
                throw e;
            }
            if (buf.size() == 0) {
                drain();
                return false;
            }
            byte[] passed = inspect(buf.toByteArray());
            if (passed.length > 0) {
                line = passed;
                pos = 0;
                return true;
            }
            // a cancel notification, handled here (the SDK has no handler for it): read the next line
        }
    }

    @SuppressWarnings("unchecked")
    private byte[] inspect(byte[] raw) {
        String text = new String(raw, StandardCharsets.UTF_8).strip();
        if (text.isEmpty() || text.charAt(0) != '{') {
            return raw;
        }
        try {
            Map<String, Object> msg = json.readValue(text, Map.class);
            Object method = msg.get("method");
            if (!(method instanceof String m)) {
                return raw;
            }
            if (msg.containsKey("id")) {
                synchronized (lock) {
                    unanswered++;
                }
                Object tagged = Inbound.tag(m, msg.get("id"), msg.get("params"), null);
                if (tagged != msg.get("params")) {
                    msg.put("params", tagged);
                    return (json.writeValueAsString(msg) + "\n").getBytes(StandardCharsets.UTF_8);
                }
            } else if (Inbound.CANCELLED.equals(m)) {
                Inbound.cancel(m, msg.get("params"), null, calls);
                return new byte[0];
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("Passing on a line that is not a JSON object for the SDK to answer: {}", e.toString());
        }
        return raw;
    }

    @Override
    public void close() throws IOException {
        ended.countDown();
        in.close();
    }
}
