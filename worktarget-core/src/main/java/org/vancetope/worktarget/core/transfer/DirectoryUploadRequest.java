package org.vancetope.worktarget.core.transfer;

import java.util.Objects;

/**
 * {@code client.dir.upload.request}, Brain → client (capability {@link TransferCapability#DIRECTORY}):
 * asks the client to list one of its directories; it answers with a {@link DirectoryManifest} of the same
 * id, and the Brain then asks for each file it accepts with an ordinary {@link UploadRequest}.
 *
 * <pre>{@code
 * new DirectoryUploadRequest(id, "project/src", "uploads", "src", false);
 * }</pre>
 *
 * @param transferId the directory transfer's correlation id
 * @param localPath the directory on the client, relative to its workspace root
 * @param dirName the Brain RootDir to write into
 * @param remotePath the directory relative to that RootDir
 * @param overwrite whether existing files in the RootDir may be replaced
 */
public record DirectoryUploadRequest(String transferId, String localPath, String dirName, String remotePath,
                                     boolean overwrite) implements TransferFrame {

    /** The wire type. */
    public static final String TYPE = "client.dir.upload.request";

    /**
     * Validates the required fields.
     *
     * @param transferId the directory transfer's correlation id
     * @param localPath the directory on the client, relative to its workspace root
     * @param dirName the Brain RootDir to write into
     * @param remotePath the directory relative to that RootDir
     * @param overwrite whether existing files in the RootDir may be replaced
     */
    public DirectoryUploadRequest {
        TransferFrame.requireId(transferId);
        Objects.requireNonNull(localPath, "localPath");
        Objects.requireNonNull(dirName, "dirName");
        Objects.requireNonNull(remotePath, "remotePath");
    }

    @Override
    public String type() {
        return TYPE;
    }
}
