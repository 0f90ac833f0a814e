package org.vancetope.worktarget.core.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON-Schema objects of the tool results ({@code outputSchema}), field by field as the file
 * engine, the exec engine, the meta-tools and the transfer tools render them. A field that is always
 * there is required; a field that may be JSON null has a null union ({@code ["integer","null"]}); a
 * field that is sometimes left out ({@code hint}) is optional. Results with several shapes (a text,
 * binary or multi-file read; lines or counts of a search) are an {@code anyOf} of their shapes.
 *
 * <p>The schemas leave {@code additionalProperties} open, so that a newer peer that adds a field to a
 * result still passes a client's validation; the tests check that every field the engines produce is
 * declared.
 */
public final class ResultSchemas {
    private static final Map<String, Object> STRING = type("string");
    private static final Map<String, Object> STRING_OR_NULL = type("string", "null");
    private static final Map<String, Object> INTEGER = type("integer");
    private static final Map<String, Object> INTEGER_OR_NULL = type("integer", "null");
    private static final Map<String, Object> BOOLEAN = type("boolean");
    private static final Map<String, Object> STRINGS = arrayOf(STRING);
    private static final List<String> JOB_STATUSES = List.of("running", "exited", "failed", "killed", "timed_out");
    private static final List<String> FILE_TYPES = List.of("file", "directory", "symlink");

    private final Map<String, Object> properties = new LinkedHashMap<>();
    private final List<String> required = new ArrayList<>();

    private ResultSchemas() {
    }

    private static ResultSchemas fields() {
        return new ResultSchemas();
    }

    /** A field every result has. */
    private ResultSchemas always(String name, Map<String, Object> schema) {
        properties.put(name, schema);
        required.add(name);
        return this;
    }

    /** A field some results leave out. */
    private ResultSchemas sometimes(String name, Map<String, Object> schema) {
        properties.put(name, schema);
        return this;
    }

    private Map<String, Object> build() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "object");
        m.put("properties", new LinkedHashMap<>(properties));
        m.put("required", List.copyOf(required));
        return m;
    }

    private static Map<String, Object> type(String... types) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", types.length == 1 ? types[0] : List.of(types));
        return m;
    }

    private static Map<String, Object> arrayOf(Map<String, Object> items) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "array");
        m.put("items", items);
        return m;
    }

    private static Map<String, Object> oneOfValues(List<String> values) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "string");
        m.put("enum", values);
        return m;
    }

    /** An object that is one of several shapes. */
    private static Map<String, Object> anyOf(List<Map<String, Object>> shapes) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "object");
        m.put("anyOf", List.copyOf(shapes));
        return m;
    }

    private static Map<String, Object> textRead() {
        return fields().always("path", STRING).always("content", STRING).always("startLine", INTEGER)
                .always("endLine", INTEGER).always("totalLines", INTEGER_OR_NULL).always("totalChars", INTEGER_OR_NULL)
                .always("totalsKnown", BOOLEAN).always("truncated", BOOLEAN).always("nextStartLine", INTEGER_OR_NULL)
                .sometimes("hint", STRING).build();
    }

    private static Map<String, Object> binaryRead() {
        Map<String, Object> encoding = oneOfValues(List.of("base64"));
        return fields().always("path", STRING).always("encoding", encoding).always("mediaType", STRING)
                .always("bytes", INTEGER).always("content", STRING).build();
    }

    private static Map<String, Object> error() {
        return fields().always("code", STRING).always("message", STRING).build();
    }

    /** {@code file_read}: one text file, one binary file, or several files with their own errors. */
    public static Map<String, Object> fileRead() {
        Map<String, Object> failed = fields().always("path", STRING).always("error", error()).build();
        Map<String, Object> multi = fields().always("files", arrayOf(anyOf(List.of(textRead(), binaryRead(), failed))))
                .always("truncated", BOOLEAN).sometimes("hint", STRING).build();
        return anyOf(List.of(textRead(), binaryRead(), multi));
    }

    /** {@code file_write}. */
    public static Map<String, Object> fileWrite() {
        return fields().always("path", STRING).always("bytes", INTEGER).always("created", BOOLEAN)
                .sometimes("hint", STRING).build();
    }

    /** {@code file_edit}. */
    public static Map<String, Object> fileEdit() {
        return fields().always("path", STRING).always("line", INTEGER).always("changed", BOOLEAN)
                .always("replacements", INTEGER).always("dryRun", BOOLEAN).always("diff", STRING).build();
    }

    /** {@code file_list}. */
    public static Map<String, Object> fileList() {
        return fields().always("path", STRING).always("entries", STRINGS).always("count", INTEGER)
                .always("truncated", BOOLEAN).sometimes("hint", STRING).build();
    }

    /** {@code file_find}. */
    public static Map<String, Object> fileFind() {
        Map<String, Object> found = fields().always("path", STRING).always("size", INTEGER).always("modified", STRING)
                .build();
        return fields().always("path", STRING).always("files", arrayOf(found)).always("count", INTEGER)
                .always("totalMatches", INTEGER).always("truncated", BOOLEAN).always("skippedGeneratedDirs", INTEGER)
                .always("skippedIgnored", INTEGER).sometimes("hint", STRING).build();
    }

    private static ResultSchemas searchCounters(ResultSchemas s) {
        return s.always("truncated", BOOLEAN).always("filesSearched", INTEGER).always("skippedLarge", INTEGER)
                .always("skippedBinary", INTEGER).always("skippedNonUtf8", INTEGER)
                .always("skippedGeneratedDirs", INTEGER).always("skippedIgnored", INTEGER).sometimes("hint", STRING);
    }

    /** {@code file_grep}: matching lines, or with {@code countOnly} counts per file. */
    public static Map<String, Object> fileGrep() {
        Map<String, Object> match = fields().always("path", STRING).always("line", INTEGER).sometimes("endLine", INTEGER)
                .always("text", STRING).sometimes("before", STRINGS).sometimes("after", STRINGS).build();
        Map<String, Object> lines = searchCounters(fields().always("path", STRING).always("matches", arrayOf(match))
                .always("count", INTEGER).always("filesMatched", INTEGER)).build();
        Map<String, Object> fileCount = fields().always("path", STRING).always("count", INTEGER).build();
        Map<String, Object> counts = searchCounters(fields().always("path", STRING).always("files", arrayOf(fileCount))
                .always("count", INTEGER).always("totalMatches", INTEGER).always("filesMatched", INTEGER)).build();
        return anyOf(List.of(lines, counts));
    }

    /** {@code file_head_tail}. */
    public static Map<String, Object> fileHeadTail() {
        return fields().always("path", STRING).always("head", STRING).always("tail", STRING)
                .always("headLines", INTEGER).always("tailLines", INTEGER).always("totalBytes", INTEGER)
                .always("omittedBytes", INTEGER).always("truncated", BOOLEAN).sometimes("hint", STRING).build();
    }

    /** {@code file_count}: lines, characters and bytes, or with a pattern the matching lines. */
    public static Map<String, Object> fileCount() {
        Map<String, Object> sizes = fields().always("path", STRING).always("files", INTEGER).always("lines", INTEGER)
                .always("chars", INTEGER).always("bytes", INTEGER).always("skippedBinary", INTEGER)
                .always("skippedGeneratedDirs", INTEGER).sometimes("hint", STRING).build();
        Map<String, Object> matching = fields().always("path", STRING).always("files", INTEGER)
                .always("pattern", STRING).always("matchingLines", INTEGER).always("filesWithMatches", INTEGER)
                .always("skippedNonUtf8", INTEGER).always("skippedBinary", INTEGER)
                .always("skippedGeneratedDirs", INTEGER).sometimes("hint", STRING).build();
        return anyOf(List.of(sizes, matching));
    }

    /** {@code file_delete}. */
    public static Map<String, Object> fileDelete() {
        return fields().always("path", STRING).always("deleted", BOOLEAN).build();
    }

    /** {@code file_move}. */
    public static Map<String, Object> fileMove() {
        return fields().always("from", STRING).always("to", STRING).always("type", oneOfValues(FILE_TYPES))
                .always("overwritten", BOOLEAN).always("atomic", BOOLEAN).sometimes("hint", STRING).build();
    }

    /** {@code file_mkdir}. */
    public static Map<String, Object> fileMkdir() {
        return fields().always("path", STRING).always("created", BOOLEAN).sometimes("hint", STRING).build();
    }

    /** {@code file_stat}. */
    public static Map<String, Object> fileStat() {
        return fields().always("path", STRING).always("type", oneOfValues(FILE_TYPES)).always("size", INTEGER)
                .always("mode", STRING_OR_NULL).always("modified", STRING).sometimes("lines", INTEGER_OR_NULL)
                .sometimes("hint", STRING).build();
    }

    /** {@code file_tree}. */
    public static Map<String, Object> fileTree() {
        // a tree also shows the special files (FIFO, socket, device) that every other file tool refuses
        List<String> types = new ArrayList<>(FILE_TYPES);
        types.add("special");
        Map<String, Object> node = fields().always("path", STRING).always("type", oneOfValues(types))
                .sometimes("size", INTEGER_OR_NULL).build();
        return fields().always("path", STRING).always("maxDepth", INTEGER).always("entries", arrayOf(node))
                .always("count", INTEGER).always("truncated", BOOLEAN).always("skippedGeneratedDirs", INTEGER)
                .sometimes("hint", STRING).build();
    }

    private static Map<String, Object> job() {
        return fields().always("id", STRING).always("status", oneOfValues(JOB_STATUSES))
                .always("exitCode", INTEGER_OR_NULL).always("durationMs", INTEGER)
                .always("lastOutputAt", STRING_OR_NULL).always("stdoutPath", STRING_OR_NULL)
                .always("stderrPath", STRING_OR_NULL).always("stdout", STRING).always("stderr", STRING)
                .always("truncated", BOOLEAN).sometimes("hint", STRING).build();
    }

    /** {@code exec_run}. */
    public static Map<String, Object> execRun() {
        return job();
    }

    /** {@code exec_status}: one job, or without an id the list of jobs. */
    public static Map<String, Object> execStatus() {
        Map<String, Object> summary = fields().always("id", STRING).always("command", STRING)
                .always("status", oneOfValues(JOB_STATUSES)).always("exitCode", INTEGER_OR_NULL)
                .always("startedAt", STRING).always("finishedAt", STRING_OR_NULL).build();
        Map<String, Object> jobs = fields().always("jobs", arrayOf(summary)).always("count", INTEGER)
                .always("total", INTEGER).always("truncated", BOOLEAN).build();
        return anyOf(List.of(job(), jobs));
    }

    /** {@code exec_tail}. */
    public static Map<String, Object> execTail() {
        return fields().always("id", STRING).always("status", oneOfValues(JOB_STATUSES))
                .always("stream", oneOfValues(List.of("stdout", "stderr"))).always("path", STRING_OR_NULL)
                .always("lines", STRINGS).always("text", STRING).always("truncated", BOOLEAN).build();
    }

    /** {@code exec_kill}. */
    public static Map<String, Object> execKill() {
        return fields().always("id", STRING).always("killed", BOOLEAN).sometimes("hint", STRING).build();
    }

    private static Map<String, Object> target() {
        return fields().always("kind", oneOfValues(List.of("CLIENT", "WORK", "DAEMON"))).sometimes("targetName", STRING)
                .build();
    }

    /** {@code work_target_get}. */
    public static Map<String, Object> workTargetGet() {
        return fields().always("current", target()).always("explicit", BOOLEAN).always("clientBound", BOOLEAN)
                .sometimes("clientBoundUnknown", STRING).always("rootDirs", STRINGS).always("daemons", STRINGS).build();
    }

    /** {@code work_target_set}. */
    public static Map<String, Object> workTargetSet() {
        return fields().always("previous", target()).always("current", target()).sometimes("hint", STRING).build();
    }

    /** {@code client_file_upload} and {@code client_file_download}. */
    public static Map<String, Object> transfer() {
        return fields().always("ok", BOOLEAN).always("bytesWritten", INTEGER).always("hash", STRING_OR_NULL)
                .sometimes("error", STRING).sometimes("code", STRING).sometimes("resumeId", STRING).build();
    }

    /** {@code client_dir_upload} and {@code client_dir_download}. */
    public static Map<String, Object> directoryTransfer() {
        Map<String, Object> entry = fields().always("path", STRING)
                .always("type", oneOfValues(List.of("file", "dir", "link", "special")))
                .always("status", oneOfValues(List.of("written", "created", "skipped", "failed")))
                .sometimes("bytesWritten", INTEGER).sometimes("hash", STRING).sometimes("error", STRING)
                .sometimes("code", STRING).build();
        return fields().always("ok", BOOLEAN).always("filesWritten", INTEGER).always("bytesWritten", INTEGER)
                .always("entries", arrayOf(entry)).sometimes("error", STRING).sometimes("code", STRING).build();
    }

    /** {@code workspace_create_ephemeral_dir}. */
    public static Map<String, Object> ephemeralDir() {
        return fields().always("dirName", STRING).build();
    }
}
