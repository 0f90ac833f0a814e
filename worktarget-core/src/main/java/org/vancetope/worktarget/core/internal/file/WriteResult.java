package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of {@code file_write}.
 *
 * @param path the file, relative to the root
 * @param bytes the bytes written
 * @param created whether the file did not exist before
 */
record WriteResult(String path, long bytes, boolean created) implements FileResult {
    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("bytes", bytes);
        r.put("created", created);
        return r;
    }
}
