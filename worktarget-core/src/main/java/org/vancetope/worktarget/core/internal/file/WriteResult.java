package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of {@code file_write}.
 *
 * @param path the file, relative to the root
 * @param bytes the bytes written
 * @param created whether the file did not exist before
 * @param hint what the caller should know about what was created (a near name beside it), or null
 */
record WriteResult(String path, long bytes, boolean created, String hint) implements FileResult {
    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("bytes", bytes);
        r.put("created", created);
        if (hint != null) {
            r.put("hint", hint);
        }
        return r;
    }
}
