package org.vancetope.worktarget.core.transfer;

import java.util.List;
import java.util.Objects;
import org.vancetope.worktarget.spi.ErrorCode;

/**
 * {@code transfer_dir_manifest}, sender of a directory → its receiver (capability
 * {@link TransferCapability#DIRECTORY}): every entry of the tree, parents before their children. The
 * Brain sends it to start a directory download; the client sends it in answer to a
 * {@link DirectoryUploadRequest} (then with {@code error} set and no entries when its directory cannot be
 * listed). The files then travel as ordinary single-file transfers.
 *
 * <pre>{@code
 * new DirectoryManifest(id, "in/project", null, false, List.of(
 *         new DirectoryEntry("src", DirectoryEntry.Kind.DIRECTORY, 0, null),
 *         new DirectoryEntry("src/a.c", DirectoryEntry.Kind.FILE, 12, "sha256:...")), null);
 * }</pre>
 *
 * @param transferId the directory transfer's correlation id
 * @param target the directory on the receiver, relative to its root ({@code "."} for the root itself)
 * @param dirName the Brain RootDir when the Brain receives, else null
 * @param overwrite whether existing files may be replaced (the receiver decides what it allows)
 * @param entries the entries
 * @param error why the sender could not list its directory, or null
 * @param code the stable code of that failure, or null (none, or a peer that named none)
 */
public record DirectoryManifest(String transferId, String target, String dirName, boolean overwrite,
                                List<DirectoryEntry> entries, String error, ErrorCode code) implements TransferFrame {

    /** The wire type. */
    public static final String TYPE = "transfer_dir_manifest";

    /**
     * Validates the required fields and copies the entries.
     *
     * @param transferId the directory transfer's correlation id
     * @param target the directory on the receiver, relative to its root ({@code "."} for the root itself)
     * @param dirName the Brain RootDir when the Brain receives, else null
     * @param overwrite whether existing files may be replaced (the receiver decides what it allows)
     * @param entries the entries
     * @param error why the sender could not list its directory, or null
     * @param code the stable code of that failure, or null
     */
    public DirectoryManifest {
        TransferFrame.requireId(transferId);
        Objects.requireNonNull(target, "target");
        entries = List.copyOf(Objects.requireNonNull(entries, "entries"));
        if (error == null) {
            code = null;
        }
    }

    /**
     * A manifest without a code (a listing, or the failure of a peer that names none).
     *
     * @param transferId the directory transfer's correlation id
     * @param target the directory on the receiver, relative to its root
     * @param dirName the Brain RootDir when the Brain receives, else null
     * @param overwrite whether existing files may be replaced
     * @param entries the entries
     * @param error why the sender could not list its directory, or null
     */
    public DirectoryManifest(String transferId, String target, String dirName, boolean overwrite,
                             List<DirectoryEntry> entries, String error) {
        this(transferId, target, dirName, overwrite, entries, error, null);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
