package org.vancetope.worktarget.transfer.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Base64;

/**
 * Standard base64 with padding (RFC 4648 §4) for chunk payloads, between byte arrays and
 * {@link ByteBuffer}s of either kind (heap or direct), without intermediate copies.
 *
 * <p>Why not simply {@link java.util.Base64}: on Java 17 the JDK's codec runs as plain Java on x86
 * with AVX2 (its vectorised intrinsics for such CPUs arrived in Java 21) and costs about 1.7 s per GiB
 * each way on the reference machines, more than the disk write and the SHA-256 of the same bytes.
 * This class uses table lookups that handle two characters (decoding) or twelve bits (encoding) at a
 * time and 8-byte reads and writes, about twice the JDK's speed there. From Java 21 on it delegates
 * to the JDK, whose intrinsics are several times faster again.
 *
 * <p>Decoding is exactly as strict as {@link Base64#getDecoder()} for input whose length is a multiple
 * of four: only the 64 characters of the standard alphabet, {@code =} only as the last one or two
 * characters; the unused bits of a padded last group are ignored, as the JDK does. Thread-safe,
 * stateless.
 */
public final class Base64Codec {
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final byte[] ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /** A character's six bits, or -1. */
    private static final int[] VALUE = new int[256];
    /** Two characters (first in the high byte) to their twelve bits, or -1 when either is not in the alphabet. */
    private static final int[] PAIR = new int[1 << 16];
    /** Twelve bits to their two characters (first in the high byte). */
    private static final int[] CHARS = new int[1 << 12];
    /** Whether the JDK's codec is the faster one on this runtime. */
    private static final boolean JDK = Runtime.version().feature() >= 21;

    static {
        Arrays.fill(VALUE, -1);
        for (int i = 0; i < 64; i++) {
            VALUE[ALPHABET[i]] = i;
        }
        for (int i = 0; i < PAIR.length; i++) {
            int hi = VALUE[i >>> 8];
            int lo = VALUE[i & 0xFF];
            PAIR[i] = hi < 0 || lo < 0 ? -1 : hi << 6 | lo;
        }
        for (int i = 0; i < CHARS.length; i++) {
            CHARS[i] = ALPHABET[i >>> 6] << 8 | ALPHABET[i & 63];
        }
    }

    private Base64Codec() {
    }

    /**
     * The length of the base64 of {@code n} bytes, padding included.
     *
     * @param n bytes
     * @return characters
     */
    public static int encodedLength(int n) {
        return 4 * ((n + 2) / 3);
    }

    /**
     * Writes the base64 of {@code src} at {@code dst}'s position and advances it.
     *
     * @param src the bytes
     * @param dst where to write; its byte order does not matter
     * @throws java.nio.BufferOverflowException when {@code dst} has less than {@link #encodedLength} room
     */
    public static void encode(byte[] src, ByteBuffer dst) {
        int n = encodedLength(src.length);
        if (dst.remaining() < n) {
            throw new java.nio.BufferOverflowException();
        }
        if (JDK) {
            encodeJdk(src, dst);
        } else {
            encodePortable(src, dst);
        }
    }

    /**
     * Decodes {@code src[from, to)} (absolute indices; the position does not move) into a new array of
     * exactly the decoded size.
     *
     * @param src the characters, heap or direct
     * @param from the first character
     * @param to after the last character
     * @return the bytes, or {@code null} when the range is not valid padded base64
     */
    public static byte[] decode(ByteBuffer src, int from, int to) {
        return JDK ? decodeJdk(src, from, to) : decodePortable(src, from, to);
    }

    // ------------------------------------------------------------------ the JDK's codec (Java 21 on)

    static void encodeJdk(byte[] src, ByteBuffer dst) {
        dst.put(Base64.getEncoder().encode(src));
    }

    static byte[] decodeJdk(ByteBuffer src, int from, int to) {
        if ((to - from) % 4 != 0) {
            return null;            // the JDK would accept unpadded input; this codec never does
        }
        try {
            ByteBuffer out = Base64.getDecoder().decode(src.duplicate().limit(to).position(from));
            return out.remaining() == out.array().length ? out.array()
                    : Arrays.copyOfRange(out.array(), out.position(), out.limit());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------ the portable codec (Java 17 to 20)

    static void encodePortable(byte[] src, ByteBuffer dst) {
        ByteBuffer d = dst.duplicate().order(ByteOrder.BIG_ENDIAN);
        int o = dst.position();
        int i = 0;
        int end = src.length;
        // six bytes in, eight characters out, through one 8-byte read and one 8-byte write
        while (end - i >= 8) {
            long x = (long) LONG_BE.get(src, i);
            d.putLong(o, (long) CHARS[(int) (x >>> 52) & 0xFFF] << 48
                    | (long) CHARS[(int) (x >>> 40) & 0xFFF] << 32
                    | (long) CHARS[(int) (x >>> 28) & 0xFFF] << 16
                    | CHARS[(int) (x >>> 16) & 0xFFF]);
            i += 6;
            o += 8;
        }
        while (end - i >= 3) {
            int x = (src[i] & 0xFF) << 16 | (src[i + 1] & 0xFF) << 8 | src[i + 2] & 0xFF;
            d.putInt(o, CHARS[x >>> 12] << 16 | CHARS[x & 0xFFF]);
            i += 3;
            o += 4;
        }
        int rest = end - i;
        if (rest > 0) {
            int x = (src[i] & 0xFF) << 16 | (rest == 2 ? (src[i + 1] & 0xFF) << 8 : 0);
            d.put(o, ALPHABET[x >>> 18]);
            d.put(o + 1, ALPHABET[(x >>> 12) & 63]);
            d.put(o + 2, rest == 2 ? ALPHABET[(x >>> 6) & 63] : (byte) '=');
            d.put(o + 3, (byte) '=');
            o += 4;
        }
        dst.position(o);
    }

    static byte[] decodePortable(ByteBuffer source, int from, int to) {
        int length = to - from;
        if (length < 0 || length % 4 != 0) {
            return null;
        }
        if (length == 0) {
            return new byte[0];
        }
        ByteBuffer src = source.order() == ByteOrder.BIG_ENDIAN ? source : source.duplicate().order(ByteOrder.BIG_ENDIAN);
        int pad = src.get(to - 1) != '=' ? 0 : src.get(to - 2) != '=' ? 1 : 2;
        byte[] out = new byte[length / 4 * 3 - pad];
        int body = to - 4;                  // the last group is decoded on its own: it may be padded
        int i = from;
        int o = 0;
        // eight characters in, six bytes out; the 8-byte write runs two bytes ahead, so it stops early
        int fastOut = out.length - 8;
        while (body - i >= 8 && o <= fastOut) {
            long x = src.getLong(i);
            int a = PAIR[(int) (x >>> 48)] << 12 | PAIR[(int) (x >>> 32) & 0xFFFF];
            int b = PAIR[(int) (x >>> 16) & 0xFFFF] << 12 | PAIR[(int) x & 0xFFFF];
            if ((a | b) < 0) {
                return null;
            }
            LONG_BE.set(out, o, (long) a << 40 | (long) b << 16);
            i += 8;
            o += 6;
        }
        while (body - i >= 4) {
            int x = PAIR[(src.get(i) & 0xFF) << 8 | src.get(i + 1) & 0xFF] << 12
                    | PAIR[(src.get(i + 2) & 0xFF) << 8 | src.get(i + 3) & 0xFF];
            if (x < 0) {
                return null;
            }
            out[o] = (byte) (x >>> 16);
            out[o + 1] = (byte) (x >>> 8);
            out[o + 2] = (byte) x;
            i += 4;
            o += 3;
        }
        // the last group: "xxxx", "xxx=" or "xx=="
        int c0 = VALUE[src.get(i) & 0xFF];
        int c1 = VALUE[src.get(i + 1) & 0xFF];
        int c2 = pad == 2 ? 0 : VALUE[src.get(i + 2) & 0xFF];
        int c3 = pad >= 1 ? 0 : VALUE[src.get(i + 3) & 0xFF];
        if ((c0 | c1 | c2 | c3) < 0) {
            return null;
        }
        int x = c0 << 18 | c1 << 12 | c2 << 6 | c3;
        out[o] = (byte) (x >>> 16);
        if (pad < 2) {
            out[o + 1] = (byte) (x >>> 8);
        }
        if (pad == 0) {
            out[o + 2] = (byte) x;
        }
        return out;
    }
}
