package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of {@code file_move}.
 *
 * @param from the moved entry's old path, relative to the root
 * @param to its new path, relative to the root
 * @param type what was moved: {@code file}, {@code directory} or {@code symlink} (the link itself)
 * @param overwritten whether an existing file at {@code to} was replaced
 * @param atomic whether the move was one atomic rename (false: copied and deleted across file systems)
 * @param hint what a non-atomic move means, or null (then absent)
 */
record MoveResult(String from, String to, String type, boolean overwritten, boolean atomic, String hint)
        implements FileResult {
    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("from", from);
        r.put("to", to);
        r.put("type", type);
        r.put("overwritten", overwritten);
        r.put("atomic", atomic);
        if (hint != null) {
            r.put("hint", hint);
        }
        return r;
    }
}
