package org.vancetope.worktarget.backend.daemon;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.vancetope.worktarget.backend.daemon.internal.Wire;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.Authenticator;

/**
 * The default {@link Authenticator} for simple deployments: a fixed table of bearer tokens, each
 * mapped to a principal (tenant, projects, user). Tokens are kept only as SHA-256 digests and looked
 * up by digest, so the lookup time does not depend on how much of a token matched.
 *
 * <pre>{@code
 * Authenticator auth = TokenAuthenticator.builder()
 *         .token("s3cret-daemon-token", new AuthPrincipal("build-box", "acme", Set.of("proj-research"), null))
 *         .build();
 * // or from a file:
 * // {"tokens":[{"token":"s3cret","subject":"build-box","tenant":"acme","projects":["proj-research"],"user":null}]}
 * Authenticator fromFile = TokenAuthenticator.fromJson(Path.of("tokens.json"));
 * }</pre>
 *
 * <p>It does not expire, rotate or revoke tokens at run time; integrators with such needs plug their
 * own {@link Authenticator} (JWT, mTLS, a user store).
 */
public final class TokenAuthenticator implements Authenticator {
    private final Map<String, AuthPrincipal> byDigest;

    private TokenAuthenticator(Map<String, AuthPrincipal> byDigest) {
        this.byDigest = Map.copyOf(byDigest);
    }

    /**
     * A new builder.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads a JSON token file: {@code {"tokens":[{"token","subject","tenant","projects":[…],"user"}…]}}.
     * {@code subject} defaults to the tenant, {@code projects} to none (a foot that only needs the
     * tenant), {@code "*"} grants every project of the tenant.
     *
     * @param file the file
     * @return the authenticator
     * @throws IOException when the file cannot be read
     * @throws IllegalArgumentException when the file is malformed, naming the entry
     */
    public static TokenAuthenticator fromJson(Path file) throws IOException {
        JsonNode root = Wire.mapper().readTree(Files.readString(file, StandardCharsets.UTF_8));
        JsonNode tokens = root == null ? null : root.get("tokens");
        if (tokens == null || !tokens.isArray()) {
            throw new IllegalArgumentException(file.getFileName() + ": expected {\"tokens\":[…]}");
        }
        Builder b = builder();
        int i = 0;
        for (JsonNode t : tokens) {
            String where = file.getFileName() + ": tokens[" + i++ + "]";
            String token = t.path("token").asText("");
            String tenant = t.path("tenant").asText("");
            if (token.isEmpty() || tenant.isEmpty()) {
                throw new IllegalArgumentException(where + " needs non-empty 'token' and 'tenant'");
            }
            Set<String> projects = new LinkedHashSet<>();
            t.path("projects").forEach(p -> projects.add(p.asText()));
            String user = t.hasNonNull("user") ? t.get("user").asText() : null;
            b.token(token, new AuthPrincipal(t.path("subject").asText(tenant), tenant, projects, user));
        }
        return b.build();
    }

    @Override
    public Optional<AuthPrincipal> authenticate(String bearerToken) {
        if (bearerToken == null || bearerToken.isEmpty()) {
            return Optional.empty();
        }
        return Optional.ofNullable(byDigest.get(digest(bearerToken)));
    }

    private static String digest(String token) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
            StringBuilder sb = new StringBuilder(64);
            for (byte x : d) {
                sb.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
            }
            return sb.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java platform", e);
        }
    }

    /** Collects tokens. */
    public static final class Builder {
        private final Map<String, AuthPrincipal> byDigest = new HashMap<>();

        private Builder() {
        }

        /**
         * Adds a token.
         *
         * @param token the secret, at least 8 characters
         * @param principal whom it identifies
         * @return this
         * @throws IllegalArgumentException for a short or duplicate token
         */
        public Builder token(String token, AuthPrincipal principal) {
            Objects.requireNonNull(token, "token");
            Objects.requireNonNull(principal, "principal");
            if (token.length() < 8) {
                throw new IllegalArgumentException("Tokens must be at least 8 characters (token of "
                        + principal.subject() + ")");
            }
            if (byDigest.putIfAbsent(digest(token), principal) != null) {
                throw new IllegalArgumentException("The same token is listed twice (second for " + principal.subject() + ")");
            }
            return this;
        }

        /**
         * Builds the authenticator.
         *
         * @return the authenticator
         */
        public TokenAuthenticator build() {
            return new TokenAuthenticator(byDigest);
        }
    }
}
