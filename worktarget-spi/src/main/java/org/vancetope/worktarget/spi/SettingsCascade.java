package org.vancetope.worktarget.spi;

import java.util.Optional;

/**
 * The host's settings, read as a cascade user → project → tenant. Process-scoped settings are
 * deliberately not part of this seam: a process must not widen its own gates.
 *
 * <pre>{@code
 * SettingsCascade settings = (level, tenant, id, key) -> Optional.ofNullable(myStore.get(level, tenant, id, key));
 * Optional<String> scope = settings.resolve("acme", "proj", "alice", "home-scope");
 * }</pre>
 */
@FunctionalInterface
public interface SettingsCascade {

    /** A cascade without any settings. */
    SettingsCascade EMPTY = (level, tenant, id, key) -> Optional.empty();

    /**
     * One level's value.
     *
     * @param level the level
     * @param tenant the tenant
     * @param id the user login (USER), the project (PROJECT) or the tenant (TENANT)
     * @param key the setting key
     * @return the value set at exactly this level
     */
    Optional<String> lookup(SettingLevel level, String tenant, String id, String key);

    /**
     * Walks the cascade user → project → tenant and returns the first value found.
     *
     * @param tenant the tenant
     * @param project the project
     * @param user the user login, or null to skip the user level
     * @param key the setting key
     * @return the first value found
     */
    default Optional<String> resolve(String tenant, String project, String user, String key) {
        if (user != null) {
            Optional<String> v = lookup(SettingLevel.USER, tenant, user, key);
            if (v.isPresent()) {
                return v;
            }
        }
        if (project != null) {
            Optional<String> v = lookup(SettingLevel.PROJECT, tenant, project, key);
            if (v.isPresent()) {
                return v;
            }
        }
        return lookup(SettingLevel.TENANT, tenant, tenant, key);
    }
}
