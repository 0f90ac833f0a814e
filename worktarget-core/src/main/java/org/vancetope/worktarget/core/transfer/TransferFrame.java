package org.vancetope.worktarget.core.transfer;

/**
 * One frame of the file-transfer protocol: the five lifecycle frames
 * plus the {@code client.file.upload.request} trigger, the resume pair of {@link TransferCapability#RESUME},
 * and the three frames of directory transfer ({@link TransferCapability#DIRECTORY}).
 *
 * <p>Frames are plain values; turning them into JSON (and chunk bytes into base64) is the business
 * of the codec in {@code transfer-protocol}. A frame does not validate protocol rules such as the
 * hash format or path containment: the receiver does that and answers with a refusal.
 *
 * <pre>{@code
 * TransferFrame f = new TransferFinish("01J...", true, null);
 * String wireType = f.type();   // "transfer_finish"
 * }</pre>
 */
public sealed interface TransferFrame
        permits TransferInit, TransferInitResponse, TransferChunk, TransferComplete, TransferFinish, UploadRequest,
        TransferResume, TransferResumeResponse, DirectoryManifest, DirectoryManifestResponse, DirectoryUploadRequest {

    /**
     * The correlation id, valid for the whole transfer lifecycle.
     *
     * @return the transfer id
     */
    String transferId();

    /**
     * The wire discriminator, e.g. {@code "transfer_chunk"}.
     *
     * @return the {@code type} field
     */
    String type();

    /**
     * Checks a transfer id: present and not empty.
     *
     * @param transferId the id
     * @return the id
     */
    static String requireId(String transferId) {
        if (transferId == null || transferId.isEmpty()) {
            throw new IllegalArgumentException("transferId must not be empty");
        }
        return transferId;
    }
}
