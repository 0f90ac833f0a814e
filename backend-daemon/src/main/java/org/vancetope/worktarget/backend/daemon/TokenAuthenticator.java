package org.vancetope.worktarget.backend.daemon;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.vancetope.worktarget.backend.daemon.internal.Wire;
import org.vancetope.worktarget.core.internal.Segments;
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
     * {@code token}, {@code tenant} and {@code projects} are required; {@code subject} defaults to the
     * tenant, {@code user} to none (daemons). {@code projects} lists the projects the token grants:
     * {@code ["*"]} grants every project of the tenant, {@code []} none (a foot that only needs the tenant).
     * The file is read strictly: an unknown key (a typo such as {@code "project"}), a missing key, a value
     * of the wrong type, an empty string or an empty {@code tokens} list is refused, naming the line and
     * the key; a token's value never appears in a message.
     *
     * @param file the file
     * @return the authenticator
     * @throws IOException when the file cannot be read
     * @throws IllegalArgumentException when the file is malformed, naming the file, the line and the key
     */
    public static TokenAuthenticator fromJson(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        try (JsonParser p = Wire.mapper().getFactory().createParser(text)) {
            return new TokenFile(file.toString(), p).read();
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            throw new IllegalArgumentException(file + (at == null ? "" : ", line " + at.getLineNr()) + ": not valid JSON ("
                    + e.getOriginalMessage().lines().findFirst().orElse("") + "). Fix the syntax; the format is "
                    + FORMAT + ".", e);
        }
    }

    /** The format of a token file, for messages. */
    private static final String FORMAT = "{\"tokens\":[{\"token\":…,\"subject\":…,\"tenant\":…,\"projects\":[…],"
            + "\"user\":…}]}";
    private static final List<String> ENTRY_KEYS = List.of("token", "subject", "tenant", "projects", "user");

    /** The strict reader of a token file, on Jackson's streaming parser so every message can name its line. */
    private static final class TokenFile {
        private final String name;
        private final JsonParser p;

        TokenFile(String name, JsonParser p) {
            this.name = name;
            this.p = p;
        }

        private IllegalArgumentException bad(String message) {
            return new IllegalArgumentException(name + ", line " + p.currentTokenLocation().getLineNr() + ": " + message);
        }

        TokenAuthenticator read() throws IOException {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw bad("expected an object " + FORMAT + ".");
            }
            Builder b = builder();
            boolean seen = false;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                if (!"tokens".equals(key)) {
                    throw bad("unknown key '" + key + "' at the top level" + suggestion(key, List.of("tokens"))
                            + ". The file has one key, \"tokens\".");
                }
                if (seen) {
                    throw bad("\"tokens\" is given twice; merge the two lists.");
                }
                seen = true;
                if (p.nextToken() != JsonToken.START_ARRAY) {
                    throw bad("\"tokens\" must be a list of entries, " + FORMAT + ".");
                }
                int i = 0;
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    entry(b, i++);
                }
                if (i == 0) {
                    throw bad("\"tokens\" is empty, so no daemon or foot could connect. Add an entry, e.g. "
                            + "{\"token\":\"<at least 8 characters>\",\"tenant\":\"acme\",\"projects\":[\"proj\"]}.");
                }
            }
            if (!seen) {
                throw bad("missing \"tokens\"; the format is " + FORMAT + ".");
            }
            if (p.nextToken() != null) {
                throw bad("unexpected text after the closing '}'; the file holds one object.");
            }
            return b.build();
        }

        private void entry(Builder b, int index) throws IOException {
            String where = "tokens[" + index + "]";
            if (p.currentToken() != JsonToken.START_OBJECT) {
                throw bad(where + " must be an object " + FORMAT.substring(FORMAT.indexOf("{\"token")));
            }
            int line = p.currentTokenLocation().getLineNr();
            Map<String, Object> values = new HashMap<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String key = p.currentName();
                if (!ENTRY_KEYS.contains(key)) {
                    throw bad("unknown key '" + key + "' in " + where + suggestion(key, ENTRY_KEYS) + ". The keys are "
                            + String.join(", ", ENTRY_KEYS) + ".");
                }
                if (values.containsKey(key)) {
                    throw bad("'" + key + "' is given twice in " + where + "; keep one.");
                }
                JsonToken t = p.nextToken();
                if ("projects".equals(key)) {
                    values.put(key, projects(where));
                } else if ("user".equals(key) && t == JsonToken.VALUE_NULL) {
                    values.put(key, NO_USER);
                } else if (t != JsonToken.VALUE_STRING) {
                    throw bad("'" + key + "' in " + where + " must be a string" + ("user".equals(key) ? " or null" : "")
                            + ", got " + describe(t) + ".");
                } else if (p.getText().isBlank()) {
                    throw bad("'" + key + "' in " + where + " is empty; give a value"
                            + ("user".equals(key) || "subject".equals(key) ? " or leave the key out." : "."));
                } else {
                    values.put(key, p.getText());
                }
            }
            for (String required : List.of("token", "tenant", "projects")) {
                if (!values.containsKey(required)) {
                    throw new IllegalArgumentException(name + ", line " + line + ": " + where + " has no '" + required
                            + "'" + ("projects".equals(required) ? "; list the projects the token grants, e.g. "
                            + "\"projects\":[\"proj\"] ([\"*\"] for every project of the tenant, [] for a foot that "
                            + "only needs the tenant)." : "; every entry needs 'token', 'tenant' and 'projects'."));
                }
            }
            String tenant = (String) values.get("tenant");
            Object user = values.get("user");
            @SuppressWarnings("unchecked")
            Set<String> projects = (Set<String>) values.get("projects");
            try {
                b.token((String) values.get("token"), new AuthPrincipal((String) values.getOrDefault("subject", tenant),
                        tenant, projects, user instanceof String u ? u : null));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(name + ", line " + line + ": " + where + ": " + e.getMessage() + ".", e);
            }
        }

        private Set<String> projects(String where) throws IOException {
            if (p.currentToken() != JsonToken.START_ARRAY) {
                throw bad("'projects' in " + where + " must be a list of project names, e.g. [\"proj\"], got "
                        + describe(p.currentToken()) + ".");
            }
            Set<String> projects = new LinkedHashSet<>();
            JsonToken t;
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                if (t != JsonToken.VALUE_STRING || p.getText().isBlank()) {
                    throw bad("'projects' in " + where + " must hold non-empty project names, got "
                            + (t == JsonToken.VALUE_STRING ? "an empty one" : describe(t)) + ".");
                }
                projects.add(p.getText());
            }
            return projects;
        }

        private static String describe(JsonToken t) {
            return switch (t) {
                case START_OBJECT -> "an object";
                case START_ARRAY -> "a list";
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
                case VALUE_TRUE, VALUE_FALSE -> "a boolean";
                case VALUE_NULL -> "null";
                case VALUE_STRING -> "a string";
                default -> String.valueOf(t);
            };
        }
    }

    /** The value of an explicit {@code "user": null}. */
    private static final Object NO_USER = new Object();

    /** {@code " (did you mean 'x'?)"} for a key one or two edits away from a known one, else empty. */
    private static String suggestion(String key, List<String> known) {
        for (String k : known) {
            if (editDistance(key, k) <= 2) {
                return " (did you mean '" + k + "'?)";
            }
        }
        return "";
    }

    private static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
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
         * @throws IllegalArgumentException for a short or duplicate token, or a tenant or project (other than
         *         {@code "*"}) that no connection could name: not a single safe name, as the handshake requires
         */
        public Builder token(String token, AuthPrincipal principal) {
            Objects.requireNonNull(token, "token");
            Objects.requireNonNull(principal, "principal");
            if (token.length() < 8) {
                throw new IllegalArgumentException("Tokens must be at least 8 characters (token of "
                        + principal.subject() + ")");
            }
            String unsafe = Segments.problem(principal.tenant());
            if (unsafe != null) {
                throw new IllegalArgumentException(unusable("tenant '" + principal.tenant() + "'", principal, unsafe));
            }
            for (String project : principal.projects()) {
                unsafe = Segments.ALL_PROJECTS.equals(project) ? null : Segments.problem(project);
                if (unsafe != null) {
                    throw new IllegalArgumentException(unusable("project '" + project + "'", principal, unsafe));
                }
            }
            if (byDigest.putIfAbsent(digest(token), principal) != null) {
                throw new IllegalArgumentException("The same token is listed twice (second for " + principal.subject() + ")");
            }
            return this;
        }

        private static String unusable(String what, AuthPrincipal principal, String problem) {
            return "The " + what + " of the token of " + principal.subject() + " is a name no connection could use: "
                    + "it must be " + Segments.RULE + "; " + problem;
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
