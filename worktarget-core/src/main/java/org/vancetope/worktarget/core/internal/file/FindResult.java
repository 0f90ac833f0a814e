package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result of {@code file_find}: the files shown of those that matched.
 *
 * @param path the directory searched, relative to the root
 * @param files the files shown
 * @param totalMatches all files that matched, shown or not
 * @param truncated whether files were left out
 * @param skippedGeneratedDirs generated directories pruned
 * @param skippedIgnored files and directories skipped because a {@code .gitignore} ignores them
 * @param hint why files were left out and how to see them, or null (then absent)
 */
record FindResult(String path, List<Found> files, int totalMatches, boolean truncated, int skippedGeneratedDirs,
                  int skippedIgnored, String hint) implements FileResult {

    /**
     * One file found.
     *
     * @param path the file, relative to the root
     * @param size its size in bytes
     * @param modified its modification time, ISO-8601
     */
    record Found(String path, long size, String modified) implements ResultEntry {
        /**
         * The JSON-shaped entry.
         *
         * @return path, size, modified
         */
        @Override
        public Map<String, Object> toMap() {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("path", path);
            f.put("size", size);
            f.put("modified", modified);
            return f;
        }
    }

    @Override
    public Map<String, Object> toMap() {
        List<Map<String, Object>> out = ResultEntry.toMaps(files);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("files", out);
        r.put("count", files.size());
        r.put("totalMatches", totalMatches);
        r.put("truncated", truncated);
        r.put("skippedGeneratedDirs", skippedGeneratedDirs);
        r.put("skippedIgnored", skippedIgnored);
        if (hint != null) {
            r.put("hint", hint);
        }
        return r;
    }
}
