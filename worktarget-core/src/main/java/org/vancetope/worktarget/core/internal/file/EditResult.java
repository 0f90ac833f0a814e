package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of {@code file_edit}.
 *
 * @param path the file, relative to the root
 * @param line the line where the replaced text starts
 * @param changed whether the file changed (false when oldText equals newText)
 * @param diff a short diff of the lines around the edit
 */
record EditResult(String path, int line, boolean changed, String diff) implements FileResult {
    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("line", line);
        r.put("changed", changed);
        r.put("diff", diff);
        return r;
    }
}
