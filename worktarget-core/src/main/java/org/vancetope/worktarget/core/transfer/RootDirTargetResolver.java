package org.vancetope.worktarget.core.transfer;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.core.internal.transfer.Sandbox;

/**
 * The Brain's resolver (spec 002 §7.1): {@code dirName} names a RootDir of the project, found
 * through a host-supplied function, and the path is confined to that RootDir without following
 * symbolic links. A missing RootDir is refused with {@code "dirName not found"}.
 *
 * <pre>{@code
 * RootDirTargetResolver brain = new RootDirTargetResolver(
 *         (scope, dirName) -> workspace.rootDirPath(scope.tenant(), scope.project(), dirName));
 * }</pre>
 *
 * <p>It does not create RootDirs; {@code workspace_create_ephemeral_dir} does.
 */
public final class RootDirTargetResolver implements TargetResolver {
    /** The refusal when {@code dirName} is not a RootDir of the project (spec 002 §6.1). */
    public static final String DIR_NOT_FOUND = "dirName not found";

    private final BiFunction<TransferScope, String, Optional<Path>> roots;

    /**
     * Creates the resolver.
     *
     * @param roots maps (scope, dirName) to the RootDir's directory, empty when there is none
     */
    public RootDirTargetResolver(BiFunction<TransferScope, String, Optional<Path>> roots) {
        this.roots = Objects.requireNonNull(roots, "roots");
    }

    /**
     * The directory of a RootDir.
     *
     * @param scope the tenant and project
     * @param dirName the RootDir name
     * @return the directory, empty when the name is unsafe or unknown
     */
    public Optional<Path> root(TransferScope scope, String dirName) {
        if (!Segments.isSafe(dirName)) {
            return Optional.empty();
        }
        Optional<Path> root = roots.apply(scope, dirName);
        return root == null ? Optional.empty() : root;
    }

    @Override
    public TargetResolution resolve(TransferScope scope, String dirName, String path, Access access) {
        Optional<Path> root = root(scope, dirName);
        if (root.isEmpty()) {
            return TargetResolution.refused(DIR_NOT_FOUND);
        }
        return Sandbox.resolve(root.get(), path, access, "path escapes RootDir '" + dirName + "'");
    }
}
