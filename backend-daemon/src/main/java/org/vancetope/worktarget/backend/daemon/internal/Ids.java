package org.vancetope.worktarget.backend.daemon.internal;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * Unguessable ids: a prefix plus 128 bits from a {@link SecureRandom}, hex-encoded. A peer that sees
 * its own ids learns nothing about the ids of other connections.
 */
public final class Ids {
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private final SecureRandom random;

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
        random.nextBytes(b);
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
