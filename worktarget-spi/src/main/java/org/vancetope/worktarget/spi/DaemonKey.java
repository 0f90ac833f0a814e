package org.vancetope.worktarget.spi;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The routing key of a daemon: a named {@code profile=daemon} client within one project.
 *
 * @param tenant the tenant
 * @param project the project
 * @param name the daemon name
 */
public record DaemonKey(String tenant, String project, String name) implements PeerKey {
    /** What a daemon name is, for messages: the one rule for the dispatcher, the server and the daemon. */
    public static final String NAME_RULE = "1 to 64 characters of a-z, 0-9, '_' and '-', starting with a letter or "
            + "digit";
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");

    /**
     * Validates.
     *
     * @param tenant the tenant
     * @param project the project
     * @param name the daemon name
     */
    public DaemonKey {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(project, "project");
        Objects.requireNonNull(name, "name");
    }

    /**
     * Whether a name follows {@link #NAME_RULE}.
     *
     * @param name the name, may be null
     * @return true when it is a valid daemon name
     */
    public static boolean isValidName(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    @Override
    public String describe() {
        return "daemon '" + name + "' of project '" + project + "'";
    }

    @Override
    public String toString() {
        return tenant + "/" + project + "/" + name;
    }
}
