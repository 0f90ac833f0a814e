package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
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
        return pump(text, fileCap, chunk, name, Files.newByteChannel(dir.resolve(name), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE));
    }

    private StreamCapture pump(String text, long fileCap, int chunk, String name, WritableByteChannel file) {
        StreamCapture c = new StreamCapture(name, file, fileCap, CAP, Clock.systemUTC());
        c.pump(new ChunkedInput(text.getBytes(StandardCharsets.UTF_8), chunk));
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
        assertThat(c.fileCut()).isEqualTo(StreamCapture.Cut.CAP);
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

    /** A file that takes {@code room} bytes, then fails every write with the given message. */
    static final class FailingChannel implements WritableByteChannel {
        final ByteArrayOutputStream written = new ByteArrayOutputStream();
        private final int room;
        private final String message;
        private boolean open = true;

        FailingChannel(int room, String message) {
            this.room = room;
            this.message = message;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            int take = Math.min(src.remaining(), room - written.size());
            if (take == 0) {
                throw new IOException(message);
            }
            byte[] b = new byte[take];
            src.get(b);
            written.write(b, 0, take);
            return take;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            open = false;
        }
    }

    @Test
    void aFullDiskIsRecordedAsDiskFullNotAsTheCap() {
        String t = text(5_000);
        FailingChannel disk = new FailingChannel(1_000, "No space left on device");

        StreamCapture c = pump(t, 1 << 20, 512, "full", disk);

        assertThat(c.fileCut()).isEqualTo(StreamCapture.Cut.DISK_FULL);
        assertThat(c.fileCapped()).as("the file is incomplete").isTrue();
        assertThat(c.fileBytes()).isEqualTo(1_000).isEqualTo(disk.written.size());
        assertThat(c.render(CAP).text()).endsWith(t.substring(t.length() - 50));
        assertThat(disk.isOpen()).as("the file is closed at the end of the stream").isFalse();
    }

    @Test
    void aUsedUpQuotaCountsAsAFullDisk() {
        StreamCapture c = pump(text(5_000), 1 << 20, 512, "quota", new FailingChannel(100, "Disk quota exceeded"));

        assertThat(c.fileCut()).isEqualTo(StreamCapture.Cut.DISK_FULL);
    }

    @Test
    void anotherWriteErrorIsRecordedAsAWriteErrorWithItsText() {
        StreamCapture c = pump(text(5_000), 1 << 20, 512, "eio", new FailingChannel(300, "Input/output error"));

        assertThat(c.fileCut()).isEqualTo(StreamCapture.Cut.WRITE_ERROR);
        assertThat(c.cutDetail()).isEqualTo("Input/output error");
        assertThat(c.fileBytes()).isEqualTo(300);
    }

    @Test
    void aFileThatTookTheWholeStreamIsNotCut() throws IOException {
        StreamCapture c = pump(text(5_000), 1 << 20, 512);

        assertThat(c.fileCut()).isNull();
        assertThat(c.fileCapped()).isFalse();
        assertThat(c.fileBytes()).isEqualTo(5_000);
    }

    @Test
    void outputAfterTheFileWasClosedStaysInMemoryOnly() throws IOException {
        FailingChannel file = new FailingChannel(1 << 20, "unused");
        StreamCapture c = new StreamCapture("closed", file, 1 << 20, CAP, Clock.systemUTC());
        c.closeFile();

        c.pump(new java.io.ByteArrayInputStream("after close\n".getBytes(StandardCharsets.UTF_8)));

        assertThat(file.written.size()).isZero();
        assertThat(c.fileCut()).as("closing is not a cut").isNull();
        assertThat(c.render(CAP).text()).isEqualTo("after close\n");
    }
}
