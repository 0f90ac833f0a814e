package org.vancetope.worktarget.core.internal.exec;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The result of {@code exec_status} without an id: the jobs of the caller's scope, newest first.
 *
 * @param jobs the jobs shown (at most {@link ExecEngine#MAX_LISTED_JOBS})
 * @param total how many jobs the scope holds
 * @param truncated whether jobs were left out
 */
public record ExecJobsResult(List<JobSummary> jobs, int total, boolean truncated) {
    /** Commands longer than this are cut in the listing. */
    public static final int COMMAND_CLIP_CHARS = 200;

    /** Validates and copies. */
    public ExecJobsResult {
        jobs = List.copyOf(Objects.requireNonNull(jobs, "jobs"));
    }

    /**
     * One job.
     *
     * @param id the job id
     * @param command its command, cut to {@link #COMMAND_CLIP_CHARS} characters
     * @param status its state
     * @param exitCode the exit code, or null while it runs
     * @param startedAt when it started
     * @param finishedAt when it finished, or null while it runs
     */
    public record JobSummary(String id, String command, JobStatus status, Integer exitCode, Instant startedAt,
                             Instant finishedAt) {
        /** Validates. */
        public JobSummary {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(command, "command");
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(startedAt, "startedAt");
        }

        /**
         * The JSON-shaped entry.
         *
         * @return id, command, status, exitCode, startedAt, finishedAt (null while running)
         */
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("id", id);
            m.put("command", command);
            m.put("status", status.wire());
            m.put("exitCode", exitCode);
            m.put("startedAt", startedAt.toString());
            m.put("finishedAt", finishedAt == null ? null : finishedAt.toString());
            return m;
        }
    }

    /**
     * The JSON-shaped tool result.
     *
     * @return jobs, count, total, truncated
     */
    public Map<String, Object> toMap() {
        List<Map<String, Object>> out = new ArrayList<>(jobs.size());
        for (JobSummary j : jobs) {
            out.add(j.toMap());
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jobs", out);
        m.put("count", jobs.size());
        m.put("total", total);
        m.put("truncated", truncated);
        return m;
    }

    static String clip(String command) {
        return command.length() <= COMMAND_CLIP_CHARS ? command
                : command.substring(0, COMMAND_CLIP_CHARS) + "…[" + (command.length() - COMMAND_CLIP_CHARS) + " more chars]";
    }
}
