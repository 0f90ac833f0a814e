package org.vancetope.worktarget.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Over stdio, what a client sends before the session is initialized (the initialize request, then the
 * initialized notification) is answered at once: a ping with its result, any other request with an
 * invalid-request error that says which two messages come first. Before, the SDK held such requests until
 * the session was initialized, or for ever, and each held one of the server's call slots, so that enough of
 * them kept even a correct initialize out. A line that is the JSON literal {@code null} gets a parse error.
 */
class StdioBeforeInitializeTest {
    private LocalStdioServer server;
    private StdioPipe stdio;

    @BeforeEach
    void serve(@TempDir Path tmp) throws IOException {
        Files.writeString(tmp.resolve("a.txt"), "hello\n");
        server = new LocalStdioServer(tmp);
        stdio = server.stdio;
    }

    @AfterEach
    void close() throws IOException {
        server.close();
    }

    private static String call(Object id) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"file_read\","
                + "\"arguments\":{\"path\":\"a.txt\"}}}\n";
    }

    @Test
    void aRequestBeforeInitializeIsRefusedAtOnceWithWhatToSendFirst() throws IOException {
        stdio.send(call(2));

        assertThat(stdio.answerTo(2)).contains("\"code\":-32600", "not initialized yet", "initialize",
                "notifications/initialized");
    }

    @Test
    void aPingIsAnsweredBeforeInitialize() throws IOException {
        stdio.send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n");

        assertThat(stdio.answerTo(5)).contains("\"result\":{}");
    }

    @Test
    void aRequestAfterInitializeButBeforeInitializedIsRefusedToo() throws IOException {
        stdio.send(StdioPipe.INIT.substring(0, StdioPipe.INIT.indexOf('\n') + 1));
        stdio.answerTo(1);
        stdio.send(call(2));

        assertThat(stdio.answerTo(2)).contains("not initialized yet");
    }

    @Test
    void manyEarlyRequestsDoNotKeepTheInitializeOutAndTheSessionWorksAfterIt() throws IOException {
        StringBuilder early = new StringBuilder();
        for (int i = 0; i < 300; i++) {
            early.append("{\"jsonrpc\":\"2.0\",\"id\":").append(1000 + i).append(",\"method\":\"tools/list\"}\n");
        }
        stdio.send(early.toString());
        stdio.answerTo(1299);
        stdio.send(StdioPipe.INIT);
        assertThat(stdio.answerTo(1)).contains("\"result\"", "protocolVersion");

        stdio.send(call(2));
        assertThat(stdio.answerTo(2)).contains("hello");
    }

    @Test
    void aLineThatIsJsonNullGetsAnInvalidRequestAndTheServerReadsOn() throws IOException {
        stdio.send(StdioPipe.INIT);
        stdio.answerTo(1);
        stdio.send("null\n");

        assertThat(stdio.answerTo(null)).contains("\"code\":-32600", "not one JSON-RPC message");
        stdio.send(call(2));
        assertThat(stdio.answerTo(2)).contains("hello");
    }
}
