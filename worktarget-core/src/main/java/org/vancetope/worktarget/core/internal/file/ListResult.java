package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result of {@code file_list}: one directory level.
 *
 * @param path the directory, relative to the root
 * @param entries the names shown, sorted, directories ending in {@code '/'}
 * @param count all entries of the directory, shown or not
 * @param truncated whether entries were left out
 * @param hint why entries were left out and how to see them, or null (then absent)
 */
record ListResult(String path, List<String> entries, int count, boolean truncated, String hint)
        implements FileResult {
    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("entries", entries);
        r.put("count", count);
        r.put("truncated", truncated);
        if (hint != null) {
            r.put("hint", hint);
        }
        return r;
    }
}
