package org.vancetope.worktarget.core.transfer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.spi.ErrorCode;

/**
 * The outcome of one directory transfer, as {@code client_dir_upload} and {@code client_dir_download}
 * return it: every entry with what became of it. The transfer as a whole fails ({@code error} and
 * {@code code} set, no entries) when it never got to the entries: the directory cannot be listed, the
 * receiver refused the whole manifest (a limit), the peer does not offer directory transfer, or it did
 * not answer.
 *
 * <pre>{@code
 * DirectoryTransferResult r = connection.sendDirectory(root, "site", "site", false).join();
 * r.entries().stream().filter(e -> e.status() == DirectoryEntryResult.Status.FAILED).forEach(System.out::println);
 * }</pre>
 *
 * @param transferId the directory transfer
 * @param ok true when no entry failed and the transfer did not fail as a whole (skipped links do not count)
 * @param filesWritten the files that landed
 * @param bytesWritten the bytes of the files that landed
 * @param entries every entry of the manifest, in its order
 * @param error null unless the transfer failed as a whole
 * @param code null unless the transfer failed as a whole
 */
public record DirectoryTransferResult(String transferId, boolean ok, int filesWritten, long bytesWritten,
                                      List<DirectoryEntryResult> entries, String error, ErrorCode code) {

    /**
     * Copies the entries; a whole failure has a code.
     *
     * @param transferId the directory transfer
     * @param ok true when no entry failed and the transfer did not fail as a whole (skipped links do not count)
     * @param filesWritten the files that landed
     * @param bytesWritten the bytes of the files that landed
     * @param entries every entry of the manifest, in its order
     * @param error null unless the transfer failed as a whole
     * @param code null unless the transfer failed as a whole
     */
    public DirectoryTransferResult {
        entries = List.copyOf(Objects.requireNonNull(entries, "entries"));
        if (error != null) {
            Objects.requireNonNull(code, "code");
        }
    }

    /**
     * The result of a transfer whose entries all have an outcome.
     *
     * @param transferId the transfer
     * @param entries every entry's outcome
     * @return the result; ok when none failed
     */
    public static DirectoryTransferResult of(String transferId, List<DirectoryEntryResult> entries) {
        int files = 0;
        long bytes = 0;
        boolean ok = true;
        for (DirectoryEntryResult e : entries) {
            if (e.status() == DirectoryEntryResult.Status.WRITTEN) {
                files++;
                bytes += e.bytesWritten();
            } else if (e.status() == DirectoryEntryResult.Status.FAILED) {
                ok = false;
            }
        }
        return new DirectoryTransferResult(transferId, ok, files, bytes, entries, null, null);
    }

    /**
     * A transfer that failed as a whole, before any entry.
     *
     * @param transferId the transfer, or null when none started
     * @param code the stable code
     * @param error what went wrong
     * @return the result
     */
    public static DirectoryTransferResult failed(String transferId, ErrorCode code, String error) {
        return new DirectoryTransferResult(transferId, false, 0, 0, List.of(), Objects.requireNonNull(error, "error"),
                code);
    }

    /**
     * The JSON-shaped tool result: {@code ok}, {@code filesWritten}, {@code bytesWritten}, {@code entries},
     * and {@code error} and {@code code} when the transfer failed as a whole.
     *
     * @return a new map
     */
    public Map<String, Object> toToolResult() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ok", ok);
        m.put("filesWritten", filesWritten);
        m.put("bytesWritten", bytesWritten);
        List<Map<String, Object>> list = new ArrayList<>(entries.size());
        entries.forEach(e -> list.add(e.toToolResult()));
        m.put("entries", list);
        if (error != null) {
            m.put("error", error);
            m.put("code", code.wire());
        }
        return m;
    }
}
