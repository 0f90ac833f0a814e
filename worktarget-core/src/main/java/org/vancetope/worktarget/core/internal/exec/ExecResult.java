package org.vancetope.worktarget.core.internal.exec;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The result of {@code exec_run} and {@code exec_status}: the job's state and its rendered output.
 *
 * @param id the job id
 * @param status the status
 * @param exitCode the shell's exit code, or null while running
 * @param durationMs milliseconds from start to exit (or to now while running)
 * @param lastOutputAt when the job last printed anything, or null when it never did
 * @param stdoutPath where the full stdout is (relative to the working directory when inside it), or null once
 *        the output files expired ({@code outputRetention})
 * @param stderrPath where the full stderr is, or null once the output files expired
 * @param stdout stdout, HEAD_TAIL-rendered to the inline cap
 * @param stderr stderr, HEAD_TAIL-rendered to the inline cap
 * @param truncated whether either stream was cut (inline or in its file)
 * @param hint what the caller should know to go on, or null: that the job still runs (and how to follow it;
 *        that the wait was capped), how to page the files and why a file stopped short (its cap, a full disk),
 *        that the files expired, that its deadline ended it (and how to give it more time), that the sandbox
 *        ended what it started in the background, that its exit code 1
 *        is the last command's answer ({@code grep} found nothing), not an error, that a failure came
 *        from bash syntax in dash, from the out-of-memory killer,
 *        from the server's process cap or from a program or script the shell did not find (and what the PATH has
 *        instead, or why the script's first line failed) or from a program that wanted an answer no one can give
 *        (a password, credentials, a host key, a terminal, a confirmation), or that a command which only
 *        changed its shell's state has no effect on the next call
 */
public record ExecResult(String id, JobStatus status, Integer exitCode, long durationMs, Instant lastOutputAt,
                         String stdoutPath, String stderrPath, String stdout, String stderr, boolean truncated,
                         String hint) {

    /** Validates. */
    public ExecResult {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(status, "status");
    }

    /**
     * The JSON-shaped tool result.
     *
     * @return the map, keys in the documented order; {@code hint} only when there is one
     */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("status", status.wire());
        m.put("exitCode", exitCode);
        m.put("durationMs", durationMs);
        m.put("lastOutputAt", lastOutputAt == null ? null : lastOutputAt.toString());
        m.put("stdoutPath", stdoutPath);
        m.put("stderrPath", stderrPath);
        m.put("stdout", stdout);
        m.put("stderr", stderr);
        m.put("truncated", truncated);
        if (hint != null) {
            m.put("hint", hint);
        }
        return m;
    }
}
