package org.vancetope.worktarget.mcp;

import java.util.Objects;
import java.util.Optional;
import org.vancetope.worktarget.spi.AuthPrincipal;

/**
 * Who calls a tool over MCP: the MCP session and, over HTTP, the principal its bearer token maps to.
 *
 * @param sessionId the MCP session id (one per connected MCP client)
 * @param principal the authenticated principal over HTTP; null over stdio (the local user)
 */
public record McpCaller(String sessionId, AuthPrincipal principal) {

    /**
     * Validates the session id.
     *
     * @param sessionId the MCP session id (one per connected MCP client)
     * @param principal the authenticated principal over HTTP; null over stdio (the local user)
     */
    public McpCaller {
        Objects.requireNonNull(sessionId, "sessionId");
    }

    /**
     * The principal, when the caller came over HTTP.
     *
     * @return the principal, empty over stdio
     */
    public Optional<AuthPrincipal> authenticated() {
        return Optional.ofNullable(principal);
    }
}
