package org.vancetope.worktarget.core.internal.exec;

import java.io.InputStream;

/** An input stream over bytes that hands out at most a given number of them per read, as a pipe may. */
final class ChunkedInput extends InputStream {
    private final byte[] bytes;
    private final int chunk;
    private int pos;

    /**
     * The stream.
     *
     * @param bytes what it holds
     * @param chunk the most bytes one read returns, so that multibyte characters and sequences straddle reads
     */
    ChunkedInput(byte[] bytes, int chunk) {
        this.bytes = bytes;
        this.chunk = chunk;
    }

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
}
