package org.vancetope.worktarget.core.transfer;

import java.nio.file.FileSystem;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.core.internal.transfer.Sandbox;

/**
 * The Foot's sandbox (spec 002 §3): every path is resolved under
 * {@code <footRoot>/<tenant>/<projectId>/}; {@code footRoot} defaults to
 * {@code ~/.vancetope/foot} and is overridden by the environment variable
 * {@value #ENV_ROOT}. Paths that leave the project directory, absolute paths and symbolic links
 * below it are refused with {@code "path escapes project sandbox"}.
 *
 * <pre>{@code
 * FootTargetResolver foot = FootTargetResolver.fromEnvironment(FileSystems.getDefault(), System::getenv,
 *         System.getProperty("user.home"));
 * TargetResolution r = foot.resolve(new TransferScope("acme", "proj-research"), null,
 *         "reports/2026-q2.pdf", TargetResolver.Access.WRITE);
 * // ~/.vancetope/foot/acme/proj-research/reports/2026-q2.pdf
 * }</pre>
 *
 * <p>It does not create directories; the receiver creates missing parents after resolving.
 */
public final class FootTargetResolver implements TargetResolver {
    /** The environment variable that overrides the Foot workspace root. */
    public static final String ENV_ROOT = "VANCE_FOOT_WORKSPACE_ROOT";
    /** The refusal for a path outside the project directory (spec 002 §3.3). */
    public static final String ESCAPE = "path escapes project sandbox";

    private final Path footRoot;

    private FootTargetResolver(Path footRoot) {
        this.footRoot = footRoot.toAbsolutePath().normalize();
    }

    /**
     * A resolver on an explicit root.
     *
     * @param footRoot the Foot workspace root
     * @return the resolver
     */
    public static FootTargetResolver at(Path footRoot) {
        return new FootTargetResolver(Objects.requireNonNull(footRoot, "footRoot"));
    }

    /**
     * A resolver on {@code $VANCE_FOOT_WORKSPACE_ROOT}, or {@code <userHome>/.vancetope/foot} when the
     * variable is unset or blank.
     *
     * @param fileSystem the file system (the default one, or Jimfs in tests)
     * @param env the environment lookup, e.g. {@code System::getenv}
     * @param userHome the user's home directory
     * @return the resolver
     */
    public static FootTargetResolver fromEnvironment(FileSystem fileSystem, UnaryOperator<String> env, String userHome) {
        String configured = env.apply(ENV_ROOT);
        if (configured != null && !configured.isBlank()) {
            return new FootTargetResolver(fileSystem.getPath(configured.strip()));
        }
        return new FootTargetResolver(fileSystem.getPath(Objects.requireNonNull(userHome, "userHome"), ".vancetope", "foot"));
    }

    /**
     * The Foot workspace root.
     *
     * @return the absolute root
     */
    public Path footRoot() {
        return footRoot;
    }

    /**
     * The directory of one project: {@code <footRoot>/<tenant>/<projectId>}.
     *
     * @param scope the tenant and project
     * @return the directory, or null when tenant or project is not a safe single name
     */
    public Path projectRoot(TransferScope scope) {
        if (!Segments.isSafe(scope.tenant()) || !Segments.isSafe(scope.project())) {
            return null;
        }
        return footRoot.resolve(scope.tenant()).resolve(scope.project());
    }

    @Override
    public TargetResolution resolve(TransferScope scope, String dirName, String path, Access access) {
        Path base = projectRoot(scope);
        if (base == null) {
            return TargetResolution.refused(ESCAPE);
        }
        TargetResolution r = Sandbox.resolve(base, path, access, ESCAPE);
        if (r.ok()) {
            // The tenant and project directories themselves must not be links either.
            TargetResolution again = Sandbox.resolve(footRoot, footRoot.relativize(r.path()).toString(), access, ESCAPE);
            return again.ok() ? r : again;
        }
        return r;
    }

    @Override
    public String toString() {
        return "FootTargetResolver[" + footRoot + "]";
    }
}
