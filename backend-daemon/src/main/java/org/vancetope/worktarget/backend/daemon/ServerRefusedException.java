package org.vancetope.worktarget.backend.daemon;

import java.io.IOException;

/**
 * The server refused the client in a way that retrying cannot fix: the upgrade was answered with an
 * HTTP error (401 for a missing or rejected token), or the connection was closed with a 44xx code
 * ({@code forbidden} 4403, {@code superseded} 4409, unsupported version 4426, a bad hello 4400).
 * {@link WorkTargetClient#terminated()} completes with it, and the client stops reconnecting.
 */
public final class ServerRefusedException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The HTTP status or WebSocket close code. */
    private final int status;

    /**
     * Creates the exception.
     *
     * @param status the HTTP status (4xx) or WebSocket close code (44xx)
     * @param message what the server said and what to do next
     */
    public ServerRefusedException(int status, String message) {
        super(message);
        this.status = status;
    }

    /**
     * The HTTP status (e.g. 401) or WebSocket close code (e.g. 4403) of the refusal.
     *
     * @return the status
     */
    public int status() {
        return status;
    }
}
