package org.vancetope.worktarget.backend.daemon.internal;

import java.net.InetSocketAddress;

/**
 * Whether a server that speaks without TLS listens where other machines reach it: then bearer tokens and file
 * contents travel in clear, and the operator should hear of it once, at start.
 */
public final class PlainTextExposure {
    private PlainTextExposure() {
    }

    /**
     * The warning for a server bound here without TLS, or null when only this machine reaches it.
     *
     * @param what the server, e.g. "The WorkTarget server"
     * @param bound the address it listens on
     * @param howToSecure what to do instead, one sentence
     * @return the warning, or null for a loopback address
     */
    public static String warning(String what, InetSocketAddress bound, String howToSecure) {
        if (bound.getAddress() != null && bound.getAddress().isLoopbackAddress()) {
            return null;
        }
        return what + " listens on " + bound.getHostString() + ":" + bound.getPort() + " without TLS, where other "
                + "machines reach it: bearer tokens and file contents travel in clear. " + howToSecure;
    }
}
