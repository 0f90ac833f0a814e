package org.vancetope.worktarget.spi;

import java.util.Optional;

/**
 * Checks the bearer token of a connecting client before the WebSocket upgrade.
 * Integrators plug JWT, mTLS-derived identities or their user store in here.
 */
@FunctionalInterface
public interface Authenticator {

    /**
     * Maps a token to a principal.
     *
     * @param bearerToken the token from {@code Authorization: Bearer …}; never null, may be empty
     * @return the principal, or empty to refuse (HTTP 401)
     */
    Optional<AuthPrincipal> authenticate(String bearerToken);
}
