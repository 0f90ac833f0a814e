package org.vancetope.worktarget.core.internal.home;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A resolved HOME: its scope, tenant, scope key and directory.
 *
 * @param scope the scope the setting chose (after fallbacks)
 * @param tenant the tenant
 * @param key the scope key: the project name, {@code _tenant} or {@code _user_<login>}
 * @param dir the directory {@code <homesRoot>/<tenant>/<key>}
 */
public record Home(HomeScope scope, String tenant, String key, Path dir) {
    /** Validates. */
    public Home {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(dir, "dir");
    }
}
