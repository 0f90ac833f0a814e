package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolLabel;
import org.vancetope.worktarget.spi.ToolSpec;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * A tool call cancelled over stdio (the client closed its input, or sent {@code notifications/cancelled})
 * reports the stable code {@code cancelled}, whatever error the interrupted tool ended in. The tool here
 * blocks in a real interruptible channel read and, when the interrupt closes the channel, fails as the file
 * engine does on a read it could not finish: {@code internal: Could not read ...}.
 */
class StdioCancelTest {
    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    private static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
            + "\"name\":\"blocking_read\",\"arguments\":{}}}\n";

    private final AtomicInteger reading = new AtomicInteger();
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private final PipedOutputStream stdin = new PipedOutputStream();
    private LocalBackend local;
    private McpWorkTargetServer mcp;

    @BeforeEach
    void serve(@TempDir Path tmp) throws IOException {
        BackendTool blocking = BackendTool.of(new ToolSpec("blocking_read", "Reads a pipe nobody writes to.", true,
                Set.of(ToolLabel.READ_ONLY), Map.of("type", "object", "properties", Map.of()), "Blocking read",
                Map.of("type", "object")), (params, context) -> {
                    try {
                        Pipe pipe = Pipe.open();
                        try (Pipe.SourceChannel source = pipe.source(); Pipe.SinkChannel sink = pipe.sink()) {
                            reading.incrementAndGet();
                            // nobody writes: the read blocks until the cancel's interrupt closes the channel
                            int n = source.read(ByteBuffer.allocate(1));
                            return Map.of("read", n, "sinkOpen", sink.isOpen());
                        }
                    } catch (IOException e) {
                        throw new ToolException(ErrorCode.INTERNAL, "Could not read 'pipe'.", e);
                    }
                });
        local = LocalBackend.builder().workDirectory(tmp).build();
        InMemoryProcessStore store = new InMemoryProcessStore();
        WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder().processStore(store).peers(local)
                .hostTool(blocking).build();
        mcp = McpWorkTargetServer.builder().dispatcher(dispatcher).hostTools(List.of(blocking))
                .processes(McpProcessMapping.perSession(store, dispatcher, "local", "local")).build();
        mcp.serveStdio(new PipedInputStream(stdin, 1 << 16), new OutputStream() {
            @Override
            public void write(int b) {
                synchronized (received) {
                    received.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                synchronized (received) {
                    received.write(b, off, len);
                }
            }
        });
    }

    @AfterEach
    void close() throws IOException {
        stdin.close();
        mcp.close();
        local.close();
    }

    private String received() {
        synchronized (received) {
            return received.toString(StandardCharsets.UTF_8);
        }
    }

    private String answerTo(int id) {
        Await.until("the answer to request " + id, () -> received().contains("\"id\":" + id + ","));
        for (String line : received().split("\n")) {
            if (line.contains("\"id\":" + id + ",")) {
                return line;
            }
        }
        throw new AssertionError("no answer to " + id);
    }

    private void send(String lines) throws IOException {
        stdin.write(lines.getBytes(StandardCharsets.UTF_8));
        stdin.flush();
    }

    @Test
    void aCallRunningWhenStdinEndsReportsCancelledNotTheReadItsInterruptBroke() throws Exception {
        send(INIT + CALL);
        Await.until("the tool reads", () -> reading.get() == 1);
        stdin.close();
        String answer = answerTo(2);
        assertThat(answer).contains("\"isError\":true", "cancelled: ").doesNotContain("internal: ", "Could not read");
        mcp.awaitStdioEnd();
    }

    @Test
    void aCallCancelledByNotificationsCancelledReportsCancelled() throws Exception {
        send(INIT + CALL);
        Await.until("the tool reads", () -> reading.get() == 1);
        send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2,"
                + "\"reason\":\"user stopped it\"}}\n");
        String answer = answerTo(2);
        assertThat(answer).contains("\"isError\":true", "cancelled: ").doesNotContain("internal: ");
        // the server reads on: the next call runs (and is cancelled by the end of the input)
        send(CALL.replace("\"id\":2", "\"id\":3"));
        Await.until("the second call reads", () -> reading.get() == 2);
        stdin.close();
        assertThat(answerTo(3)).contains("cancelled: ");
    }
}
