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
 * Over stdio every message reaches the client as one write of the whole line, its newline included:
 * {@code System.out} passes each write on at once, so a newline written on its own would be a second system
 * call and wake the client a second time for a line it could not use before.
 */
class StdioFramingTest {
    private LocalStdioServer server;
    private StdioPipe stdio;

    @BeforeEach
    void serve(@TempDir Path tmp) throws IOException {
        Files.writeString(tmp.resolve("a.txt"), "hello\n".repeat(2000));
        server = new LocalStdioServer(tmp);
        stdio = server.stdio;
    }

    @AfterEach
    void close() throws IOException {
        server.close();
    }

    @Test
    void eachMessageIsWrittenWholeWithItsNewlineInOneWrite() throws IOException {
        stdio.send(StdioPipe.INIT);
        stdio.answerTo(1);
        stdio.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"file_read\","
                + "\"arguments\":{\"path\":\"a.txt\"}}}\n");
        stdio.answerTo(2);
        stdio.send("not json\n");
        stdio.answerTo(null);

        assertThat(stdio.writes()).hasSize(3).allSatisfy(w -> {
            assertThat(w).startsWith("{").endsWith("}\n");
            assertThat(w.indexOf('\n')).isEqualTo(w.length() - 1);
        });
    }
}
