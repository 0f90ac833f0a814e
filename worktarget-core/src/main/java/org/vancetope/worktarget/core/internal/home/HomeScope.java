package org.vancetope.worktarget.core.internal.home;

import java.util.Locale;
import java.util.Optional;

/**
 * How widely a HOME is shared: per project (the default and the fail-safe), per tenant
 * or per user. The directory name (scope key) is derived from this enum, never from setting text.
 */
public enum HomeScope {
    /** {@code <homes>/<tenant>/<project>}: full isolation. */
    PROJECT,
    /** {@code <homes>/<tenant>/_tenant}: shared by all projects of the tenant. */
    TENANT,
    /** {@code <homes>/<tenant>/_user_<login>}: shared by all projects of the user. */
    USER;

    /** The setting that chooses the scope, read from the cascade user → project → tenant. */
    public static final String SETTING = "home-scope";
    /** The scope key of the tenant home. */
    public static final String TENANT_KEY = "_tenant";
    /** The prefix of user home keys. */
    public static final String USER_KEY_PREFIX = "_user_";

    /**
     * Parses a setting value.
     *
     * @param value e.g. {@code "tenant"}, case-insensitive, surrounding blanks ignored
     * @return the scope, or empty when the value is null or not one of project, tenant, user
     */
    public static Optional<HomeScope> parse(String value) {
        if (value == null) {
            return Optional.empty();
        }
        switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "project":
                return Optional.of(PROJECT);
            case "tenant":
                return Optional.of(TENANT);
            case "user":
                return Optional.of(USER);
            default:
                return Optional.empty();
        }
    }

    /**
     * The scope key (directory name under the tenant) for this scope.
     *
     * @param project the project name (PROJECT)
     * @param user the user login (USER)
     * @return {@code project}, {@code "_tenant"} or {@code "_user_" + user}
     */
    public String key(String project, String user) {
        switch (this) {
            case TENANT:
                return TENANT_KEY;
            case USER:
                return USER_KEY_PREFIX + user;
            default:
                return project;
        }
    }

    /**
     * The setting value, e.g. {@code "project"}.
     *
     * @return the lower-case name
     */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }
}
