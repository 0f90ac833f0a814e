package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of {@code file_stat}.
 *
 * @param path the entry, relative to the root
 * @param type {@code file}, {@code directory}, {@code symlink} (the link itself, not followed) or {@code other}
 * @param size the size in bytes as the file system reports it
 * @param mode the POSIX permission bits as four octal digits (e.g. {@code "0644"}), or null where the
 *        file system has none
 * @param modified the modification time, ISO-8601
 * @param countLines whether lines were asked for (only then is {@code lines} present)
 * @param lines the line count, or null when asked for but the entry is not a regular file
 * @param hint why lines is null, or null (then absent)
 */
record StatResult(String path, String type, long size, String mode, String modified, boolean countLines, Long lines,
                  String hint) implements FileResult {
    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("type", type);
        r.put("size", size);
        r.put("mode", mode);
        r.put("modified", modified);
        if (countLines) {
            r.put("lines", lines);
        }
        if (hint != null) {
            r.put("hint", hint);
        }
        return r;
    }
}
