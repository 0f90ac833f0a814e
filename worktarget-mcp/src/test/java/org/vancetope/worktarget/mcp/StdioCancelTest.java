package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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
    private static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
            + "\"name\":\"blocking_read\",\"arguments\":{}}}\n";

    private final AtomicInteger reading = new AtomicInteger();
    private LocalStdioServer server;
    private StdioPipe stdio;
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
        server = new LocalStdioServer(tmp, d -> d.hostTool(blocking),
                b -> b.hostTools(List.of(blocking)).warmUp(true));
        stdio = server.stdio;
        mcp = server.mcp;
    }

    @AfterEach
    void close() throws IOException {
        server.close();
    }

    @Test
    void aCallRunningWhenStdinEndsReportsCancelledNotTheReadItsInterruptBroke() throws Exception {
        stdio.send(StdioPipe.INIT + CALL);
        Await.until("the tool reads", () -> reading.get() == 1);
        stdio.closeInput();
        String answer = stdio.answerTo(2);
        assertThat(answer).contains("\"isError\":true", "cancelled: ").doesNotContain("internal: ", "Could not read");
        mcp.awaitStdioEnd();
    }

    @Test
    void aCallCancelledByNotificationsCancelledReportsCancelled() throws Exception {
        stdio.send(StdioPipe.INIT + CALL);
        Await.until("the tool reads", () -> reading.get() == 1);
        stdio.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2,"
                + "\"reason\":\"user stopped it\"}}\n");
        String answer = stdio.answerTo(2);
        assertThat(answer).contains("\"isError\":true", "cancelled: ").doesNotContain("internal: ");
        // the server reads on: the next call runs (and is cancelled by the end of the input)
        stdio.send(CALL.replace("\"id\":2", "\"id\":3"));
        Await.until("the second call reads", () -> reading.get() == 2);
        stdio.closeInput();
        assertThat(stdio.answerTo(3)).contains("cancelled: ");
    }

    @Test
    void aCancelOfTheStringIdTwoDoesNotCancelTheCallWithTheNumberTwo() throws Exception {
        stdio.send(StdioPipe.INIT + CALL);
        Await.until("the tool reads", () -> reading.get() == 1);
        stdio.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"2\"}}\n");
        // a call with the string id "2" is another request: it runs beside the first
        stdio.send(CALL.replace("\"id\":2", "\"id\":\"2\""));
        Await.until("both calls read", () -> reading.get() == 2);

        assertThat(stdio.received()).doesNotContain("\"id\":2,").doesNotContain("\"id\":\"2\",");
        stdio.closeInput();
        assertThat(stdio.answerTo(2)).contains("cancelled: ");
        assertThat(stdio.answerTo("\"2\"")).contains("cancelled: ");
    }
}
