package org.vancetope.worktarget.backend.daemon.internal;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * Unguessable ids: a prefix plus 128 bits from a {@link SecureRandom}, hex-encoded. A peer that sees
 * its own ids learns nothing about the ids of other connections. Random bytes are drawn in blocks of
 * 4 KiB (each byte used once), so an id costs a fraction of a {@code SecureRandom} call. Thread-safe.
 */
public final class Ids {
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final int BLOCK = 4096;
    private final SecureRandom random;
    private final byte[] block = new byte[BLOCK];
    private int used = BLOCK;

    /** An id source on the platform's DRBG (or the default {@link SecureRandom} where there is none). */
    public Ids() {
        SecureRandom r;
        try {
            r = SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            r = new SecureRandom();
        }
        this.random = r;
    }

    /**
     * A new id.
     *
     * @param prefix e.g. {@code "dt-"}
     * @return the prefix followed by 32 hex digits
     */
    public String next(String prefix) {
        byte[] b = new byte[16];
        synchronized (block) {
            if (used == BLOCK) {
                random.nextBytes(block);
                used = 0;
            }
            System.arraycopy(block, used, b, 0, 16);
            java.util.Arrays.fill(block, used, used + 16, (byte) 0);
            used += 16;
        }
        char[] out = new char[prefix.length() + 32];
        prefix.getChars(0, prefix.length(), out, 0);
        int j = prefix.length();
        for (byte x : b) {
            out[j++] = HEX[(x >> 4) & 0xf];
            out[j++] = HEX[x & 0xf];
        }
        return new String(out);
    }
}
