package org.vancetope.worktarget.backend.daemon.internal;

import java.net.BindException;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.Locale;

/**
 * Why a listening socket could not be bound, in words that name the address and the likely cause:
 * Netty reports a port in use as a bare {@code Address already in use} and a host name that does not
 * resolve as an exception without a message.
 */
public final class BindFailures {
    private BindFailures() {
    }

    /**
     * A {@link BindException} whose message names the address, the cause and what to do (a command line
     * tells it apart from a server's other start-up failures by its type).
     *
     * @param what what was to listen, e.g. {@code "the WorkTarget server"}
     * @param host the interface asked for
     * @param port the port asked for
     * @param failure what the bind threw
     * @return the exception, with {@code failure} as its cause
     */
    public static BindException describe(String what, String host, int port, Throwable failure) {
        BindException e = new BindException("Could not bind " + what + " on " + host + ":" + port + ": "
                + cause(host, port, failure));
        e.initCause(failure);
        return e;
    }

    private static String cause(String host, int port, Throwable failure) {
        for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String m = c.getMessage() == null ? "" : c.getMessage().toLowerCase(Locale.ROOT);
            if (c instanceof UnresolvedAddressException || c instanceof UnknownHostException) {
                return "the host name '" + host + "' does not resolve to an address. Give an address of this "
                        + "machine (127.0.0.1, 0.0.0.0 for every interface) or a name it resolves.";
            }
            if (c instanceof BindException && m.contains("in use")) {
                return "port " + port + " is already in use (another server, or an earlier run that still "
                        + "listens). Stop that process or choose another port.";
            }
            if (c instanceof BindException && m.contains("assign")) {
                return host + " is not an address of this machine. Give one of its addresses, or 0.0.0.0 for every "
                        + "interface.";
            }
            if (c instanceof SocketException && m.contains("permission")) {
                return "this user may not listen on port " + port + " (ports below 1024 need privileges). Choose a "
                        + "port of 1024 or more.";
            }
        }
        return failure.getClass().getSimpleName() + (failure.getMessage() == null ? "" : " " + failure.getMessage())
                + ". Check the host and the port.";
    }
}
