package org.vancetope.worktarget.core.transfer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A separate transfer root on a client, apart from its work directory: every transfer of tenant
 * {@code T} and project {@code P} is confined to {@code <transferRoot>/T/P/}, which is created on
 * first use (without following links, so a link planted in the place of {@code T} or {@code P} is
 * refused rather than followed). Paths inside it are resolved by the same gate as the file tools.
 *
 * <pre>{@code
 * FootTargetResolver separate = FootTargetResolver.at(Path.of("/srv/transfers"));
 * // client_file_download(dirName, remotePath, localPath="reports/q2.pdf") by acme/proj-research lands at
 * // /srv/transfers/acme/proj-research/reports/q2.pdf
 * }</pre>
 *
 * <p>Most clients want {@link TargetResolver#at(Path)} on their work directory instead, so that a
 * downloaded file is where the same client's {@code file_read} looks for it; that is the default of
 * the {@code daemon} command, and this layout is its {@code --transfer-root} option.
 */
public final class FootTargetResolver implements TargetResolver {
    /** The refusal when tenant or project is not a single safe name. */
    public static final String BAD_SCOPE = "tenant and project must each be " + Segments.RULE;

    private final Path transferRoot;

    private FootTargetResolver(Path transferRoot) {
        this.transferRoot = transferRoot.toAbsolutePath().normalize();
    }

    /**
     * A resolver on a transfer root; the directory is created when the first transfer needs it.
     *
     * @param transferRoot the transfer root
     * @return the resolver
     */
    public static FootTargetResolver at(Path transferRoot) {
        return new FootTargetResolver(Objects.requireNonNull(transferRoot, "transferRoot"));
    }

    /**
     * The transfer root.
     *
     * @return the absolute root
     */
    public Path transferRoot() {
        return transferRoot;
    }

    /**
     * The directory of one project: {@code <transferRoot>/<tenant>/<projectId>}.
     *
     * @param scope the tenant and project
     * @return the directory, or null when tenant or project is not a safe single name
     */
    public Path projectRoot(TransferScope scope) {
        if (!Segments.isSafe(scope.tenant()) || !Segments.isSafe(scope.project())) {
            return null;
        }
        return transferRoot.resolve(scope.tenant()).resolve(scope.project());
    }

    @Override
    public TargetResolution root(TransferScope scope, String dirName) {
        if (projectRoot(scope) == null) {
            return TargetResolution.refused(ErrorCode.INVALID_PARAMS, BAD_SCOPE);
        }
        try {
            Files.createDirectories(transferRoot);
            ConfinedRoot top = ConfinedRoot.of(transferRoot);
            Path project = top.resolve(scope.tenant() + "/" + scope.project());
            if (!project.equals(top.root().resolve(scope.tenant()).resolve(scope.project()))) {
                // the tenant or project directory is a link (even one that stays inside): refused
                return TargetResolution.refused(ConfinedRoot.escape(scope.tenant() + "/" + scope.project()));
            }
            // the tenant's and the project's directories: no other user of the machine enters them
            try (SafeDirectory d = top.openOrCreatePrivate(project)) {
                return TargetResolution.resolved(d.path());
            }
        } catch (ToolException e) {
            return TargetResolution.refused(e);
        } catch (IOException e) {
            return TargetResolution.refused(ConfinedRoot.io(e, scope.tenant() + "/" + scope.project(), "open"));
        }
    }

    @Override
    public String toString() {
        return "FootTargetResolver[" + transferRoot + "]";
    }
}
