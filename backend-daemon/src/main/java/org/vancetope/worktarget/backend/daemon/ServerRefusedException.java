package org.vancetope.worktarget.backend.daemon;

import java.io.IOException;

/**
 * The server refused the client in a way that retrying cannot fix: the upgrade was answered with an
 * HTTP error (401 for a missing or rejected token), or the connection was closed with a 44xx code
 * ({@code forbidden} 4403, {@code superseded} 4409, unsupported version 4426, a bad hello 4400).
 * {@link WorkTargetClient#terminated()} completes with it, and the client stops reconnecting. An HTTP
 * error from something that is not a WorkTarget server (another service on that port, e.g. the admin
 * API of {@code serve}) is one too, told apart by {@link #fromWorkTargetServer()}.
 */
public final class ServerRefusedException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The HTTP status or WebSocket close code. */
    private final int status;
    /** Whether the answer came from a WorkTarget server. */
    private final boolean workTargetServer;

    /**
     * Creates the exception for a refusal by a WorkTarget server.
     *
     * @param status the HTTP status (4xx) or WebSocket close code (44xx)
     * @param message what the server said and what to do next
     */
    public ServerRefusedException(int status, String message) {
        this(status, message, true);
    }

    /**
     * Creates the exception.
     *
     * @param status the HTTP status (4xx) or WebSocket close code (44xx)
     * @param message what the server said and what to do next
     * @param workTargetServer false when the answer did not come from a WorkTarget server (a wrong port)
     */
    public ServerRefusedException(int status, String message, boolean workTargetServer) {
        super(message);
        this.status = status;
        this.workTargetServer = workTargetServer;
    }

    /**
     * Whether a WorkTarget server refused: false when the HTTP answer lacked the header every WorkTarget
     * server's refusal carries, so the URI most likely points at another service (a wrong port).
     *
     * @return true for a refusal by a WorkTarget server
     */
    public boolean fromWorkTargetServer() {
        return workTargetServer;
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
