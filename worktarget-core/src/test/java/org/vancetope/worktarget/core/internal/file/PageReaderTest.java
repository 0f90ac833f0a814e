package org.vancetope.worktarget.core.internal.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;

/** What one {@code file_read} page costs: the bytes it reads, counted by the channel. */
class PageReaderTest {
    private static final int MIB = 1 << 20;
    private static final long TOTALS = 16L * MIB;

    /** An in-memory file that counts the bytes read from it. */
    private static final class CountingChannel implements SeekableByteChannel {
        private final byte[] data;
        private long pos;
        long read;

        CountingChannel(byte[] data) {
            this.data = data;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (pos >= data.length) {
                return -1;
            }
            int n = (int) Math.min(dst.remaining(), data.length - pos);
            dst.put(data, (int) pos, n);
            pos += n;
            read += n;
            return n;
        }

        @Override
        public int write(ByteBuffer src) {
            throw new UnsupportedOperationException();
        }

        @Override
        public long position() {
            return pos;
        }

        @Override
        public SeekableByteChannel position(long newPosition) {
            pos = newPosition;
            return this;
        }

        @Override
        public long size() {
            return data.length;
        }

        @Override
        public SeekableByteChannel truncate(long size) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    private static BasicFileAttributes attrs(long size, long mtime) {
        return new BasicFileAttributes() {
            @Override
            public FileTime lastModifiedTime() {
                return FileTime.fromMillis(mtime);
            }

            @Override
            public FileTime lastAccessTime() {
                return FileTime.fromMillis(mtime);
            }

            @Override
            public FileTime creationTime() {
                return FileTime.fromMillis(mtime);
            }

            @Override
            public boolean isRegularFile() {
                return true;
            }

            @Override
            public boolean isDirectory() {
                return false;
            }

            @Override
            public boolean isSymbolicLink() {
                return false;
            }

            @Override
            public boolean isOther() {
                return false;
            }

            @Override
            public long size() {
                return size;
            }

            @Override
            public Object fileKey() {
                return "inode-1";
            }
        };
    }

    /** {@code mib} MiB of numbered lines ("line N\n"). */
    private static byte[] text(int mib) {
        StringBuilder sb = new StringBuilder(mib * MIB + 100);
        for (int i = 1; sb.length() < mib * MIB; i++) {
            sb.append("line ").append(i).append('\n');
        }
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private static long lineOf(byte[] data, long offset) {
        long n = 1;
        for (int i = 0; i < offset; i++) {
            if (data[i] == '\n') {
                n++;
            }
        }
        return n;
    }

    @Test
    void aPageOfABigFileReadsAboutThePageNotTheFile() throws Exception {
        byte[] data = text(40);
        CountingChannel ch = new CountingChannel(data);
        PageReader.Page p = new PageReader().read(ch, attrs(data.length, 1), "/big", 1, Integer.MAX_VALUE, 8000,
                1 << 20, TOTALS);
        assertThat(p.content()).startsWith("line 1\nline 2\n");
        assertThat(p.totalsKnown()).isFalse();
        assertThat(ch.read).isLessThanOrEqualTo(128 * 1024);
    }

    @Test
    void aFileUpToTheTotalsBudgetIsCountedToItsEnd() throws Exception {
        byte[] data = text(2);
        CountingChannel ch = new CountingChannel(data);
        PageReader.Page p = new PageReader().read(ch, attrs(data.length, 1), "/small", 1, 5, 8000, 1 << 20, TOTALS);
        assertThat(p.totalsKnown()).isTrue();
        assertThat(p.totalLines()).isEqualTo(lineOf(data, data.length) - 1);
        assertThat(p.totalChars()).isEqualTo(data.length);
        assertThat(ch.read).isEqualTo(data.length);
    }

    @Test
    void theNextPageOfABigFileStartsAtALineStartSeenBefore() throws Exception {
        byte[] data = text(40);
        PageReader pages = new PageReader();
        long middle = lineOf(data, data.length / 2);
        CountingChannel first = new CountingChannel(data);
        PageReader.Page p1 = pages.read(first, attrs(data.length, 1), "/big", (int) middle, 100, 8000, 1 << 20, TOTALS);
        assertThat(p1.content()).startsWith("line " + middle + "\n");
        assertThat(first.read).isGreaterThan(data.length / 2 - MIB);
        CountingChannel next = new CountingChannel(data);
        PageReader.Page p2 = pages.read(next, attrs(data.length, 1), "/big", (int) middle + 100, 100, 8000, 1 << 20,
                TOTALS);
        assertThat(p2.content()).startsWith("line " + (middle + 100) + "\n");
        assertThat(next.read).isLessThanOrEqualTo(MIB + 256 * 1024);
    }

    @Test
    void aChangedFileDoesNotUseTheLineStartsOfItsOldVersion() throws Exception {
        byte[] data = text(8);
        PageReader pages = new PageReader();
        long late = lineOf(data, data.length - 1000);
        pages.read(new CountingChannel(data), attrs(data.length, 1), "/f", (int) late, 10, 8000, 1 << 20, 0);
        CountingChannel same = new CountingChannel(data);
        pages.read(same, attrs(data.length, 1), "/f", (int) late, 10, 8000, 1 << 20, 0);
        assertThat(same.read).isLessThanOrEqualTo(MIB + 256 * 1024);
        CountingChannel changed = new CountingChannel(data);
        PageReader.Page p = pages.read(changed, attrs(data.length, 2), "/f", (int) late, 10, 8000, 1 << 20, 0);
        assertThat(p.content()).startsWith("line " + late + "\n");
        assertThat(changed.read).isGreaterThan(data.length - MIB);   // a new modification time: from the top again
    }

    /** Random lines of ASCII, multi-byte UTF-8 and stray bytes that are not UTF-8, over several 64 KiB chunks. */
    private static byte[] mixed(long seed, boolean withStrayBytes) {
        java.util.Random rnd = new java.util.Random(seed);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[][] pieces = {"ab".getBytes(StandardCharsets.UTF_8), "\u00e9".getBytes(StandardCharsets.UTF_8),
                "\u20ac".getBytes(StandardCharsets.UTF_8), "\uD83D\uDE00".getBytes(StandardCharsets.UTF_8),
                "\uFFFD".getBytes(StandardCharsets.UTF_8), {'\n'}};
        byte[][] stray = {{(byte) 0xE9}, {(byte) 0xC3}, {(byte) 0xE2, (byte) 0x82}, {(byte) 0xFF}, {(byte) 0x80}};
        while (out.size() < 300_000) {
            byte[] b = withStrayBytes && rnd.nextInt(40) == 0 ? stray[rnd.nextInt(stray.length)]
                    : pieces[rnd.nextInt(pieces.length)];
            out.write(b, 0, b.length);
        }
        return out.toByteArray();
    }

    @Test
    void aPageShowsEveryByteThatIsNotUtf8AsStringDecodingDoesAndSaysItMetSome() throws Exception {
        for (long seed = 1; seed <= 20; seed++) {
            byte[] data = mixed(seed, true);
            String expected = new String(data, StandardCharsets.UTF_8);
            PageReader.Page p = new PageReader().read(new CountingChannel(data), null, "/m", 1, Integer.MAX_VALUE,
                    Integer.MAX_VALUE / 2, Long.MAX_VALUE, TOTALS);
            assertThat(p.content()).as("seed %d", seed).isEqualTo(expected);
            assertThat(p.totalChars()).as("seed %d", seed).isEqualTo(expected.length());
            assertThat(p.malformed()).as("seed %d", seed).isTrue();
        }
    }

    @Test
    void aPageOfUtf8TextWithTheReplacementCharacterItselfIsNotMarkedMalformed() throws Exception {
        byte[] data = mixed(7, false);
        PageReader.Page p = new PageReader().read(new CountingChannel(data), null, "/u", 1, Integer.MAX_VALUE,
                Integer.MAX_VALUE / 2, Long.MAX_VALUE, TOTALS);
        assertThat(p.content()).isEqualTo(new String(data, StandardCharsets.UTF_8)).contains("\uFFFD");
        assertThat(p.malformed()).isFalse();
    }
}
