package org.vancetope.worktarget.core.internal.file;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The result of {@code file_edit}, for one edit or a list of them.
 *
 * @param path the file, relative to the root
 * @param line the line where the first replaced text starts
 * @param changed whether the content changed (false when every oldText equals its newText); with
 *        {@code dryRun}, whether it would change
 * @param replacements how many occurrences were replaced, over all edits (more than one per edit only with
 *        {@code replaceAll})
 * @param dryRun true when nothing was written because the call asked only for the diff
 * @param diff a short diff of the lines around each replacement, line numbers as each edit saw the text
 */
record EditResult(String path, int line, boolean changed, int replacements, boolean dryRun, String diff)
        implements FileResult {
    @Override
    public Map<String, Object> toMap() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", path);
        r.put("line", line);
        r.put("changed", changed);
        r.put("replacements", replacements);
        r.put("dryRun", dryRun);
        r.put("diff", diff);
        return r;
    }
}
