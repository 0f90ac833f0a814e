package org.vancetope.worktarget.core.transfer;

import java.util.Objects;

/**
 * {@code client.file.upload.request}, Brain → Foot: asks the Foot to send one of its
 * files; the Foot answers with {@code transfer_init} (it becomes the sender) or, when the local file
 * fails, with {@code transfer_finish {ok:false, error}}. With {@code resume} ({@link TransferCapability#RESUME}
 * only) it asks the Foot to take up an upload of that id the Brain kept after a lost connection: the Foot
 * answers with {@code transfer_resume} instead of {@code transfer_init} and sends the rest of the file.
 *
 * <pre>{@code
 * new UploadRequest(id, "sounds/test.wav", "user-upload-2026-05-01", "test.wav", null);
 * new UploadRequest(id, "sounds/test.wav", "user-upload-2026-05-01", "test.wav", null, true);  // resume it
 * }</pre>
 *
 * @param transferId the correlation id
 * @param localPath the file on the Foot, relative to its workspace root
 * @param dirName the Brain RootDir to write into
 * @param remotePath the path relative to that RootDir
 * @param attrs optional overrides of mode and mtime, or null
 * @param resume whether the Brain kept part of this upload and asks the Foot to resume it
 */
public record UploadRequest(String transferId, String localPath, String dirName, String remotePath,
                            TransferAttrs attrs, boolean resume) implements TransferFrame {

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
     * @param resume whether the Brain kept part of this upload and asks the Foot to resume it
     */
    public UploadRequest {
        TransferFrame.requireId(transferId);
        Objects.requireNonNull(localPath, "localPath");
        Objects.requireNonNull(dirName, "dirName");
        Objects.requireNonNull(remotePath, "remotePath");
    }

    /**
     * A request for a new upload (not a resume).
     *
     * @param transferId the correlation id
     * @param localPath the file on the Foot, relative to its workspace root
     * @param dirName the Brain RootDir to write into
     * @param remotePath the path relative to that RootDir
     * @param attrs optional overrides of mode and mtime, or null
     */
    public UploadRequest(String transferId, String localPath, String dirName, String remotePath, TransferAttrs attrs) {
        this(transferId, localPath, dirName, remotePath, attrs, false);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
