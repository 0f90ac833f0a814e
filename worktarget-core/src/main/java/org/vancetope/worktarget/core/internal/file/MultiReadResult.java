package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The result of {@code file_read} with {@code paths}: one entry per requested file, in the order asked,
 * each the usual read result or that file's own error.
 *
 * @param files the entries
 * @param truncated whether any file's page was cut (by its own limits or its share of the result budget)
 * @param hint how to get the rest when a file was cut by its share of the budget, or null (then absent)
 */
record MultiReadResult(List<Entry> files, boolean truncated, String hint) implements FileResult {

    /**
     * One file of the call.
     *
     * @param path the path as the caller gave it (used for an error entry)
     * @param result the read result, or null when the file failed
     * @param error the file's failure, or null
     */
    record Entry(String path, FileResult result, ToolException error) implements ResultEntry {
        @Override
        public Map<String, Object> toMap() {
            if (result != null) {
                return result.toMap();
            }
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("code", error.code().wire());
            e.put("message", error.getMessage());
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("path", path);
            r.put("error", e);
            return r;
        }
    }

    MultiReadResult {
        files = List.copyOf(files);
    }

    @Override
    public Map<String, Object> toMap() {
        List<Map<String, Object>> out = ResultEntry.toMaps(files);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("files", out);
        r.put("truncated", truncated);
        if (hint != null) {
            r.put("hint", hint);
        }
        return r;
    }
}
