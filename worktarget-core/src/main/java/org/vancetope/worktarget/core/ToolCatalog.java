package org.vancetope.worktarget.core;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.vancetope.worktarget.core.internal.Json;
import org.vancetope.worktarget.core.internal.ResultSchemas;
import org.vancetope.worktarget.core.internal.Schema;
import org.vancetope.worktarget.core.internal.StrictSchemas;
import org.vancetope.worktarget.spi.ToolAnnotations;
import org.vancetope.worktarget.spi.ToolLabel;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The tools of the WorkTarget layer: the 17 generic wrappers an LLM sees ({@code file_read} …
 * {@code exec_kill}), the two meta-tools {@code work_target_get} / {@code work_target_set}, and the
 * 34 backend tools they route to ({@code client_*} for CLIENT and DAEMON, {@code work_*} for WORK).
 *
 * <p>An engine adds {@link #allowedTools()} to its allowed tools; a recipe removes
 * {@link #deferredTools()} from the LLM's manifest so the LLM does not see three names for one
 * operation. {@link #toolDefinitions(Collection)} exports the manifest (JSON-Schema definitions with
 * labels, output schemas and MCP hints); {@link #toolDefinitions(ToolFormat, Collection)} exports what
 * MCP, OpenAI function calling and Anthropic tool use take as it is, including their strict forms.
 *
 * <pre>{@code
 * Set<String> allowed = new LinkedHashSet<>(myEngineTools);
 * allowed.addAll(ToolCatalog.allowedTools());
 * String manifest = ToolCatalog.manifestJson();   // wrappers + meta-tools
 * }</pre>
 *
 * <p>The catalog is fixed; it does not list tools of integrators' own backends.
 */
public final class ToolCatalog {

    /** The name of the meta-tool that reports the current target. */
    public static final String WORK_TARGET_GET = "work_target_get";
    /** The name of the meta-tool that switches the target. */
    public static final String WORK_TARGET_SET = "work_target_set";
    /** The parameter that names a WORK RootDir. */
    public static final String DIR_NAME = "dirName";
    /** The prefix of the backend tools of CLIENT and DAEMON targets. */
    public static final String CLIENT_PREFIX = "client_";
    /** The prefix of the backend tools of the WORK target. */
    public static final String WORK_PREFIX = "work_";

    private static final List<ToolSpec> WRAPPERS;
    private static final List<ToolSpec> META;
    private static final List<ToolSpec> LLM_FACING;
    private static final Map<String, ToolSpec> BACKENDS;
    private static final Map<String, ToolSpec> WRAPPER_BY_NAME;

    static {
        List<ToolSpec> w = new ArrayList<>();
        String dirDesc = "WORK target only: the RootDir to work in. Normally omitted: the current work target decides.";
        String pathDesc = "Path relative to the work directory, with '/' separators.";
        String excludeDesc = "Globs of paths to leave out, e.g. [\"*.min.js\", \"fixtures\", \"docs/old/**\"]. A glob without '/' "
                + "matches a name at any depth; a matching directory is not entered. A leading '/' anchors a glob at "
                + "the searched directory; a trailing '/' is allowed and ignored (the glob then also matches files of "
                + "that name). At most 64.";
        String ignoredDesc = "Also search files and directories that .gitignore files ignore (default false: they are "
                + "skipped, as git and ripgrep do).";
        w.add(wrapper("file_read", "Read file",
                "Read a text file, or a window of it. Returns content, truncated, nextStartLine when more follows (page "
                        + "with startLine), and totalLines/totalChars: for files over 16 MiB these are null "
                        + "(totalsKnown=false) unless the page reaches the end; use file_count for them. A page holds at "
                        + "most 1 MiB of JSON. Several files at once: paths instead of path (at most 20); the result is "
                        + "files, one entry per path with the usual fields or its own error {code, message}, sharing the "
                        + "1 MiB. Binary files (images, PDFs, archives) are refused unless allowBinary is true, so that "
                        + "no large base64 text fills the context by accident; with it a binary file comes back whole as "
                        + "encoding 'base64', mediaType (e.g. image/png) and content, up to 512 KiB.",
                Set.of(ToolLabel.READ_ONLY, ToolLabel.CLOSED_WORLD), ResultSchemas.fileRead(), Schema.object()
                        .string("path", pathDesc + " Give path or paths, not both.", false)
                        .array("paths", "Several files to read in one call (at most 20), each with the same "
                                + "startLine/maxLines/maxChars; a missing or refused file gets its own error entry and "
                                + "does not fail the others.", Map.of("type", "string"), 1)
                        .integer("startLine", "First line to return, 1-based (default 1).", 1L, null, false)
                        .integer("maxLines", "Most lines to return (default: all that fit in maxChars).", 1L, null, false)
                        .integer("maxChars", "Most characters to return (default 8000).", 1L, null, false)
                        .bool("allowBinary", "Return a binary file (image, PDF, archive, any file with NUL bytes) whole "
                                + "as base64 with its mediaType instead of refusing it (default false). Text files are "
                                + "read as text either way; startLine/maxLines/maxChars do not apply to a binary file.")
                        .string(DIR_NAME, dirDesc, false)));
        w.add(wrapper("file_write", "Write file",
                "Create or overwrite a text file with the given content. Creates missing parent directories; the write is "
                        + "atomic and keeps the permissions of a file it replaces. Very large content is refused "
                        + "(size_limit; the limit depends on the memory of the process that runs the tool).",
                Set.of(ToolLabel.WRITE, ToolLabel.IDEMPOTENT, ToolLabel.CLOSED_WORLD), ResultSchemas.fileWrite(), Schema.object()
                        .string("path", pathDesc, true)
                        .string("content", "The complete new content of the file.", true)
                        .string(DIR_NAME, dirDesc, false)));
        w.add(wrapper("file_edit", "Edit file",
                "Replace text in a file: one edit (oldText, newText) or several (edits), applied in order to the "
                        + "file's content and written all at once or not at all. Each oldText must occur exactly once "
                        + "unless replaceAll is true. If any edit fails (oldText missing, or occurring more than once) "
                        + "the file is not changed and the error names the edit by its index. Returns a short diff and "
                        + "the number of replacements; dryRun shows the diff without writing. Very large files are "
                        + "refused (size_limit).",
                Set.of(ToolLabel.WRITE, ToolLabel.CLOSED_WORLD), ResultSchemas.fileEdit(), Schema.object()
                        .string("path", pathDesc, true)
                        .string("oldText", "The exact text to replace; must occur exactly once unless replaceAll is "
                                + "true. Give oldText and newText, or edits, not both.", false)
                        .string("newText", "The replacement text for oldText (may be empty).", false)
                        .bool("replaceAll", "With oldText: replace every occurrence instead of exactly one "
                                + "(default false).")
                        .array("edits", "Several edits, applied in order, each to the text the previous ones left; "
                                + "all are written or none. Use instead of oldText/newText.", Schema.object()
                                .string("oldText", "The exact text to replace; must occur exactly once in the text "
                                        + "this edit sees, unless replaceAll is true.", true)
                                .string("newText", "The replacement text (may be empty).", true)
                                .bool("replaceAll", "Replace every occurrence instead of exactly one (default false).")
                                .build(), 1)
                        .bool("dryRun", "Only show the diff and the number of replacements; do not write the file "
                                + "(default false).")
                        .string(DIR_NAME, dirDesc, false)));
        w.add(wrapper("file_list", "List directory",
                "List one directory level, sorted; directories end with '/'.",
                Set.of(ToolLabel.READ_ONLY, ToolLabel.CLOSED_WORLD), ResultSchemas.fileList(), Schema.object()
                        .string("path", "Directory relative to the work directory (default '.').", false)
                        .stringArray("exclude", "Globs of entry names to leave out of the listing, e.g. "
                                + "[\"*.log\", \"node_modules\"]. At most 64.", 64)
                        .string(DIR_NAME, dirDesc, false)));
        w.add(wrapper("file_find", "Find files",
                "Find files by glob, size and modification time. Generated directories (.git, node_modules, target, "
                        + "build, .venv, ...) are skipped unless includeGenerated is true; files and directories "
                        + "ignored by .gitignore files (and .git/info/exclude) are skipped unless includeIgnored is "
                        + "true. Supported .gitignore rules: '#' comments, '!' negation, a trailing '/' for "
                        + "directories, a '/' at the start or middle anchoring to the .gitignore's directory, '*', '?', "
                        + "'[...]', '**'; nested .gitignore files apply to their subtree. Not read: the global "
                        + "core.excludesFile and .gitignore files above the work directory.",
                Set.of(ToolLabel.READ_ONLY, ToolLabel.CLOSED_WORLD), ResultSchemas.fileFind(), Schema.object()
                        .string("path", "Directory to search (default '.').", false)
                        .string("pathGlob", "Glob on the path relative to 'path', e.g. '**/*.java'.", false)
                        .integer("minSize", "Smallest file size in bytes.", 0L, null, false)
                        .integer("maxSize", "Largest file size in bytes.", 0L, null, false)
                        .string("modifiedAfter", "Only files modified after this ISO-8601 instant.", false)
                        .string("modifiedBefore", "Only files modified before this ISO-8601 instant.", false)
                        .choice("sortBy", "Sort order of the results (default path).", List.of("path", "mtime", "size"))
                        .integer("maxDepth", "Deepest directory level to descend (default 12).", 0L, null, false)
                        .integer("limit", "Most results (default 200, at most 2000).", 1L, 2000L, false)
                        .bool("includeGenerated", "Also search generated directories (default false).")
                        .bool("includeIgnored", ignoredDesc)
                        .stringArray("exclude", excludeDesc, 64)
                        .string(DIR_NAME, dirDesc, false)));
        w.add(wrapper("file_grep", "Search file contents",
                "Search file contents with a Java regular expression. Returns matching lines with path and line number. "
                        + "Binary, non-UTF-8 and files over 2 MiB are skipped and counted. At most 1 MiB of JSON of "
                        + "matches (context lines included) is returned: then truncated=true and a hint says how to get "
                        + "the rest. A search that runs longer than 30 s fails with timeout. Files ignored by .gitignore "
                        + "are skipped unless includeIgnored is true (same rules as file_find).",
                Set.of(ToolLabel.READ_ONLY, ToolLabel.CLOSED_WORLD), ResultSchemas.fileGrep(), Schema.object()
                        .string("pattern", "Java regular expression (or plain text with literal=true).", true)
                        .string("path", "Directory or single file to search (default '.').", false)
                        .string("pathGlob", "Only files whose relative path matches this glob, e.g. '**/*.md'.", false)
                        .bool("caseInsensitive", "Ignore case (default false).")
                        .integer("contextBefore", "Lines of context before each match (default 0).", 0L, 20L, false)
                        .integer("contextAfter", "Lines of context after each match (default 0).", 0L, 20L, false)
                        .integer("maxDepth", "Deepest directory level to descend (default 12).", 0L, null, false)
                        .integer("limit", "Most matches (default 200, at most 1000); with countOnly, most files listed.",
                                1L, 1000L, false)
                        .bool("includeGenerated", "Also search generated directories (default false).")
                        .bool("literal", "Treat pattern as plain text, not a regex: characters such as ( [ . * + ? "
                                + "match themselves (default false).")
                        .bool("countOnly", "Return only counts, no lines (default false): files (path and count: "
                                + "its matching lines, or its matches with multiline) and totalMatches. Cannot be "
                                + "combined with context lines.")
                        .bool("multiline", "Let a match span lines (default false): use \\n in the pattern, and (?s) "
                                + "to let '.' match line breaks. A match spans at most 200 lines; each match gives "
                                + "its start line, its endLine and the matched lines as text.")
                        .bool("includeIgnored", ignoredDesc)
                        .stringArray("exclude", excludeDesc, 64)
                        .string(DIR_NAME, dirDesc, false)));
        w.add(wrapper("file_head_tail", "Head and tail of a file",
                "Show the first and/or last lines of a file of any size (each at most 5000 lines).",
                Set.of(ToolLabel.READ_ONLY, ToolLabel.CLOSED_WORLD), ResultSchemas.fileHeadTail(), Schema.object()
                        .string("path", pathDesc, true)
                        .integer("head", "Lines from the start (default 0).", 0L, 5000L, false)
                        .integer("tail", "Lines from the end (default 0).", 0L, 5000L, false)
                        .string(DIR_NAME, dirDesc, false)));
        w.add(wrapper("file_count", "Count lines",
                "Count lines, characters and bytes of a file or a directory tree, or the lines matching a pattern.",
                Set.of(ToolLabel.READ_ONLY, ToolLabel.CLOSED_WORLD), ResultSchemas.fileCount(), Schema.object()
                        .string("path", "File or directory (default '.').", false)
                        .string("pathGlob", "In a directory: only files matching this glob.", false)
                        .integer("maxDepth", "Deepest directory level to descend (default 12).", 0L, null, false)
                        .string("pattern", "Count only lines matching this Java regular expression.", false)
                        .bool("includeGenerated", "Also count in generated directories (default false).")
                        .string(DIR_NAME, dirDesc, false)));
        w.add(wrapper("file_delete", "Delete file",
                "Delete one file. Directories are refused. A missing file returns deleted=false.",
                Set.of(ToolLabel.WRITE, ToolLabel.IDEMPOTENT, ToolLabel.CLOSED_WORLD), ResultSchemas.fileDelete(), Schema.object()
                        .string("path", pathDesc, true)
                        .string(DIR_NAME, dirDesc, false)));
        w.add(wrapper("file_move", "Move or rename",
                "Rename or move a file, directory or symlink (the link itself) inside the work directory, as one atomic "
                        + "rename where the file system allows it. Never replaces a directory, never replaces a file by a "
                        + "directory or the other way round, and replaces an existing file only with overwrite=true. "
                        + "Returns from, to, type (file, directory or symlink), overwritten and atomic (false only when "
                        + "the rename crossed file systems and was done as copy and delete; a hint then says so). On "
                        + "failure nothing was moved: not_found (source or target directory missing), exists (target "
                        + "in the way), invalid_params (the work directory itself, a directory into itself), "
                        + "path_escape (outside the work directory).",
                Set.of(ToolLabel.WRITE, ToolLabel.CLOSED_WORLD), ResultSchemas.fileMove(), Schema.object()
                        .string("from", "The file or directory to move, relative to the work directory.", true)
                        .string("to", "Its new path, including the new name, relative to the work directory.", true)
                        .bool("overwrite", "Replace an existing file at 'to' (default false). A directory is never "
                                + "replaced.")
                        .bool("createParents", "Create missing directories of 'to' (default false: they must exist).")
                        .string(DIR_NAME, dirDesc, false)));
        w.add(wrapper("file_mkdir", "Create directory",
                "Create a directory and any missing parent directories. Returns path and created (false when the "
                        + "directory already existed, which is not an error). Fails with exists when a file has that "
                        + "name, invalid_params when a parent is a file.",
                Set.of(ToolLabel.WRITE, ToolLabel.NON_DESTRUCTIVE, ToolLabel.IDEMPOTENT, ToolLabel.CLOSED_WORLD), ResultSchemas.fileMkdir(), Schema.object()
                        .string("path", "The directory to create, relative to the work directory.", true)
                        .string(DIR_NAME, dirDesc, false)));
        w.add(wrapper("file_stat", "Describe file",
                "Describe one file or directory without reading it: type (file, directory, or symlink: the link "
                        + "itself is described, not followed), size in bytes, mode (POSIX permissions as octal, e.g. "
                        + "'0644', or null where the file system has none) and modified (ISO-8601). With "
                        + "countLines=true also lines (null for anything but a regular file). Fails with not_found "
                        + "when nothing is there (call file_list on the parent), path_escape outside the work directory; "
                        + "special files (FIFO, socket, device) are refused as by every file tool.",
                Set.of(ToolLabel.READ_ONLY, ToolLabel.CLOSED_WORLD), ResultSchemas.fileStat(), Schema.object()
                        .string("path", "File or directory relative to the work directory (default '.').", false)
                        .bool("countLines", "Also count the lines of a file (reads it; default false).")
                        .string(DIR_NAME, dirDesc, false)));
        w.add(wrapper("file_tree", "Directory tree",
                "Show a directory tree: entries in tree order, each with path (directories end with '/') and type "
                        + "(file, directory, symlink, or special: a FIFO, socket or device, which no file tool opens), "
                        + "and with sizes=true the size of each file. Links are shown, not followed; generated "
                        + "directories (.git, node_modules, target, ...) are shown but not entered unless "
                        + "includeGenerated is true. At most 1000 entries and 1 MiB of JSON: then truncated=true, the "
                        + "deepest levels are incomplete and a hint says how to see the rest (a subdirectory, a lower "
                        + "maxDepth).",
                Set.of(ToolLabel.READ_ONLY, ToolLabel.CLOSED_WORLD), ResultSchemas.fileTree(), Schema.object()
                        .string("path", "Directory relative to the work directory (default '.').", false)
                        .integer("maxDepth", "Deepest directory level to enter (default 3; 0 = only the entries of "
                                + "'path').", 0L, null, false)
                        .bool("sizes", "Also show the size of each file in bytes (default false).")
                        .bool("includeGenerated", "Also enter generated directories (default false).")
                        .string(DIR_NAME, dirDesc, false)));
        w.add(wrapper("exec_run", "Run shell command",
                "Run a shell command (/bin/sh -c) in the work directory, or in cwd below it. Each call starts a new "
                        + "shell: a cd, export or source does not carry over to the next call. Returns when it exits or "
                        + "after waitMs, whichever is first; a still-running job keeps its id for exec_status, exec_tail and exec_kill. stdout "
                        + "and stderr are shown as a terminal shows them (colour codes dropped, progress redraws applied); "
                        + "long output is cut to head and tail; stdoutPath/stderrPath keep every byte. Read the hint "
                        + "when there is one: it says what the exit code or the output alone does not (a program not "
                        + "installed and what is instead, a grep that only found nothing, a prompt no one can answer, "
                        + "a deadline, a still-running job).",
                Set.of(ToolLabel.SIDE_EFFECT), ResultSchemas.execRun(), Schema.object()
                        .string("command", "The shell command.", true)
                        .string("cwd", "Directory to run in, relative to the work directory (default '.'); the same as "
                                + "starting the command with 'cd DIR && '.", false)
                        .integer("waitMs", "How long to wait for the exit, in ms (default 15000).", 0L, null, false)
                        .integer("deadlineSeconds", "Kill the job (whole process tree) after this many seconds.", 1L, null, false)
                        .stringMap("env", "Extra environment variables for the job; may override HOME and PATH.")
                        .string("stdin", "Text given to the command's standard input, which is then closed (default: "
                                + "an empty input). At most 1 MiB; for more, write a file with file_write and use "
                                + "'command < file'.", false)
                        .string(DIR_NAME, dirDesc, false)));
        w.add(wrapper("exec_status", "Job status",
                "Status and current output of a job started by exec_run. Without id: the jobs of this session, "
                        + "newest first (at most 100): id, command, status, exitCode, startedAt, finishedAt, no output.",
                Set.of(ToolLabel.READ_ONLY, ToolLabel.CLOSED_WORLD), ResultSchemas.execStatus(), Schema.object()
                        .string("id", "The job id from exec_run; omit it to list the jobs.", false)));
        w.add(wrapper("exec_tail", "Job output tail",
                "The last n lines (default 10, at most 500) of a job's stdout or stderr.",
                Set.of(ToolLabel.READ_ONLY, ToolLabel.CLOSED_WORLD), ResultSchemas.execTail(), Schema.object()
                        .string("id", "The job id from exec_run.", true)
                        .integer("n", "Number of lines (default 10, at most 500).", 1L, 500L, false)
                        .choice("stream", "Which stream (default stdout).", List.of("stdout", "stderr"))));
        w.add(wrapper("exec_kill", "Kill job",
                "Kill a job and its whole process tree. For a job that already finished, it ends what the job left "
                        + "running in the background (e.g. a server started with '&'). Unknown jobs, and finished ones "
                        + "that left nothing, return killed=false with a hint saying which.",
                Set.of(ToolLabel.SIDE_EFFECT, ToolLabel.IDEMPOTENT, ToolLabel.CLOSED_WORLD), ResultSchemas.execKill(), Schema.object()
                        .string("id", "The job id from exec_run.", true)));
        WRAPPERS = List.copyOf(w);

        Map<String, ToolSpec> byName = new LinkedHashMap<>();
        for (ToolSpec s : WRAPPERS) {
            byName.put(s.name(), s);
        }
        WRAPPER_BY_NAME = Collections.unmodifiableMap(byName);

        META = List.of(
                new ToolSpec(WORK_TARGET_GET,
                        "Report where file_* and exec_* tools currently run (the work target) and what else is available: "
                                + "whether a client is connected, the project's RootDir names and its online daemons.",
                        false, Set.of(ToolLabel.READ_ONLY, ToolLabel.CLOSED_WORLD), Schema.object().build(),
                        "Current work target", ResultSchemas.workTargetGet()),
                new ToolSpec(WORK_TARGET_SET,
                        "Switch where file_* and exec_* tools run for this process. kind CLIENT = the user's machine, WORK = a "
                                + "server workspace RootDir (targetName = RootDir name, omit for a temporary one), DAEMON = a "
                                + "named daemon (targetName required). Returns the previous and the current target, and a hint "
                                + "when the new target cannot be reached now (no such daemon connected, no such RootDir, no "
                                + "client): the switch is made anyway, and calls fail until it can be reached.",
                        false, Set.of(ToolLabel.WRITE, ToolLabel.NON_DESTRUCTIVE, ToolLabel.IDEMPOTENT,
                                ToolLabel.CLOSED_WORLD), Schema.object()
                                .choice("kind", "CLIENT, WORK or DAEMON.", List.of("CLIENT", "WORK", "DAEMON"), true)
                                .string("targetName", "WORK: RootDir name (optional). DAEMON: daemon name (required).", false)
                                .build(), "Switch work target", ResultSchemas.workTargetSet()));
        List<ToolSpec> llm = new ArrayList<>(WRAPPERS);
        llm.addAll(META);
        LLM_FACING = List.copyOf(llm);

        Map<String, ToolSpec> backends = new LinkedHashMap<>();
        for (ToolSpec s : WRAPPERS) {
            ToolSpec client = new ToolSpec(CLIENT_PREFIX + s.name(),
                    s.description() + " Runs on the client machine, in its work directory.", true, s.labels(),
                    Schema.without(s.paramsSchema(), DIR_NAME), s.title() + " (client)", s.outputSchema());
            backends.put(client.name(), client);
        }
        for (ToolSpec s : WRAPPERS) {
            ToolSpec work = new ToolSpec(WORK_PREFIX + s.name(),
                    s.description() + " Runs in a server workspace RootDir (dirName; default the process's temp RootDir).",
                    true, s.labels(), s.paramsSchema(), s.title() + " (workspace)", s.outputSchema());
            backends.put(work.name(), work);
        }
        BACKENDS = Collections.unmodifiableMap(backends);
    }

    private ToolCatalog() {
    }

    private static ToolSpec wrapper(String name, String title, String description, Set<ToolLabel> labels,
                                    Map<String, Object> output, Schema schema) {
        return new ToolSpec(name, description, true, labels, schema.build(), title, output);
    }

    /**
     * The 17 generic wrappers, in manifest order.
     *
     * @return the wrapper specs
     */
    public static List<ToolSpec> wrappers() {
        return WRAPPERS;
    }

    /**
     * The two meta-tools ({@code primary = false}).
     *
     * @return the meta-tool specs
     */
    public static List<ToolSpec> metaTools() {
        return META;
    }

    /**
     * The 19 tools an LLM sees: the 17 wrappers then the two meta-tools ({@code work_target_get},
     * {@code work_target_set}), in manifest order; what {@link #manifestJson(ToolFormat)} exports, and what
     * to pass to {@link #toolDefinitions(ToolFormat, java.util.Collection)} for a model API.
     *
     * @return the LLM-facing specs
     */
    public static List<ToolSpec> llmTools() {
        return LLM_FACING;
    }

    /**
     * The 34 backend tools: the 17 {@code client_*} then the 17 {@code work_*}.
     *
     * @return the backend specs
     */
    public static List<ToolSpec> backendTools() {
        return List.copyOf(BACKENDS.values());
    }

    /**
     * A wrapper by name.
     *
     * @param name e.g. {@code "file_read"}
     * @return the spec, or empty
     */
    public static Optional<ToolSpec> wrapper(String name) {
        return Optional.ofNullable(WRAPPER_BY_NAME.get(name));
    }

    /**
     * A backend tool's standard spec by name.
     *
     * @param name e.g. {@code "work_file_read"}
     * @return the spec, or empty
     */
    public static Optional<ToolSpec> backend(String name) {
        return Optional.ofNullable(BACKENDS.get(name));
    }

    /**
     * The backend tool a wrapper routes to for a target kind: {@code client_*} for CLIENT and DAEMON,
     * {@code work_*} for WORK.
     *
     * @param wrapper a wrapper name
     * @param kind the target kind
     * @return the backend tool name
     */
    public static String backendName(String wrapper, WorkTargetKind kind) {
        return (kind == WorkTargetKind.WORK ? WORK_PREFIX : CLIENT_PREFIX) + wrapper;
    }

    /**
     * What an engine adds to its allowed tools: the 17 wrappers, the 2 meta-tools and the 34 backends.
     *
     * @return 53 names, in manifest order
     */
    public static Set<String> allowedTools() {
        Set<String> s = new LinkedHashSet<>();
        WRAPPERS.forEach(t -> s.add(t.name()));
        META.forEach(t -> s.add(t.name()));
        s.addAll(BACKENDS.keySet());
        return Collections.unmodifiableSet(s);
    }

    /**
     * What a recipe defers (hides from the LLM's manifest): the 34 backend names.
     *
     * @return the backend names
     */
    public static Set<String> deferredTools() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(BACKENDS.keySet()));
    }

    /**
     * Exports tool definitions as the manifest: {@code name}, {@code title}, {@code description},
     * {@code inputSchema} (the JSON-Schema object), {@code outputSchema}, {@code annotations} (the MCP
     * hints), plus {@code primary} and {@code labels}. For a provider's API as it is, use
     * {@link #toolDefinitions(ToolFormat, Collection)}.
     *
     * @param specs the tools to export
     * @return JSON-shaped definitions
     */
    public static List<Map<String, Object>> toolDefinitions(Collection<ToolSpec> specs) {
        List<Map<String, Object>> out = new ArrayList<>();
        for (ToolSpec s : specs) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("name", s.name());
            d.put("title", s.title());
            d.put("description", s.description());
            d.put("primary", s.primary());
            d.put("labels", s.labels().stream().sorted().map(ToolLabel::wire).toList());
            d.put("inputSchema", s.paramsSchema());
            d.put("outputSchema", s.outputSchema());
            d.put("annotations", annotations(s));
            out.add(d);
        }
        return out;
    }

    /**
     * Exports tool definitions in a provider's format, as its API takes them (see {@link ToolFormat}).
     *
     * <p>{@link ToolFormat#ANTHROPIC_STRICT} keeps within what Anthropic takes in one request with strict
     * tools (at most 20 strict tools, 24 optional parameters and 16 union-typed parameters across them): in
     * order, each tool that still fits is exported strict ({@code "strict": true}, its schema rewritten),
     * each that does not as a plain {@link ToolFormat#ANTHROPIC} tool. Put the tools whose arguments
     * matter most first, or name them with {@link #toolDefinitions(ToolFormat, Collection, Set)}.
     *
     * <pre>{@code
     * List<Map<String, Object>> tools = ToolCatalog.toolDefinitions(ToolFormat.OPENAI_STRICT, ToolCatalog.wrappers());
     * // [{"type":"function","name":"file_read","description":"...","parameters":{...},"strict":true}, ...]
     * }</pre>
     *
     * @param format the format
     * @param specs the tools to export
     * @return JSON-shaped definitions, one per spec, in order
     */
    public static List<Map<String, Object>> toolDefinitions(ToolFormat format, Collection<ToolSpec> specs) {
        Objects.requireNonNull(format, "format");
        if (format == ToolFormat.ANTHROPIC_STRICT) {
            return anthropicStrict(specs, null);
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (ToolSpec s : specs) {
            out.add(definition(format, s));
        }
        return out;
    }

    /**
     * Exports tool definitions in a strict format with strict mode only for the named tools; the others
     * get the provider's plain form ({@link ToolFormat#OPENAI} with {@code "strict": false}, or
     * {@link ToolFormat#ANTHROPIC}), all in one list in the order of {@code specs}.
     *
     * <pre>{@code
     * // the edits and commands exact, the searches (many optional parameters) not
     * List<Map<String, Object>> tools = ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC_STRICT,
     *         ToolCatalog.wrappers(), Set.of("file_write", "file_edit", "exec_run"));
     * }</pre>
     *
     * @param format {@link ToolFormat#OPENAI_STRICT} or {@link ToolFormat#ANTHROPIC_STRICT}
     * @param specs the tools to export
     * @param strict the names of the tools to export strict, each one of {@code specs}
     * @return JSON-shaped definitions, one per spec, in order
     * @throws IllegalArgumentException when the format has no strict mode, a name is not among the specs,
     *     or (Anthropic) the named tools exceed what one request takes or one of them cannot be strict
     */
    public static List<Map<String, Object>> toolDefinitions(ToolFormat format, Collection<ToolSpec> specs,
                                                            Set<String> strict) {
        Objects.requireNonNull(format, "format");
        Set<String> named = Set.copyOf(strict);
        if (format != ToolFormat.OPENAI_STRICT && format != ToolFormat.ANTHROPIC_STRICT) {
            throw new IllegalArgumentException(format + " has no strict mode; name strict tools with OPENAI_STRICT "
                    + "or ANTHROPIC_STRICT.");
        }
        Set<String> unknown = new LinkedHashSet<>(named);
        specs.forEach(s -> unknown.remove(s.name()));
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("The strict tools " + unknown + " are not among the tools exported; "
                    + "name only tools of specs.");
        }
        if (format == ToolFormat.ANTHROPIC_STRICT) {
            return anthropicStrict(specs, named);
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (ToolSpec s : specs) {
            out.add(definition(named.contains(s.name()) ? ToolFormat.OPENAI_STRICT : ToolFormat.OPENAI, s));
        }
        return out;
    }

    /**
     * The Anthropic export of a request: strict the named tools (checked against the request limits), or
     * with {@code named} null, in order each tool that still fits.
     */
    private static List<Map<String, Object>> anthropicStrict(Collection<ToolSpec> specs, Set<String> named) {
        List<Map<String, Object>> out = new ArrayList<>();
        int tools = 0;
        int optional = 0;
        int union = 0;
        for (ToolSpec s : specs) {
            boolean wanted = named == null || named.contains(s.name());
            Map<String, Object> schema = wanted ? StrictSchemas.anthropic(s.paramsSchema()) : null;
            List<String> problems = wanted ? StrictSchemas.anthropicProblems(schema) : List.of();
            int o = wanted ? StrictSchemas.optionalParameters(schema) : 0;
            int u = wanted ? StrictSchemas.unionParameters(schema) : 0;
            boolean fits = problems.isEmpty() && tools < StrictSchemas.ANTHROPIC_MAX_STRICT_TOOLS
                    && optional + o <= StrictSchemas.ANTHROPIC_MAX_OPTIONAL
                    && union + u <= StrictSchemas.ANTHROPIC_MAX_UNION;
            if (named != null && wanted && !fits) {
                throw new IllegalArgumentException(problems.isEmpty()
                        ? "Anthropic takes at most " + StrictSchemas.ANTHROPIC_MAX_STRICT_TOOLS + " strict tools with "
                        + StrictSchemas.ANTHROPIC_MAX_OPTIONAL + " optional and " + StrictSchemas.ANTHROPIC_MAX_UNION
                        + " union-typed parameters across them in one request; with " + s.name() + " (" + o
                        + " optional, " + u + " union-typed) the strict tools would have " + (tools + 1) + ", "
                        + (optional + o) + " and " + (union + u) + ". Name fewer strict tools."
                        : s.name() + " cannot be strict: " + String.join("; ", problems) + ". Leave it out of the "
                        + "strict tools.");
            }
            if (wanted && fits) {
                tools++;
                optional += o;
                union += u;
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("name", s.name());
                d.put("description", s.description());
                d.put("input_schema", schema);
                d.put("strict", true);
                out.add(d);
            } else {
                out.add(definition(ToolFormat.ANTHROPIC, s));
            }
        }
        return out;
    }

    /** One definition in a format other than {@link ToolFormat#ANTHROPIC_STRICT} (see {@link #anthropicStrict}). */
    private static Map<String, Object> definition(ToolFormat format, ToolSpec s) {
        Map<String, Object> d = new LinkedHashMap<>();
        switch (format) {
            case MCP -> {
                d.put("name", s.name());
                d.put("title", s.title());
                d.put("description", s.description());
                d.put("inputSchema", s.paramsSchema());
                d.put("outputSchema", s.outputSchema());
                d.put("annotations", annotations(s));
            }
            case OPENAI, OPENAI_STRICT -> {
                boolean strict = format == ToolFormat.OPENAI_STRICT;
                d.put("type", "function");
                d.put("name", s.name());
                d.put("description", s.description());
                d.put("parameters", strict ? StrictSchemas.openAi(s.paramsSchema()) : s.paramsSchema());
                d.put("strict", strict);
            }
            case ANTHROPIC -> {
                d.put("name", s.name());
                d.put("description", s.description());
                d.put("input_schema", s.paramsSchema());
            }
            default -> throw new IllegalStateException("not a single-tool format: " + format);
        }
        return d;
    }

    private static Map<String, Object> annotations(ToolSpec s) {
        ToolAnnotations a = s.annotations();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("title", a.title());
        m.put("readOnlyHint", a.readOnlyHint());
        m.put("destructiveHint", a.destructiveHint());
        m.put("idempotentHint", a.idempotentHint());
        m.put("openWorldHint", a.openWorldHint());
        return m;
    }

    /**
     * The LLM-facing tools (wrappers and meta-tools) in a provider's format as pretty-printed JSON;
     * pinned by golden-file tests like {@link #manifestJson()}.
     *
     * @param format the format
     * @return the JSON text
     */
    public static String manifestJson(ToolFormat format) {
        return Json.pretty(toolDefinitions(format, LLM_FACING));
    }

    /**
     * The LLM-facing manifest (wrappers and meta-tools) as pretty-printed JSON; pinned by a golden-file
     * test so that every schema change is deliberate.
     *
     * @return the JSON text
     */
    public static String manifestJson() {
        return Json.pretty(toolDefinitions(LLM_FACING));
    }
}
