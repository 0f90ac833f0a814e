package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of {@code file_mkdir}.
 *
 * @param path the directory, relative to the root
 * @param created whether it was created (false when it already existed)
 * @param hint what the caller should know about what was created (a near name beside it), or null
 */
record MkdirResult(String path, boolean created, String hint) implements FileResult {
    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("created", created);
        if (hint != null) {
            r.put("hint", hint);
        }
        return r;
    }
}
