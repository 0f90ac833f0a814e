package org.vancetope.worktarget.core.internal.exec;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result of {@code exec_tail}: the last lines of one stream's file.
 *
 * @param id the job id
 * @param status the job's status
 * @param stream {@code stdout} or {@code stderr}
 * @param path where the stream's full file is, or null once the output files expired (the lines then come
 *        from the in-memory tail)
 * @param lines the last lines, oldest first, without line terminators
 * @param truncated whether fewer lines than asked were returned because they exceeded the read bound
 */
public record ExecTailResult(String id, JobStatus status, String stream, String path, List<String> lines,
                             boolean truncated) {

    /** Copies. */
    public ExecTailResult {
        lines = List.copyOf(lines);
    }

    /**
     * The JSON-shaped tool result: {@code id, status, stream, path, lines, text, truncated}.
     *
     * @return the map
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("status", status.wire());
        m.put("stream", stream);
        m.put("path", path);
        m.put("lines", lines);
        m.put("text", String.join("\n", lines));
        m.put("truncated", truncated);
        return m;
    }
}
