package org.vancetope.worktarget.core.transfer;

import java.util.LinkedHashMap;
import java.util.Map;

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
 */
public record TransferResult(String transferId, boolean ok, long bytesWritten, String hash, String error) {

    /**
     * A failed outcome.
     *
     * @param transferId the transfer
     * @param error what went wrong
     * @return the result
     */
    public static TransferResult failed(String transferId, String error) {
        return new TransferResult(transferId, false, 0, null, error);
    }

    /**
     * The JSON-shaped tool result: {@code ok}, {@code bytesWritten}, {@code hash}, and {@code error}
     * when not ok.
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
        }
        return m;
    }
}
