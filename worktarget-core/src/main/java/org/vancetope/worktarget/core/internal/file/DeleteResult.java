package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of {@code file_delete}.
 *
 * @param path the entry, relative to the root
 * @param deleted whether something was deleted (false when nothing was there)
 */
record DeleteResult(String path, boolean deleted) implements FileResult {
    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("deleted", deleted);
        return r;
    }
}
