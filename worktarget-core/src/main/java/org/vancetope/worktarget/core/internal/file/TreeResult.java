package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result of {@code file_tree}.
 *
 * @param path the directory shown, relative to the root
 * @param maxDepth the depth used
 * @param entries the entries shown, in tree order (each directory followed by what is in it)
 * @param count the entries shown
 * @param truncated whether entries were left out (then the deepest levels are the incomplete ones)
 * @param skippedGeneratedDirs generated directories shown but not descended into
 * @param hint why entries were left out and how to see them, or null (then absent)
 */
record TreeResult(String path, int maxDepth, List<Node> entries, int count, boolean truncated,
                  int skippedGeneratedDirs, String hint) implements FileResult {
    /**
     * One entry of the tree.
     *
     * @param path its path relative to the root; directories end with {@code '/'}
     * @param type {@code file}, {@code directory}, {@code symlink} or {@code other}
     * @param size its size in bytes, or null when sizes were not asked for or it is not a regular file
     * @param sizes whether sizes were asked for (only then is {@code size} present)
     */
    record Node(String path, String type, Long size, boolean sizes) implements ResultEntry {
        @Override
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("path", path);
            m.put("type", type);
            if (sizes) {
                m.put("size", size);
            }
            return m;
        }
    }

    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("maxDepth", maxDepth);
        r.put("entries", ResultEntry.toMaps(entries));
        r.put("count", count);
        r.put("truncated", truncated);
        r.put("skippedGeneratedDirs", skippedGeneratedDirs);
        if (hint != null) {
            r.put("hint", hint);
        }
        return r;
    }
}
