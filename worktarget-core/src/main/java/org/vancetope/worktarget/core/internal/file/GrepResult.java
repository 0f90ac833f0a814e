package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result of {@code file_grep}: the matches kept, in (path, line) order, and what was searched.
 *
 * @param path the file or directory searched, relative to the root
 * @param matches the matches kept
 * @param truncated whether matches were left out (by {@code limit} or the result budget)
 * @param filesSearched files actually searched
 * @param filesMatched files with a match found
 * @param skippedLarge files over the size limit
 * @param skippedBinary binary files
 * @param skippedNonUtf8 files that may match but are not UTF-8
 * @param skippedGeneratedDirs generated directories pruned
 * @param skippedIgnored files and directories skipped because a {@code .gitignore} ignores them
 * @param hint why matches were left out and how to get them, or null (then absent)
 */
record GrepResult(String path, List<Match> matches, boolean truncated, int filesSearched, int filesMatched,
                  int skippedLarge, int skippedBinary, int skippedNonUtf8, int skippedGeneratedDirs, int skippedIgnored, String hint)
        implements FileResult {

    /**
     * One matching line.
     *
     * @param path the file, relative to the root
     * @param line the 1-based line number
     * @param text the line, clipped
     * @param before the context lines before it, or null when none were asked for (then absent)
     * @param after the context lines after it, or null when none were asked for (then absent)
     * @param endLine the line a multiline match ends on, or null outside multiline mode (then absent)
     */
    record Match(String path, int line, String text, List<String> before, List<String> after, Integer endLine)
            implements ResultEntry {
        /**
         * The JSON-shaped match.
         *
         * @return path, line, endLine (multiline), text, and before/after when asked for
         */
        @Override
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("path", path);
            m.put("line", line);
            if (endLine != null) {
                m.put("endLine", endLine);
            }
            m.put("text", text);
            if (before != null) {
                m.put("before", before);
            }
            if (after != null) {
                m.put("after", after);
            }
            return m;
        }
    }

    @Override
    public Map<String, Object> toMap() {
        List<Map<String, Object>> out = ResultEntry.toMaps(matches);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("matches", out);
        r.put("count", matches.size());
        r.put("truncated", truncated);
        r.put("filesSearched", filesSearched);
        r.put("filesMatched", filesMatched);
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
