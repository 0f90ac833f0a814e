package org.vancetope.worktarget.core.transfer;

import java.util.List;
import java.util.Objects;
import org.vancetope.worktarget.spi.ErrorCode;

/**
 * {@code transfer_dir_manifest_response}, client → Brain, in answer to a {@link DirectoryManifest} of a
 * directory download: whether the client accepts the manifest at all, and which entries it refused (each
 * with its stable code). The directories it accepted exist when it answers; the Brain then sends the
 * accepted files one by one.
 *
 * <pre>{@code
 * new DirectoryManifestResponse(id, true, null, List.of(DirectoryEntryResult.failed(entry, ErrorCode.EXISTS, "...")));
 * }</pre>
 *
 * @param transferId the directory transfer's correlation id
 * @param ok false when the whole manifest is refused (a limit, the target directory)
 * @param error why, when not ok
 * @param refused the entries refused one by one (when ok)
 * @param code the stable code of the refusal of the whole manifest, or null (ok, or a peer that named none)
 */
public record DirectoryManifestResponse(String transferId, boolean ok, String error,
                                        List<DirectoryEntryResult> refused, ErrorCode code) implements TransferFrame {

    /** The wire type. */
    public static final String TYPE = "transfer_dir_manifest_response";

    /**
     * Validates the id and copies the refusals.
     *
     * @param transferId the directory transfer's correlation id
     * @param ok false when the whole manifest is refused (a limit, the target directory)
     * @param error why, when not ok
     * @param refused the entries refused one by one (when ok)
     * @param code the stable code of the refusal of the whole manifest, or null
     */
    public DirectoryManifestResponse {
        TransferFrame.requireId(transferId);
        refused = List.copyOf(Objects.requireNonNull(refused, "refused"));
        if (ok) {
            code = null;
        }
    }

    /**
     * A response without a code (an acceptance, or a refusal of a peer that names none).
     *
     * @param transferId the directory transfer's correlation id
     * @param ok false when the whole manifest is refused
     * @param error why, when not ok
     * @param refused the entries refused one by one (when ok)
     */
    public DirectoryManifestResponse(String transferId, boolean ok, String error, List<DirectoryEntryResult> refused) {
        this(transferId, ok, error, refused, null);
    }

    @Override
    public String type() {
        return TYPE;
    }
}
