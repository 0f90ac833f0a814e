package org.vancetope.worktarget.core.internal.transfer;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.regex.Pattern;

/** SHA-256 in the {@code sha256:<hex>} form of {@code transfer_init}. */
public final class Sha256 {
    /** The prefix of a hash. */
    public static final String PREFIX = "sha256:";
    private static final Pattern FORMAT = Pattern.compile("sha256:[0-9a-fA-F]{64}");
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final int BUFFER = 256 * 1024;
    private static final long DIRECT_THRESHOLD = 1024 * 1024;

    private Sha256() {
    }

    /**
     * A new digest.
     *
     * @return a SHA-256 digest
     */
    public static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /**
     * Whether a string is a well-formed {@code sha256:<64 hex digits>}.
     *
     * @param hash the string
     * @return true when well-formed
     */
    public static boolean isWellFormed(String hash) {
        return hash != null && FORMAT.matcher(hash).matches();
    }

    /**
     * Formats a digest.
     *
     * @param digest 32 bytes
     * @return {@code sha256:<lower-case hex>}
     */
    public static String format(byte[] digest) {
        StringBuilder sb = new StringBuilder(PREFIX.length() + digest.length * 2).append(PREFIX);
        for (byte b : digest) {
            sb.append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
        }
        return sb.toString();
    }

    /**
     * A file's size and hash, read in one pass.
     *
     * @param size the bytes hashed
     * @param hash {@code sha256:<hex>}
     */
    public record Summary(long size, String hash) {
    }

    /**
     * Hashes what remains of an open channel in one pass, from its position to its end; the position is
     * then at the end.
     *
     * @param in the channel (of a file opened through the confinement gate)
     * @return the size read and its hash
     * @throws IOException when it cannot be read
     */
    public static Summary of(SeekableByteChannel in) throws IOException {
        MessageDigest d = newDigest();
        long size = 0;
        // A big file is read into a direct buffer: the channel fills it without the JDK's extra copy
        // through a temporary direct buffer (about 1.5x the hash rate of a heap buffer on a 1 GiB file).
        ByteBuffer buf = in.size() > DIRECT_THRESHOLD ? ByteBuffer.allocateDirect(BUFFER) : ByteBuffer.allocate(BUFFER);
        while (in.read(buf) >= 0) {
            if (buf.position() > 0) {
                buf.flip();
                size += buf.remaining();
                d.update(buf);
                buf.clear();
            }
        }
        return new Summary(size, format(d.digest()));
    }

    /**
     * Feeds the next {@code length} bytes of a channel, from its position, into a digest (the kept
     * prefix of a resumed transfer, on either side).
     *
     * @param digest the digest to update
     * @param in the channel
     * @param length how many bytes to read
     * @throws EOFException when the channel ends first
     * @throws IOException when it cannot be read
     */
    public static void update(MessageDigest digest, SeekableByteChannel in, long length) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate((int) Math.min(BUFFER, Math.max(length, 1)));
        long left = length;
        while (left > 0) {
            buf.clear().limit((int) Math.min(buf.capacity(), left));
            int n = in.read(buf);
            if (n < 0) {
                throw new EOFException("ends " + left + " bytes short of " + length);
            }
            buf.flip();
            digest.update(buf);
            left -= n;
        }
    }
}
