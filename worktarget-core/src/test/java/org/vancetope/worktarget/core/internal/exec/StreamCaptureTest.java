package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StreamCaptureTest {
    static final int CAP = 100;

    @TempDir
    Path dir;
    int files;

    private StreamCapture pump(String text, long fileCap, int chunk) throws IOException {
        String name = "f" + files++;
        StreamCapture c = new StreamCapture(name, Files.newByteChannel(dir.resolve(name), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE), fileCap, CAP, Clock.systemUTC());
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        // Hands out at most 'chunk' bytes per read, so multibyte characters straddle reads.
        c.pump(new InputStream() {
            int pos;

            @Override
            public int read() {
                return pos < bytes.length ? bytes[pos++] & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (pos >= bytes.length) {
                    return -1;
                }
                int n = Math.min(Math.min(len, chunk), bytes.length - pos);
                System.arraycopy(bytes, pos, b, off, n);
                pos += n;
                return n;
            }
        });
        return c;
    }

    private static String text(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(i % 7 == 6 ? '\n' : (char) ('a' + i % 26));
        }
        return sb.toString();
    }

    @Test
    void renderEqualsHeadTailOfTheWholeTextAroundTheCap() throws IOException {
        for (int n : new int[] {0, 1, CAP - 1, CAP, CAP + 1, 2 * CAP, 2 * CAP + 1, 10_000}) {
            String t = text(n);
            assertThat(pump(t, 1 << 20, 8192).render(CAP)).as("n=%d", n).isEqualTo(HeadTail.render(t, CAP));
        }
    }

    @Test
    void multibyteCharactersSplitAcrossReadsDecodeWhole() throws IOException {
        String t = "äöü€😀".repeat(300);
        StreamCapture c = pump(t, 1 << 20, 3);
        assertThat(c.render(CAP)).isEqualTo(HeadTail.render(t, CAP));
        assertThat(Files.readString(dir.resolve(c.name()))).isEqualTo(t);
    }

    @Test
    void fileIsCutAtItsCapWhileTheTailStaysTrue() throws IOException {
        String t = text(5_000);
        StreamCapture c = pump(t, 1_000, 512);
        assertThat(Files.size(dir.resolve(c.name()))).isEqualTo(1_000);
        assertThat(c.fileCapped()).isTrue();
        assertThat(c.render(CAP).text()).endsWith(t.substring(t.length() - 50));
    }

    @Test
    void inMemoryTailLinesAreTheLastLines() throws IOException {
        StreamCapture c = pump("one\ntwo\nthree\n".repeat(100), 10, 8192);
        assertThat(c.tailLines(2).lines()).containsExactly("two", "three");
    }

    @Test
    void emptyStreamHasNoOutputAndNoLastOutputTime() throws IOException {
        StreamCapture c = pump("", 100, 10);
        assertThat(c.render(CAP).text()).isEmpty();
        assertThat(c.lastOutputAt()).isNull();
    }
}
