package org.vancetope.worktarget.mcp.internal;

import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The stdout of the stdio transport: passes every byte on and counts the responses among the messages the
 * SDK writes (one a line; the SDK writes a response's {@code id} right after {@code jsonrpc}, a request or
 * notification its {@code method}), so that the server can wait, when the client closed its input, until
 * every request it read was answered.
 */
public final class ResponseTapOutputStream extends FilterOutputStream {
    private static final byte[] RESPONSE = "{\"jsonrpc\":\"2.0\",\"id\":".getBytes(StandardCharsets.US_ASCII);

    private final CancelTapInputStream requests;
    private final ByteArrayOutputStream head = new ByteArrayOutputStream();
    private boolean counted;

    /**
     * A tap.
     *
     * @param out the real output
     * @param requests the input tap, which counts the requests that await a response
     */
    public ResponseTapOutputStream(OutputStream out, CancelTapInputStream requests) {
        super(out);
        this.requests = requests;
    }

    @Override
    public synchronized void write(int b) throws IOException {
        out.write(b);
        see((byte) b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
        out.write(b, off, len);
        for (int i = off; i < off + len; i++) {
            see(b[i]);
        }
    }

    private void see(byte b) {
        if (b == '\n') {
            head.reset();
            counted = false;
            return;
        }
        if (counted || head.size() >= RESPONSE.length) {
            return;
        }
        head.write(b);
        if (head.size() == RESPONSE.length) {
            counted = true;
            byte[] h = head.toByteArray();
            if (java.util.Arrays.equals(h, RESPONSE)) {
                requests.answered();
            }
        }
    }
}
