package org.vancetope.worktarget.backend.daemon.internal;

import io.netty.handler.codec.PrematureChannelClosureException;
import java.io.IOException;
import javax.net.ssl.SSLException;

/**
 * How the server logs a failure of a connection. A failure that a peer can cause at will (a reset, a
 * broken pipe, a TLS record that is not TLS, anything before the peer authenticated) must not cost
 * more than one short line at DEBUG: otherwise anyone who can open a TCP connection can fill the disk.
 * Only an unexpected failure on an authenticated connection is worth a WARN with its stack trace.
 */
public final class PeerFailures {
    /** The longest description {@link #brief(Throwable)} gives (peer-controlled text is cut here). */
    public static final int MAX_BRIEF = 200;

    private PeerFailures() {
    }

    /**
     * Whether a failure comes from the network or the peer rather than from this code: an
     * {@link IOException} (reset, broken pipe, closed channel), an {@link SSLException} or a
     * {@link PrematureChannelClosureException} (closed in the middle of a request) anywhere in the
     * cause chain.
     *
     * @param t the failure
     * @return true for a network or peer failure
     */
    public static boolean isNetwork(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof IOException || c instanceof SSLException || c instanceof PrematureChannelClosureException) {
                return true;
            }
        }
        return false;
    }

    /**
     * One line for a log: the innermost cause's class and message, without control characters, at
     * most {@link #MAX_BRIEF} characters.
     *
     * @param t the failure
     * @return e.g. {@code "SocketException: Connection reset"}
     */
    public static String brief(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String text = root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
        StringBuilder b = new StringBuilder(Math.min(text.length(), MAX_BRIEF));
        for (int i = 0; i < text.length() && b.length() < MAX_BRIEF; i++) {
            char c = text.charAt(i);
            b.append(Character.isISOControl(c) || c == '\u2028' || c == '\u2029' ? ' ' : c);
        }
        if (text.length() > MAX_BRIEF) {
            b.setLength(MAX_BRIEF - 1);
            b.append('…');
        }
        return b.toString();
    }
}
