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
 * @param code null when ok, otherwise the stable code of the failure ({@code not_found}, {@code path_escape},
 *        {@code size_limit}, {@code disk_full}, {@code hash_mismatch}, {@code timeout}, {@code offline},
 *        {@code cancelled}, {@code invalid_params}, {@code forbidden} or {@code internal})
 * @param resumeId null, or on a failed outcome ({@code offline}) of a transfer that the receiver kept
 *        ({@link TransferCapability#RESUME}): the id to resume it with, within the receiver's
 *        {@link TransferSettings#resumeRetention()}
 */
public record TransferResult(String transferId, boolean ok, long bytesWritten, String hash, String error,
                             ErrorCode code, String resumeId) {

    /**
     * Validates: a failed outcome has a code, a successful one none and no resume id.
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
            code = codeOf(error);
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
     * @param code null when ok, otherwise the stable code (null: read from the error's wording)
     */
    public TransferResult(String transferId, boolean ok, long bytesWritten, String hash, String error, ErrorCode code) {
        this(transferId, ok, bytesWritten, hash, error, code, null);
    }

    /**
     * An outcome whose code, when it failed, follows from the reason's wording (see {@link #codeOf}).
     *
     * @param transferId the transfer
     * @param ok whether the file is verified and in place
     * @param bytesWritten the bytes written
     * @param hash the announced hash, or null
     * @param error null when ok, otherwise what went wrong
     */
    public TransferResult(String transferId, boolean ok, long bytesWritten, String hash, String error) {
        this(transferId, ok, bytesWritten, hash, error, null);
    }

    /**
     * A failed outcome.
     *
     * @param transferId the transfer
     * @param error what went wrong
     * @return the result
     */
    public static TransferResult failed(String transferId, String error) {
        return new TransferResult(transferId, false, 0, null, error, null);
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
     * The code of a failure reason. A peer sends its reasons as text in the transfer frames, in a fixed
     * wording ({@code dirName not found}, {@code hash mismatch}, {@code disk_full: …}, {@code exceeds
     * size limit …}, {@code … timeout}, …); the code is read from that wording, and a reason worded
     * otherwise is {@code internal}.
     *
     * @param reason the reason, may be null
     * @return the code ({@code internal} for an unknown or missing reason)
     */
    public static ErrorCode codeOf(String reason) {
        if (reason == null) {
            return ErrorCode.INTERNAL;
        }
        String r = reason.toLowerCase(java.util.Locale.ROOT);
        if (r.startsWith(ErrorCode.DISK_FULL.wire())) {
            return ErrorCode.DISK_FULL;
        }
        if (r.startsWith("hash mismatch")) {
            return ErrorCode.HASH_MISMATCH;
        }
        if (r.startsWith("dirname not found") || r.contains("does not exist")) {
            return ErrorCode.NOT_FOUND;
        }
        if (r.contains("leads outside the work directory")) {
            return ErrorCode.PATH_ESCAPE;
        }
        if (r.startsWith("exceeds size limit") || r.startsWith("more bytes than the announced")) {
            return ErrorCode.SIZE_LIMIT;
        }
        if (r.contains("timeout") || r.startsWith("transfer expired")) {
            return ErrorCode.TIMEOUT;
        }
        if (r.startsWith("connection closed") || r.startsWith("receiver is shutting down")
                || r.startsWith("transfer endpoint")) {
            return ErrorCode.OFFLINE;
        }
        if (r.startsWith("sender aborted") || r.startsWith("the client did not start")) {
            return ErrorCode.CANCELLED;
        }
        if (r.startsWith("invalid attrs") || r.startsWith("hash must be") || r.startsWith("transfer_init does not match")) {
            return ErrorCode.INVALID_PARAMS;
        }
        return ErrorCode.INTERNAL;
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
