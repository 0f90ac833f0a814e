package org.vancetope.worktarget.core.transfer;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.spi.ErrorCode;

/**
 * The outcome of one transfer, as the {@code client_file_upload} / {@code client_file_download}
 * tools return it.
 *
 * <pre>{@code
 * TransferResult r = connection.send(file, "reports/q2.pdf", null, null).join();
 * if (!r.ok()) log.warn("download failed: {}", r.error());
 * }</pre>
 *
 * @param transferId the transfer
 * @param ok whether the file is verified and in place on the receiver
 * @param bytesWritten the bytes the receiver wrote
 * @param hash the announced {@code sha256:<hex>}, or null when the transfer never got that far
 * @param error null when ok, otherwise what went wrong
 * @param code null when ok, otherwise the stable code of the failure, carried from where it arose ({@code
 *        not_found}, {@code path_escape}, {@code size_limit}, {@code disk_full}, {@code hash_mismatch},
 *        {@code zstd_refused}, {@code bad_frame}, {@code timeout}, {@code offline}, {@code cancelled},
 *        {@code invalid_params}, {@code forbidden} or {@code internal})
 * @param resumeId null, or on a failed outcome ({@code offline}) of a transfer that the receiver kept
 *        ({@link TransferCapability#RESUME}): the id to resume it with, within the receiver's
 *        {@link TransferSettings#resumeRetention()}
 */
public record TransferResult(String transferId, boolean ok, long bytesWritten, String hash, String error,
                             ErrorCode code, String resumeId) {

    /**
     * Validates: a failed outcome has a code ({@code internal} when none is given), a successful one none
     * and no resume id.
     *
     * @param transferId the transfer
     * @param ok whether the file is verified and in place on the receiver
     * @param bytesWritten the bytes the receiver wrote
     * @param hash the announced {@code sha256:<hex>}, or null when the transfer never got that far
     * @param error null when ok, otherwise what went wrong
     * @param code null when ok, otherwise the stable code of the failure ({@code not_found}, {@code path_escape},
     *        {@code size_limit}, {@code disk_full}, {@code hash_mismatch}, {@code timeout}, {@code offline},
     *        {@code cancelled}, {@code invalid_params}, {@code forbidden} or {@code internal})
     * @param resumeId null, or on a failed {@code offline} outcome of a transfer the receiver kept: the id
     *        to resume it with
     */
    public TransferResult {
        if (ok) {
            code = null;
            resumeId = null;
        } else if (code == null) {
            code = ErrorCode.INTERNAL;
        }
    }

    /**
     * An outcome that cannot be resumed.
     *
     * @param transferId the transfer
     * @param ok whether the file is verified and in place
     * @param bytesWritten the bytes written
     * @param hash the announced hash, or null
     * @param error null when ok, otherwise what went wrong
     * @param code null when ok, otherwise the stable code (null on a failure: {@code internal})
     */
    public TransferResult(String transferId, boolean ok, long bytesWritten, String hash, String error, ErrorCode code) {
        this(transferId, ok, bytesWritten, hash, error, code, null);
    }

    /**
     * A failed outcome with a known code.
     *
     * @param transferId the transfer, or null when none started
     * @param code the code
     * @param error what went wrong
     * @return the result
     */
    public static TransferResult failed(String transferId, ErrorCode code, String error) {
        return new TransferResult(transferId, false, 0, null, error, Objects.requireNonNull(code, "code"));
    }

    /**
     * The JSON-shaped tool result: {@code ok}, {@code bytesWritten}, {@code hash}, and {@code error} and
     * {@code code} when not ok, and {@code resumeId} when a failed transfer can be resumed.
     *
     * @return a new map
     */
    public Map<String, Object> toToolResult() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ok", ok);
        m.put("bytesWritten", bytesWritten);
        m.put("hash", hash);
        if (!ok) {
            m.put("error", error);
            m.put("code", code.wire());
            if (resumeId != null) {
                m.put("resumeId", resumeId);
            }
        }
        return m;
    }
}
