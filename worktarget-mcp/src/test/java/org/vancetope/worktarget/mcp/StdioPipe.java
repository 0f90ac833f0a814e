package org.vancetope.worktarget.mcp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * The client's end of an MCP server's stdio in the test's JVM: what the test sends is the server's stdin,
 * what the server writes is collected and searched for the answer to a request id.
 */
final class StdioPipe {
    /** {@code initialize} and {@code notifications/initialized}; the answer has id 1. */
    static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    /** Each write the server made, as text, in order. */
    private final List<String> writes = new ArrayList<>();
    private final PipedOutputStream stdin = new PipedOutputStream();

    /** Serves {@code mcp} on this pipe. */
    void serve(McpWorkTargetServer mcp) throws IOException {
        mcp.serveStdio(new PipedInputStream(stdin, 1 << 16), new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (received) {
                    received.write(b);
                    writes.add(String.valueOf((char) b));
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (received) {
                    received.write(b, off, len);
                    writes.add(new String(b, off, len, StandardCharsets.UTF_8));
                }
            }
        });
    }

    /** Writes lines to the server's stdin. */
    void send(String lines) throws IOException {
        stdin.write(lines.getBytes(StandardCharsets.UTF_8));
        stdin.flush();
    }

    /** Ends the server's stdin, as a client that closes it. */
    void closeInput() throws IOException {
        stdin.close();
    }

    /** Everything the server wrote so far. */
    String received() {
        synchronized (received) {
            return received.toString(StandardCharsets.UTF_8);
        }
    }

    /** Each write the server made so far, as text, in order. */
    List<String> writes() {
        synchronized (received) {
            return List.copyOf(writes);
        }
    }

    /** The line that answers request {@code id} ({@code null}: a parse error's), once it came. */
    String answerTo(Object id) {
        String key = "\"id\":" + id + ",";
        Await.until("the answer to request " + id, () -> received().contains(key));
        for (String line : received().split("\n")) {
            if (line.contains(key)) {
                return line;
            }
        }
        throw new AssertionError("no answer to " + id);
    }
}
