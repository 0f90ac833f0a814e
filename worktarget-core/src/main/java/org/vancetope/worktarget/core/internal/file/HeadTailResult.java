package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of {@code file_head_tail}: the first and/or last lines of a file.
 *
 * @param path the file, relative to the root
 * @param head the first lines, or empty
 * @param tail the last lines, or empty
 * @param headLines lines in {@code head}
 * @param tailLines lines in {@code tail}
 * @param totalBytes the file's size
 * @param omittedBytes the bytes between head and tail (or after the head) that are not shown
 * @param truncated whether a side was cut (by the char cap or the result budget)
 * @param hint why the sides were cut to the result budget, or null (then absent)
 */
record HeadTailResult(String path, String head, String tail, int headLines, int tailLines, long totalBytes,
                      long omittedBytes, boolean truncated, String hint) implements FileResult {
    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("head", head);
        r.put("tail", tail);
        r.put("headLines", headLines);
        r.put("tailLines", tailLines);
        r.put("totalBytes", totalBytes);
        r.put("omittedBytes", omittedBytes);
        r.put("truncated", truncated);
        if (hint != null) {
            r.put("hint", hint);
        }
        return r;
    }
}
