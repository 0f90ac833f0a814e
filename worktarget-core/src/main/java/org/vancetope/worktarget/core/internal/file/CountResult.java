package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of {@code file_count}: the size of a file or tree in lines, chars and bytes, or, with a
 * pattern, its matching lines.
 *
 * @param path the file or directory, relative to the root
 * @param files the files counted
 * @param pattern the pattern, or null for a plain count
 * @param lines the lines, or with a pattern the matching lines
 * @param chars the UTF-16 chars (plain count only)
 * @param bytes the bytes (plain count only)
 * @param filesWithMatches the files with a matching line (pattern only)
 * @param skippedNonUtf8 files skipped as not UTF-8 (pattern only)
 * @param skippedBinary files skipped as binary
 * @param skippedGeneratedDirs generated directories pruned
 * @param hint what the count left out and how to include it, or null (then absent)
 */
record CountResult(String path, int files, String pattern, long lines, long chars, long bytes, int filesWithMatches,
                   int skippedNonUtf8, int skippedBinary, int skippedGeneratedDirs, String hint) implements FileResult {
    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("files", files);
        if (pattern == null) {
            r.put("lines", lines);
            r.put("chars", chars);
            r.put("bytes", bytes);
        } else {
            r.put("pattern", pattern);
            r.put("matchingLines", lines);
            r.put("filesWithMatches", filesWithMatches);
            r.put("skippedNonUtf8", skippedNonUtf8);
        }
        r.put("skippedBinary", skippedBinary);
        r.put("skippedGeneratedDirs", skippedGeneratedDirs);
        if (hint != null) {
            r.put("hint", hint);
        }
        return r;
    }
}
