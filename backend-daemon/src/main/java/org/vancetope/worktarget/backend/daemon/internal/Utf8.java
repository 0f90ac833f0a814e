package org.vancetope.worktarget.backend.daemon.internal;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;

/**
 * The UTF-8 check of text frames that RFC 6455 §8.1 requires (an invalid text frame fails the
 * connection with close code 1007). It replaces Netty's per-byte validator in the pipeline: frames
 * of this protocol are almost always ASCII (JSON with base64 payloads), so the check first tests 32
 * bytes (then eight) at a time for a high bit and only walks the bytes of a part that has one.
 *
 * <p>Strict per RFC 3629: no overlong forms, no surrogates (U+D800–U+DFFF), nothing above U+10FFFF,
 * no truncated sequence at the end.
 */
public final class Utf8 {
    /** Close code 1007: the payload is not consistent with the frame type (invalid UTF-8). */
    public static final int CLOSE_INVALID_PAYLOAD = 1007;

    private static final long HIGH_BITS = 0x8080808080808080L;

    private Utf8() {
    }

    /**
     * Whether the readable bytes of a buffer are well-formed UTF-8; the buffer's indices do not move.
     *
     * @param buf the buffer
     * @return true when valid (an empty buffer is valid)
     */
    public static boolean isValid(ByteBuf buf) {
        // absolute ByteBuffer reads on the buffer's memory (a composite is merged once): no per-read index
        // and reference-count checks of ByteBuf
        ByteBuffer b = buf.nioBuffer();
        int i = b.position();
        int end = b.limit();
        while (i < end) {
            if (end - i >= 32 && ((b.getLong(i) | b.getLong(i + 8) | b.getLong(i + 16) | b.getLong(i + 24))
                    & HIGH_BITS) == 0) {
                i += 32;
            } else if (end - i >= 8 && (b.getLong(i) & HIGH_BITS) == 0) {
                i += 8;
            } else if (b.get(i) >= 0) {
                i++;
            } else {
                i = sequenceEnd(b, i, end);
                if (i < 0) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Checks one multi-byte sequence starting at {@code i}; returns the index after it, or -1. */
    private static int sequenceEnd(ByteBuffer buf, int i, int end) {
        int b0 = buf.get(i) & 0xFF;
        int len;
        int lo = 0x80;
        int hi = 0xBF;
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            len = 2;
        } else if (b0 >= 0xE0 && b0 <= 0xEF) {
            len = 3;
            if (b0 == 0xE0) {
                lo = 0xA0;          // overlong
            } else if (b0 == 0xED) {
                hi = 0x9F;          // surrogates
            }
        } else if (b0 >= 0xF0 && b0 <= 0xF4) {
            len = 4;
            if (b0 == 0xF0) {
                lo = 0x90;          // overlong
            } else if (b0 == 0xF4) {
                hi = 0x8F;          // above U+10FFFF
            }
        } else {
            return -1;              // a continuation byte, C0/C1 (overlong) or F5..FF
        }
        if (i + len > end) {
            return -1;
        }
        int b1 = buf.get(i + 1) & 0xFF;
        if (b1 < lo || b1 > hi) {
            return -1;
        }
        for (int k = 2; k < len; k++) {
            int b = buf.get(i + k) & 0xFF;
            if (b < 0x80 || b > 0xBF) {
                return -1;
            }
        }
        return i + len;
    }
}
