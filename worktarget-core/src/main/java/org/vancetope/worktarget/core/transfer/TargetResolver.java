package org.vancetope.worktarget.core.transfer;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Decides which directory a transfer's paths are confined to: the receiver asks it for the root of
 * {@code transfer_init}'s {@code dirName}, a sender for the root of the file it is asked to send. The
 * paths inside the root are then resolved and opened by the library's one confinement gate, the same
 * one the file tools use, so a transfer accepts and refuses exactly what {@code file_read} and
 * {@code file_write} do in that root, with the same messages.
 *
 * <p>Built in: {@link #at(Path)} for a client peer whose transfers use its work directory (the
 * default of {@code daemon}), {@link FootTargetResolver} for a separate transfer root with one
 * directory per tenant and project, and {@link RootDirTargetResolver} for the server's RootDirs.
 *
 * <pre>{@code
 * TargetResolver same = TargetResolver.at(workDir);      // client_file_download lands where file_read looks
 * TargetResolution r = resolver.root(scope, init.dirName());
 * if (!r.ok()) answer(new TransferInitResponse(id, false, r.error()));
 * }</pre>
 *
 * <p>An implementation only names the root; it must not hand out directories that callers of other
 * tenants or projects may not use, and a refusal message must not name host paths.
 */
@FunctionalInterface
public interface TargetResolver {

    /**
     * The root directory of a transfer.
     *
     * @param scope the tenant and project of the transfer
     * @param dirName the server RootDir, or null on the client
     * @return the root (an existing directory), or a refusal
     */
    TargetResolution root(TransferScope scope, String dirName);

    /**
     * The root of a file this side is about to receive: {@link #root} by default. A resolver that keeps a
     * disk budget refuses here a file that would take the root's owner over it, before anything is written.
     *
     * @param scope the tenant and project of the transfer
     * @param dirName the server RootDir, or null on the client
     * @param bytes the size of the file to receive
     * @return the root (an existing directory), or a refusal
     */
    default TargetResolution rootToReceive(TransferScope scope, String dirName, long bytes) {
        return root(scope, dirName);
    }

    /**
     * A resolver with one root for every transfer, whatever the scope: the work directory of a client
     * peer, so that a file downloaded to it can be read with the same peer's file tools at the same path.
     *
     * @param root the directory (it must exist when a transfer starts)
     * @return the resolver
     */
    static TargetResolver at(Path root) {
        Path dir = Objects.requireNonNull(root, "root").toAbsolutePath().normalize();
        return (scope, dirName) -> TargetResolution.resolved(dir);
    }
}
