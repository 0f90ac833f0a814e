package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result of {@code file_grep} with {@code countOnly}: how many matches each file has (matching
 * lines, or matches in multiline mode), in path order, and the total over all files.
 *
 * @param path the file or directory searched, relative to the root
 * @param files the files with at least one match that are listed
 * @param totalMatches the matches in all files, listed or not
 * @param filesMatched all files with a match, listed or not
 * @param truncated whether files were left out of {@code files} (by {@code limit} or the result budget)
 * @param filesSearched files actually searched
 * @param skippedLarge files over the size limit
 * @param skippedBinary binary files
 * @param skippedNonUtf8 files that may match but are not UTF-8
 * @param skippedGeneratedDirs generated directories pruned
 * @param skippedIgnored files and directories skipped because a {@code .gitignore} ignores them
 * @param hint why files were left out and how to see them, or null (then absent)
 */
record GrepCountResult(String path, List<FileCount> files, long totalMatches, int filesMatched, boolean truncated,
                       int filesSearched, int skippedLarge, int skippedBinary, int skippedNonUtf8,
                       int skippedGeneratedDirs, int skippedIgnored, String hint) implements FileResult {

    /**
     * One file's count.
     *
     * @param path the file, relative to the root
     * @param count its matches
     */
    record FileCount(String path, int count) implements ResultEntry {
        /**
         * The JSON-shaped entry.
         *
         * @return path, count
         */
        @Override
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("path", path);
            m.put("count", count);
            return m;
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
        r.put("filesMatched", filesMatched);
        r.put("truncated", truncated);
        r.put("filesSearched", filesSearched);
        r.put("skippedLarge", skippedLarge);
        r.put("skippedBinary", skippedBinary);
        r.put("skippedNonUtf8", skippedNonUtf8);
        r.put("skippedGeneratedDirs", skippedGeneratedDirs);
        r.put("skippedIgnored", skippedIgnored);
        if (hint != null) {
            r.put("hint", hint);
        }
        return r;
    }
}
