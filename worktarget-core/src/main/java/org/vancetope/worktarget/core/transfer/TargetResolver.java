package org.vancetope.worktarget.core.transfer;

/**
 * Decides where a transferred file may be written or read from: the receiver resolves
 * {@code transfer_init}'s {@code (dirName, target)}, a sender resolves the file it is asked to send.
 * This is the seam a confinement gate plugs into; {@link FootTargetResolver} and
 * {@link RootDirTargetResolver} are the two built-in implementations.
 *
 * <pre>{@code
 * TargetResolution r = resolver.resolve(scope, init.dirName(), init.target(), TargetResolver.Access.WRITE);
 * if (!r.ok()) answer(new TransferInitResponse(id, false, r.error()));
 * }</pre>
 *
 * <p>An implementation must refuse paths outside its root with the same message whether or not
 * the outside file exists, and must not follow symbolic links.
 */
@FunctionalInterface
public interface TargetResolver {

    /** What the caller will do with the path. */
    enum Access {
        /** Read an existing regular file (a sender). */
        READ,
        /** Create or replace a regular file (a receiver); the parent may not exist yet. */
        WRITE
    }

    /**
     * Resolves a path.
     *
     * @param scope the tenant and project of the transfer
     * @param dirName the Brain RootDir, or null on the Foot
     * @param path the path relative to the root, as the peer sent it
     * @param access read or write
     * @return the validated absolute path, or a refusal
     */
    TargetResolution resolve(TransferScope scope, String dirName, String path, Access access);
}
