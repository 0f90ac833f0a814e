package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of {@code file_read}: one window of a text file.
 *
 * @param path the file, relative to the root
 * @param content the window's text
 * @param startLine the first line of the window (1-based)
 * @param endLine the last line of the window, {@code startLine - 1} when it is empty
 * @param totalLines the file's lines, or null when they were not counted
 * @param totalChars the file's UTF-16 chars, or null when they were not counted
 * @param totalsKnown whether the totals were counted
 * @param truncated whether the window ended before the file did
 * @param nextStartLine where the next window starts, or null at the end
 * @param hint why the window was cut and how to go on, or null (then absent)
 */
record ReadResult(String path, String content, int startLine, int endLine, Long totalLines, Long totalChars,
                  boolean totalsKnown, boolean truncated, Integer nextStartLine, String hint) implements FileResult {
    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("content", content);
        r.put("startLine", startLine);
        r.put("endLine", endLine);
        r.put("totalLines", totalLines);
        r.put("totalChars", totalChars);
        r.put("totalsKnown", totalsKnown);
        r.put("truncated", truncated);
        r.put("nextStartLine", nextStartLine);
        if (hint != null) {
            r.put("hint", hint);
        }
        return r;
    }
}
