package org.vancetope.worktarget.spi;

import java.util.Objects;

/**
 * The routing key of a session's client (its "foot"): the CLIENT target of every process of the
 * session.
 *
 * @param tenant the tenant
 * @param sessionId the session
 */
public record SessionKey(String tenant, String sessionId) implements PeerKey {

    /**
     * Validates.
     *
     * @param tenant the tenant
     * @param sessionId the session
     */
    public SessionKey {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(sessionId, "sessionId");
    }

    @Override
    public String describe() {
        return "the client of session '" + sessionId + "'";
    }

    @Override
    public String toString() {
        return tenant + "/session:" + sessionId;
    }
}
