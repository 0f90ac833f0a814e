package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of {@code file_mkdir}.
 *
 * @param path the directory, relative to the root
 * @param created whether it was created (false when it already existed)
 */
record MkdirResult(String path, boolean created) implements FileResult {
    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("created", created);
        return r;
    }
}
