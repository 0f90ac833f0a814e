package org.vancetope.worktarget.core.internal.exec;

import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.core.ExecSettings;

/**
 * Builds the {@link ExecEngine} of a backend from its public {@link ExecSettings}.
 */
public final class ExecSetup {
    private ExecSetup() {
    }

    /**
     * An engine for a backend.
     *
     * @param settings the settings
     * @param hostEnv the host environment (for {@value Isolation#MODE_ENV} and the wrapper's {@code PATH})
     * @param isolate whether this backend isolates its jobs (WORK) or runs them as the user (CLIENT)
     * @return the engine
     * @throws IllegalArgumentException when the isolation configuration is invalid
     */
    public static ExecEngine engine(ExecSettings settings, Map<String, String> hostEnv, boolean isolate) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(hostEnv, "hostEnv");
        Isolation isolation = isolate
                ? Isolation.fromConfig(settings.isolationMode(), settings.isolationWrapper(), hostEnv::get)
                : Isolation.none();
        return ExecEngine.builder().settings(settings).isolation(isolation).build();
    }
}
