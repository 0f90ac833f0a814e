package org.vancetope.worktarget.core.transfer;

import java.util.Objects;

/**
 * {@code client.file.upload.request}, Brain → Foot: asks the Foot to send one of its
 * files; the Foot answers with {@code transfer_init} (it becomes the sender) or, when the local file
 * fails, with {@code transfer_finish {ok:false, error}}.
 *
 * <pre>{@code
 * new UploadRequest(id, "sounds/test.wav", "user-upload-2026-05-01", "test.wav", null);
 * }</pre>
 *
 * @param transferId the correlation id
 * @param localPath the file on the Foot, relative to its workspace root
 * @param dirName the Brain RootDir to write into
 * @param remotePath the path relative to that RootDir
 * @param attrs optional overrides of mode and mtime, or null
 */
public record UploadRequest(String transferId, String localPath, String dirName, String remotePath,
                            TransferAttrs attrs) implements TransferFrame {

    /** The wire type. */
    public static final String TYPE = "client.file.upload.request";

    /**
     * Validates the required fields.
     *
     * @param transferId the correlation id
     * @param localPath the file on the Foot, relative to its workspace root
     * @param dirName the Brain RootDir to write into
     * @param remotePath the path relative to that RootDir
     * @param attrs optional overrides of mode and mtime, or null
     */
    public UploadRequest {
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
