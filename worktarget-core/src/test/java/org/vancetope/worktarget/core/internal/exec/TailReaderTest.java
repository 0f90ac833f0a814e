package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TailReaderTest {
    @TempDir
    Path dir;

    private TailReader.Tail lastLines(String content, int n, int maxBytes) throws IOException {
        Path f = Files.writeString(dir.resolve("f"), content, StandardCharsets.UTF_8);
        try (SeekableByteChannel ch = Files.newByteChannel(f)) {
            return TailReader.lastLines(ch, n, maxBytes);
        }
    }

    @Test
    void lastLinesIgnoreTheFinalNewline() throws IOException {
        TailReader.Tail t = lastLines("a\nb\nc\n", 2, 1_000);
        assertThat(t.lines()).containsExactly("b", "c");
        assertThat(t.truncated()).isFalse();
    }

    @Test
    void fewerLinesThanAskedReturnsAll() throws IOException {
        assertThat(lastLines("a\nb", 10, 1_000).lines()).containsExactly("a", "b");
    }

    @Test
    void emptyFileHasNoLines() throws IOException {
        assertThat(lastLines("", 3, 1_000).lines()).isEmpty();
    }

    @Test
    void linesAcrossBlockBoundariesAreWhole() throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 20_000; i++) {
            sb.append("line ").append(i).append('\n');
        }
        TailReader.Tail t = lastLines(sb.toString(), 3, 100_000);
        assertThat(t.lines()).containsExactly("line 19997", "line 19998", "line 19999");
    }

    @Test
    void crlfTerminatorsAreStripped() throws IOException {
        assertThat(lastLines("a\r\nb\r\n", 5, 1_000).lines()).containsExactly("a", "b");
    }

    @Test
    void aHugeLastLineIsCutAtTheByteBoundAndMarked() throws IOException {
        TailReader.Tail t = lastLines("x".repeat(100_000), 2, 1_000);
        assertThat(t.truncated()).isTrue();
        assertThat(t.lines()).isEqualTo(List.of("x".repeat(1_000)));
    }

    @Test
    void multibyteCharactersSurvive() throws IOException {
        assertThat(lastLines("ä\nöü\n", 1, 1_000).lines()).containsExactly("öü");
    }
}
