package org.vancetope.worktarget.core.transfer;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.spi.ErrorCode;

/**
 * What became of one entry of a directory transfer.
 *
 * <pre>{@code
 * for (DirectoryEntryResult e : result.entries()) {
 *     if (e.status() == DirectoryEntryResult.Status.FAILED) log.warn("{}: {} ({})", e.path(), e.error(), e.code());
 * }
 * }</pre>
 *
 * @param path the entry's path relative to the transferred directory
 * @param kind the entry's kind as the sender listed it
 * @param status what happened to it
 * @param bytesWritten the bytes the receiver committed (files that landed), else 0
 * @param hash the verified {@code sha256:<hex>} of a file that landed, else null
 * @param error null unless failed or skipped: why
 * @param code null unless failed: the stable code ({@code path_escape}, {@code exists}, {@code size_limit},
 *        {@code hash_mismatch}, {@code not_found}, {@code invalid_params}, …)
 */
public record DirectoryEntryResult(String path, DirectoryEntry.Kind kind, Status status, long bytesWritten, String hash,
                                   String error, ErrorCode code) {

    /** What happened to an entry. */
    public enum Status {
        /** A file that is verified and in place. */
        WRITTEN,
        /** A directory that exists on the receiver (created, or there already). */
        CREATED,
        /** A link or special file: listed, never followed nor created. */
        SKIPPED,
        /** Refused or failed; nothing of it is on the receiver (no partial file). */
        FAILED;

        /**
         * The name in tool results.
         *
         * @return the lower-case name
         */
        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Validates: a failed entry has a code, every other none.
     *
     * @param path the entry's path relative to the transferred directory
     * @param kind the entry's kind as the sender listed it
     * @param status what happened to it
     * @param bytesWritten the bytes the receiver committed (files that landed), else 0
     * @param hash the verified {@code sha256:<hex>} of a file that landed, else null
     * @param error null unless failed or skipped: why
     * @param code null unless failed: the stable code ({@code path_escape}, {@code exists}, {@code size_limit},
     *        {@code hash_mismatch}, {@code not_found}, {@code invalid_params}, …)
     */
    public DirectoryEntryResult {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(status, "status");
        if (status == Status.FAILED) {
            Objects.requireNonNull(code, "code");
        } else {
            code = null;
        }
    }

    /**
     * A refused or failed entry.
     *
     * @param entry the entry
     * @param code the stable code
     * @param error what went wrong
     * @return the result
     */
    public static DirectoryEntryResult failed(DirectoryEntry entry, ErrorCode code, String error) {
        return new DirectoryEntryResult(entry.path(), entry.kind(), Status.FAILED, 0, null, error, code);
    }

    /**
     * The JSON-shaped form in tool results: {@code path}, {@code type}, {@code status}, and {@code bytesWritten}
     * and {@code hash} for a written file, {@code error} (and {@code code} when failed) otherwise.
     *
     * @return a new map
     */
    public Map<String, Object> toToolResult() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", path);
        m.put("type", kind.wire());
        m.put("status", status.wire());
        if (status == Status.WRITTEN) {
            m.put("bytesWritten", bytesWritten);
            m.put("hash", hash);
        }
        if (error != null) {
            m.put("error", error);
        }
        if (code != null) {
            m.put("code", code.wire());
        }
        return m;
    }
}
