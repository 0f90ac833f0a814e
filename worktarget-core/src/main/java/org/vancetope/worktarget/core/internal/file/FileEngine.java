package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.core.internal.path.StagedFile;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The file engine: the nine file operations on any {@link java.nio.file.FileSystem}, every path going
 * through a {@link ConfinedRoot}. One instance serves every backend, so results have the same shape on
 * CLIENT, WORK and DAEMON; paths in results are relative to the gate's root with {@code '/'}.
 *
 * <p>Single files are opened through {@link SafeDirectory} (no link followed in any component where
 * the platform allows it); writes are staged by the root ({@link StagedFile}) and renamed over the
 * target. Walks ({@code file_find}, {@code file_grep}, {@code file_count}) use a parallel
 * {@code lstat} walk that never follows links, prunes generated directories while walking, and opens
 * files with {@link LinkOption#NOFOLLOW_LINKS}.
 *
 * <p>Thread-safe. It does not know about RootDirs, processes or WorkTargets.
 */
public final class FileEngine {
    private static final int CHUNK = 64 * 1024;
    private static final int SNIFF = 8 * 1024;
    private static final String CLIP_MARKER = "…[clipped %d chars]";

    /** Walks and searches of all engines share one pool, sized to the machine, unless settings ask otherwise. */
    private static final ForkJoinPool SHARED_POOL = new ForkJoinPool(Runtime.getRuntime().availableProcessors());
    /** One read buffer per thread, grown to the largest file read so far (at most the grep size limit + 1). */
    private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[CHUNK]);
    private static final ThreadLocal<CharsetDecoder> DECODERS = ThreadLocal.withInitial(TextScan::strictUtf8);

    private final FileToolSettings settings;
    private final ForkJoinPool pool;

    /**
     * An engine with the given limits.
     *
     * @param settings the limits
     */
    public FileEngine(FileToolSettings settings) {
        this.settings = settings;
        this.pool = settings.parallelism() == SHARED_POOL.getParallelism() ? SHARED_POOL
                : new ForkJoinPool(settings.parallelism());
    }

    /**
     * The limits.
     *
     * @return the settings
     */
    public FileToolSettings settings() {
        return settings;
    }

    /**
     * Runs one file operation.
     *
     * @param operation the wrapper name, e.g. {@code "file_read"}
     * @param gate the gate of the root to work in
     * @param params the parameters (a {@code dirName} entry is ignored)
     * @return the JSON-shaped result
     * @throws ToolException with a stable code and a message saying what to do next
     */
    public Map<String, Object> run(String operation, ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        return switch (operation) {
            case "file_read" -> read(gate, params);
            case "file_write" -> write(gate, params);
            case "file_edit" -> edit(gate, params);
            case "file_list" -> list(gate, params);
            case "file_find" -> find(gate, params);
            case "file_grep" -> grep(gate, params);
            case "file_head_tail" -> headTail(gate, params);
            case "file_count" -> count(gate, params);
            case "file_delete" -> delete(gate, params);
            default -> throw new ToolException(ErrorCode.UNKNOWN_TOOL, "Unknown file operation '" + operation + "'.");
        };
    }

    // =================================================================================== file_read

    /**
     * {@code file_read}: a window of a text file, streamed.
     *
     * @param gate the gate
     * @param params path, startLine, maxLines, maxChars
     * @return path, content, startLine, endLine, totalLines, totalChars, truncated, nextStartLine
     * @throws ToolException on failure
     */
    public Map<String, Object> read(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.requireText(params, "path"); // an empty path gets the root's own message
        int startLine = Params.optInt(params, "startLine", 1, 1, Integer.MAX_VALUE);
        int maxLines = Params.optInt(params, "maxLines", Integer.MAX_VALUE, 1, Integer.MAX_VALUE);
        int maxChars = Params.optInt(params, "maxChars", settings.readDefaultChars(), 1, settings.readMaxChars());
        Path file = gate.resolveForRead(userPath);
        ReadWindow w = new ReadWindow(maxLines, maxChars);
        long totalLines = 0;
        long totalChars = 0;
        try (SeekableByteChannel ch = gate.openFile(userPath, file).channel()) {
            ByteBuffer first = ByteBuffer.allocate(SNIFF);
            int got;
            do {
                got = ch.read(first);
            } while (got > 0 && first.hasRemaining());
            if ((TextScan.classify(first.array(), 0, first.position()) & TextScan.BINARY) != 0) {
                throw binary(userPath, "file_read");
            }
            ch.position(0);
            CharsetDecoder dec = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
            Reader reader = Channels.newReader(ch, dec, CHUNK);
            char[] buf = new char[CHUNK];
            StringBuilder line = new StringBuilder();
            int n;
            boolean pending = false;
            while (true) {
                n = reader.read(buf);
                if (n < 0) {
                    break;
                }
                int from = 0;
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        totalLines++;
                        long ln = totalLines;
                        int lineLen = i + 1 - from;
                        totalChars += lineLen;
                        if (ln >= startLine && w.collecting) {
                            line.append(buf, from, lineLen);
                            w.offer(line, ln);
                        }
                        line.setLength(0);
                        pending = false;
                        from = i + 1;
                    }
                }
                int rest = n - from;
                if (rest > 0) {
                    totalChars += rest;
                    pending = true;
                    if (totalLines + 1 >= startLine && w.collecting) {
                        line.append(buf, from, rest);
                        if (line.length() > maxChars + CHUNK) {
                            // keep memory bounded for one enormous line: only maxChars of it can be shown
                            line.setLength(maxChars + 1);
                        }
                    }
                }
            }
            if (pending) {
                totalLines++;
                if (totalLines >= startLine && w.collecting) {
                    w.offer(line, totalLines);       // a clipped last line's next start is past the end: none
                }
            }
        } catch (IOException e) {
            throw io(e, userPath, "read");
        }
        int nextStart = w.nextStart > totalLines ? -1 : w.nextStart;
        int returned = w.returned;
        if (startLine > 1 && startLine > totalLines) {
            throw Params.invalid("startLine " + startLine + " is past the end of " + ConfinedRoot.quote(userPath)
                    + ", which has " + totalLines + " lines.");
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", gate.relative(file));
        r.put("content", w.content.toString());
        r.put("startLine", startLine);
        r.put("endLine", returned == 0 ? startLine - 1 : startLine + returned - 1);
        r.put("totalLines", totalLines);
        r.put("totalChars", totalChars);
        r.put("truncated", w.truncated);
        r.put("nextStartLine", nextStart < 0 ? null : nextStart);
        if (w.clipped) {
            r.put("hint", "Line " + startLine + " is longer than maxChars and was cut; raise maxChars (at most "
                    + settings.readMaxChars() + ") or use file_grep to find the part you need.");
        }
        return r;
    }

    /** The part of a file that {@code file_read} returns, filled line by line until it is full. */
    private static final class ReadWindow {
        final StringBuilder content = new StringBuilder();
        final int maxLines;
        final int maxChars;
        int returned;
        boolean collecting = true;
        boolean truncated;
        boolean clipped;
        int nextStart = -1;

        ReadWindow(int maxLines, int maxChars) {
            this.maxLines = maxLines;
            this.maxChars = maxChars;
        }

        /** Offers line {@code ln} (with its newline, if it has one); stops collecting once full. */
        void offer(StringBuilder line, long ln) {
            int r = window(content, line, returned, maxLines, maxChars);
            if (r == WIN_ADDED) {
                returned++;
                return;
            }
            collecting = false;
            truncated = true;
            if (r == WIN_CLIPPED) {
                returned = 1;
                clipped = true;
                nextStart = (int) Math.min(Integer.MAX_VALUE, ln + 1);
            } else {
                nextStart = (int) Math.min(Integer.MAX_VALUE, ln);
            }
        }
    }

    private static final int WIN_ADDED = 0;
    private static final int WIN_FULL = 1;
    private static final int WIN_CLIPPED = 2;

    private static int window(StringBuilder content, StringBuilder line, int returned, int maxLines, int maxChars) {
        if (returned >= maxLines) {
            return WIN_FULL;
        }
        if (content.length() + line.length() <= maxChars) {
            content.append(line);
            return WIN_ADDED;
        }
        if (returned == 0) {
            int cut = maxChars;
            if (cut > 0 && Character.isHighSurrogate(line.charAt(cut - 1))) {
                cut--;
            }
            content.append(line, 0, cut);
            return WIN_CLIPPED;
        }
        return WIN_FULL;
    }

    // =================================================================================== file_write

    /**
     * {@code file_write}: creates or replaces a file atomically, creating parents and keeping the
     * permissions of a replaced file.
     *
     * @param gate the gate
     * @param params path, content
     * @return path, bytes, created
     * @throws ToolException on failure
     */
    public Map<String, Object> write(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.requireText(params, "path"); // an empty path gets the root's own message
        String content = Params.requireText(params, "content");
        Path file = gate.resolve(userPath);
        if (file.equals(gate.root())) {
            throw ConfinedRoot.isTheRoot(userPath);
        }
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        boolean created;
        try {
            created = replaceAtomically(gate, file, userPath, bytes);
        } catch (IOException e) {
            throw io(e, userPath, "write");
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", gate.relative(file));
        r.put("bytes", bytes.length);
        r.put("created", created);
        return r;
    }

    /**
     * Writes the whole new content under a staging name and renames it over the target (missing parents
     * are created race-free by the root); an existing file keeps its permissions.
     */
    private static boolean replaceAtomically(ConfinedRoot gate, Path file, String userPath, byte[] bytes)
            throws IOException, ToolException {
        try (StagedFile staged = gate.stage(file)) {
            ConfinedRoot.TargetState existing = gate.checkTarget(staged, userPath);
            staged.write(bytes);
            staged.finishWriting(true);
            staged.commit(existing.permissions(), null);
            return !existing.exists();
        }
    }

    // =================================================================================== file_edit

    /**
     * {@code file_edit}: replaces exactly one occurrence, atomically, and shows a short diff.
     *
     * @param gate the gate
     * @param params path, oldText, newText
     * @return path, line, diff
     * @throws ToolException {@code not_found} when oldText is missing, {@code invalid_params} when ambiguous
     */
    public Map<String, Object> edit(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.requireText(params, "path"); // an empty path gets the root's own message
        String oldText = Params.requireString(params, "oldText");
        String newText = Params.requireText(params, "newText");
        Path file = gate.resolve(userPath);
        String text;
        try (SeekableByteChannel ch = gate.openFile(userPath, file).channel()) {
            long size = ch.size();
            if (size > Integer.MAX_VALUE - 16) {
                throw new ToolException(ErrorCode.SIZE_LIMIT, "File " + ConfinedRoot.quote(userPath)
                        + " is larger than 2 GiB; file_edit cannot hold it. Use exec tools instead.");
            }
            ByteBuffer bb = ByteBuffer.allocate((int) size);
            while (bb.hasRemaining() && ch.read(bb) > 0) {
                // read all
            }
            text = TextScan.decodeStrict(TextScan.strictUtf8(), bb.array(), bb.position());
            if (text == null) {
                throw Params.invalid("File " + ConfinedRoot.quote(userPath) + " is not UTF-8 text; file_edit only edits "
                        + "text files.");
            }
        } catch (IOException e) {
            throw io(e, userPath, "read");
        }
        int idx = text.indexOf(oldText);
        if (idx < 0) {
            String hint = "";
            if (text.contains("\r\n") && oldText.contains("\n") && !oldText.contains("\r\n")) {
                hint = " The file uses CRLF line endings; include '\\r\\n' in oldText.";
            } else if (text.contains(oldText.strip()) && !oldText.strip().isEmpty()) {
                hint = " The text occurs with different surrounding whitespace; copy it exactly.";
            }
            throw new ToolException(ErrorCode.NOT_FOUND, "oldText was not found in " + ConfinedRoot.quote(userPath)
                    + "; the file is unchanged." + hint + " Call file_read and copy the exact text, including "
                    + "whitespace and line breaks.");
        }
        int second = text.indexOf(oldText, idx + 1);
        if (second >= 0) {
            List<Integer> lines = new ArrayList<>();
            int count = 0;
            for (int i = idx; i >= 0; i = text.indexOf(oldText, i + 1)) {
                count++;
                if (lines.size() < 10) {
                    lines.add(lineOf(text, i));
                }
            }
            throw Params.invalid("oldText occurs " + count + " times in " + ConfinedRoot.quote(userPath) + " (at lines "
                    + joinInts(lines) + (count > lines.size() ? ", ..." : "") + "); the file is unchanged. Include more "
                    + "surrounding lines in oldText so that it matches exactly once.");
        }
        String updated = text.substring(0, idx) + newText + text.substring(idx + oldText.length());
        boolean changed = !updated.equals(text);
        if (changed) {
            try {
                replaceAtomically(gate, file, userPath, updated.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw io(e, userPath, "write");
            }
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", gate.relative(file));
        r.put("line", lineOf(text, idx));
        r.put("changed", changed);
        r.put("diff", diff(text, idx, oldText, newText));
        return r;
    }

    private String diff(String text, int idx, String oldText, String newText) {
        int ls = text.lastIndexOf('\n', idx - 1) + 1;
        int end = idx + oldText.length();
        int le = text.indexOf('\n', Math.max(end - (oldText.endsWith("\n") ? 1 : 0), idx));
        if (le < 0) {
            le = text.length();
        }
        String prefix = text.substring(ls, idx);
        String suffix = text.substring(end, Math.max(end, le));
        String before = prefix + oldText + suffix;
        String after = prefix + newText + suffix;
        int line = lineOf(text, idx);
        List<String> out = new ArrayList<>();
        out.add("@@ line " + line + " @@");
        if (ls > 0) {
            int pls = text.lastIndexOf('\n', ls - 2) + 1;
            out.add(" " + stripCr(text.substring(pls, ls - 1)));
        }
        for (String l : splitLines(before)) {
            out.add("-" + l);
        }
        for (String l : splitLines(after)) {
            out.add("+" + l);
        }
        if (le < text.length()) {
            int nle = text.indexOf('\n', le + 1);
            out.add(" " + stripCr(text.substring(le + 1, nle < 0 ? text.length() : nle)));
        }
        int max = settings.editDiffMaxLines();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < out.size() && i < max; i++) {
            String l = out.get(i);
            sb.append(l.length() > settings.grepLineClipChars() ? clip(l, settings.grepLineClipChars()) : l).append('\n');
        }
        if (out.size() > max) {
            sb.append("… (").append(out.size() - max).append(" more diff lines)\n");
        }
        return sb.toString();
    }

    private static List<String> splitLines(String s) {
        List<String> out = new ArrayList<>();
        String body = s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
        if (s.isEmpty()) {
            return out;
        }
        for (String l : body.split("\n", -1)) {
            out.add(stripCr(l));
        }
        return out;
    }

    private static String stripCr(String s) {
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
    }

    private static int lineOf(String text, int idx) {
        int n = 1;
        for (int i = text.indexOf('\n'); i >= 0 && i < idx; i = text.indexOf('\n', i + 1)) {
            n++;
        }
        return n;
    }

    private static String joinInts(List<Integer> l) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < l.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(l.get(i));
        }
        return sb.toString();
    }

    // =================================================================================== file_list

    /**
     * {@code file_list}: one directory level, sorted, directories marked with {@code '/'}.
     *
     * @param gate the gate
     * @param params path (default {@code "."})
     * @return path, entries, count, truncated
     * @throws ToolException {@code not_found} for a missing directory, {@code invalid_params} for a file
     */
    public Map<String, Object> list(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.optString(params, "path", ".");
        Path dir = gate.resolve(userPath);
        requireDirectory(dir, userPath, "file_list");
        List<String> entries = new ArrayList<>();
        try (SafeDirectory d = gate.open(dir)) {
            List<String> names = d.names();
            names.sort(Comparator.naturalOrder());
            for (String name : names) {
                BasicFileAttributes a;
                try {
                    a = d.attributes(name);
                } catch (NoSuchFileException e) {
                    continue;
                }
                entries.add(a.isDirectory() ? name + "/" : name);
            }
        } catch (IOException e) {
            throw io(e, userPath, "list");
        }
        boolean truncated = entries.size() > settings.listMaxEntries();
        int total = entries.size();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", gate.relative(dir));
        r.put("entries", truncated ? List.copyOf(entries.subList(0, settings.listMaxEntries())) : entries);
        r.put("count", total);
        r.put("truncated", truncated);
        return r;
    }

    // =================================================================================== file_find

    /**
     * {@code file_find}: files by glob, size and modification time, pruning generated directories.
     *
     * @param gate the gate
     * @param params path, pathGlob, minSize, maxSize, modifiedAfter, modifiedBefore, sortBy, maxDepth, limit,
     *        includeGenerated
     * @return path, files ({@code path}, {@code size}, {@code modified}), count, totalMatches, truncated,
     *         skippedGeneratedDirs
     * @throws ToolException on failure
     */
    public Map<String, Object> find(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.optString(params, "path", ".");
        Glob glob = Glob.compile(Params.optString(params, "pathGlob", null));
        long minSize = Params.optLong(params, "minSize", 0, 0, Long.MAX_VALUE);
        long maxSize = Params.optLong(params, "maxSize", Long.MAX_VALUE, 0, Long.MAX_VALUE);
        long after = instant(params, "modifiedAfter", Long.MIN_VALUE);
        long before = instant(params, "modifiedBefore", Long.MAX_VALUE);
        String sortBy = Params.optChoice(params, "sortBy", "path", List.of("path", "mtime", "size"));
        int maxDepth = Params.optInt(params, "maxDepth", settings.defaultMaxDepth(), 0, settings.maxDepthLimit());
        int limit = Params.optInt(params, "limit", settings.findDefaultLimit(), 1, settings.findMaxLimit());
        boolean includeGenerated = Params.optBoolean(params, "includeGenerated", false);
        Path base = gate.resolve(userPath);
        requireDirectory(base, userPath, "file_find");
        Predicate<BasicFileAttributes> filter = minSize == 0 && maxSize == Long.MAX_VALUE
                && after == Long.MIN_VALUE && before == Long.MAX_VALUE ? null : a -> {
                    long s = a.size();
                    long t = a.lastModifiedTime().toMillis();
                    return s >= minSize && s <= maxSize && t > after && t < before;
                };
        TreeWalker.Result walk;
        try (SafeDirectory dir = gate.open(base)) {
            walk = TreeWalker.walk(pool, new TreeWalker.Spec(dir, maxDepth, glob,
                    includeGenerated ? null : settings.generatedDirNames(), filter));
        } catch (IOException e) {
            throw io(e, userPath, "list");
        }
        List<TreeWalker.Entry> files = new ArrayList<>(walk.files());
        if (sortBy.equals("mtime")) {
            files.sort(Comparator.comparingLong(TreeWalker.Entry::mtimeMillis).reversed()
                    .thenComparing(TreeWalker.Entry::rel));
        } else if (sortBy.equals("size")) {
            files.sort(Comparator.comparingLong(TreeWalker.Entry::size).reversed().thenComparing(TreeWalker.Entry::rel));
        }
        String prefix = prefix(gate, base);
        List<Map<String, Object>> out = new ArrayList<>();
        for (int i = 0; i < files.size() && i < limit; i++) {
            TreeWalker.Entry e = files.get(i);
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("path", prefix + e.rel());
            f.put("size", e.size());
            f.put("modified", Instant.ofEpochMilli(e.mtimeMillis()).toString());
            out.add(f);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", gate.relative(base));
        r.put("files", out);
        r.put("count", out.size());
        r.put("totalMatches", files.size());
        r.put("truncated", files.size() > out.size());
        r.put("skippedGeneratedDirs", walk.skippedGeneratedDirs());
        return r;
    }

    private static String prefix(ConfinedRoot gate, Path base) {
        String rel = gate.relative(base);
        return rel.equals(".") ? "" : rel + "/";
    }

    private static long instant(Map<String, Object> params, String name, long dflt) throws ToolException {
        String v = Params.optString(params, name, null);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            return Instant.parse(v.strip()).toEpochMilli();
        } catch (DateTimeParseException e) {
            try {
                return LocalDate.parse(v.strip()).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
            } catch (DateTimeParseException e2) {
                throw Params.invalid("Parameter '" + name + "' must be an ISO-8601 instant such as "
                        + "'2026-01-31T12:00:00Z' or a date such as '2026-01-31', got '" + v + "'.");
            }
        }
    }

    // =================================================================================== file_grep

    /**
     * {@code file_grep}: lines matching a Java regex in one file or a tree.
     *
     * <p>Files are searched in parallel while the tree is walked. Each file is read whole (it is at most
     * {@link FileToolSettings#grepMaxFileBytes()}); its bytes are first searched for the longest literal
     * the pattern requires, and only a file that may match is decoded as UTF-8 and matched line by line.
     * Skipped and counted: files over the size limit, binary files (a NUL byte in the first 8 KiB, or
     * anywhere in a file that may match), and files that may match but are not valid UTF-8 (a non-UTF-8
     * file that cannot match is simply not a hit). Matches
     * are ordered by path and line; once {@code limit} matches are kept, files whose path sorts after the
     * last kept one are not searched, so the result does not depend on thread timing; then
     * {@code truncated} is true and {@code filesSearched} counts only the files actually searched.
     *
     * @param gate the gate
     * @param params pattern, path, pathGlob, caseInsensitive, contextBefore, contextAfter, maxDepth, limit,
     *        includeGenerated
     * @return path, matches ({@code path}, {@code line}, {@code text}, optional {@code before}/{@code after}),
     *         count, truncated, filesSearched, filesMatched, skippedLarge, skippedBinary, skippedNonUtf8,
     *         skippedGeneratedDirs
     * @throws ToolException {@code invalid_params} for a bad pattern
     */
    public Map<String, Object> grep(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String regex = Params.requireString(params, "pattern");
        String userPath = Params.optString(params, "path", ".");
        Glob glob = Glob.compile(Params.optString(params, "pathGlob", null));
        boolean ci = Params.optBoolean(params, "caseInsensitive", false);
        int ctxBefore = Params.optInt(params, "contextBefore", 0, 0, settings.grepMaxContext());
        int ctxAfter = Params.optInt(params, "contextAfter", 0, 0, settings.grepMaxContext());
        int maxDepth = Params.optInt(params, "maxDepth", settings.defaultMaxDepth(), 0, settings.maxDepthLimit());
        int limit = Params.optInt(params, "limit", settings.grepDefaultLimit(), 1, settings.grepMaxLimit());
        boolean includeGenerated = Params.optBoolean(params, "includeGenerated", false);
        Pattern pattern = compile(regex, ci);
        Searcher searcher = new Searcher(pattern, ci);
        Path base = gate.resolveForRead(userPath);
        BasicFileAttributes baseAttrs = attrs(base, userPath);
        GrepCollector col = new GrepCollector(limit);
        int skippedGenerated = 0;
        if (baseAttrs.isDirectory()) {
            String prefix = prefix(gate, base);
            try (SafeDirectory dir = gate.open(base)) {
                TreeWalker.Spec spec = new TreeWalker.Spec(dir, maxDepth, glob,
                        includeGenerated ? null : settings.generatedDirNames(), null);
                int[] counts = TreeWalker.walk(pool, spec, e -> {
                    if (col.beyondCutoff(e.rel())) {
                        col.skippedByLimit.incrementAndGet();
                        return;
                    }
                    List<Map<String, Object>> hits = grepFile(e, prefix, searcher, limit, ctxBefore, ctxAfter, col);
                    if (hits != null && !hits.isEmpty()) {
                        col.add(e.rel(), hits);
                    }
                });
                skippedGenerated = counts[0];
            } catch (IOException e) {
                throw io(e, userPath, "list");
            }
        } else {
            try (SafeDirectory dir = gate.open(base.getParent())) {
                String name = base.getFileName().toString();
                TreeWalker.Entry single = new TreeWalker.Entry(name, base, baseAttrs.size(),
                        baseAttrs.lastModifiedTime().toMillis(), dir, name);
                List<Map<String, Object>> hits = grepFile(single, prefixOfParent(gate, base), searcher, limit,
                        ctxBefore, ctxAfter, col);
                if (hits != null && !hits.isEmpty()) {
                    col.add(single.rel(), hits);
                }
            } catch (IOException e) {
                throw io(e, userPath, "read");
            }
        }
        List<Map<String, Object>> matches = col.matches();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", gate.relative(base));
        r.put("matches", matches);
        r.put("count", matches.size());
        r.put("truncated", col.truncated());
        r.put("filesSearched", col.searched.get());
        r.put("filesMatched", col.filesMatched());
        r.put("skippedLarge", col.large.get());
        r.put("skippedBinary", col.binary.get());
        r.put("skippedNonUtf8", col.nonUtf8.get());
        r.put("skippedGeneratedDirs", skippedGenerated);
        return r;
    }

    private static String prefixOfParent(ConfinedRoot gate, Path file) {
        String rel = gate.relative(file.getParent());
        return rel.equals(".") ? "" : rel + "/";
    }

    private void runInPool(Runnable task) throws ToolException {
        try {
            pool.submit(task).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolException(ErrorCode.CANCELLED, "The search was interrupted.");
        } catch (ExecutionException e) {
            throw new ToolException(ErrorCode.INTERNAL, "The search failed unexpectedly; retry, or narrow path.", e);
        }
    }

    /**
     * Keeps the first {@code limit} matches in (path, line) order while files are searched in parallel,
     * and tells the walk which files can no longer contribute (their path sorts after the last kept
     * match once the limit is reached), so the result is the same whatever order files are searched in.
     */
    private static final class GrepCollector {
        final AtomicInteger large = new AtomicInteger();
        final AtomicInteger binary = new AtomicInteger();
        final AtomicInteger nonUtf8 = new AtomicInteger();
        final AtomicInteger searched = new AtomicInteger();
        final AtomicInteger skippedByLimit = new AtomicInteger();
        private final int limit;
        private final java.util.TreeMap<String, List<Map<String, Object>>> byFile = new java.util.TreeMap<>();
        private int kept;
        private int filesMatched;
        private boolean trimmed;
        private volatile String cutoff;

        GrepCollector(int limit) {
            this.limit = limit;
        }

        boolean beyondCutoff(String rel) {
            String c = cutoff;
            return c != null && rel.compareTo(c) > 0;
        }

        synchronized void add(String rel, List<Map<String, Object>> hits) {
            filesMatched++;
            byFile.put(rel, new ArrayList<>(hits));
            kept += hits.size();
            while (kept > limit) {
                Map.Entry<String, List<Map<String, Object>>> last = byFile.lastEntry();
                List<Map<String, Object>> l = last.getValue();
                int drop = Math.min(l.size(), kept - limit);
                l.subList(l.size() - drop, l.size()).clear();
                kept -= drop;
                trimmed = true;
                if (l.isEmpty()) {
                    byFile.pollLastEntry();
                }
            }
            if (kept == limit) {
                cutoff = byFile.lastKey();
            }
        }

        synchronized List<Map<String, Object>> matches() {
            List<Map<String, Object>> out = new ArrayList<>(kept);
            byFile.values().forEach(out::addAll);
            return out;
        }

        synchronized boolean truncated() {
            return trimmed || skippedByLimit.get() > 0;
        }

        synchronized int filesMatched() {
            return filesMatched;
        }
    }

    /** The thread's read buffer with at least {@code size} bytes, keeping the first {@code keep} bytes of {@code old}. */
    private static byte[] buffer(int size, int keep, byte[] old) {
        byte[] b = BUFFERS.get();
        if (b.length < size) {
            byte[] grown = new byte[(int) Math.max(size, Math.min(Integer.MAX_VALUE - 16, b.length * 2L))];
            if (old != null && keep > 0) {
                System.arraycopy(old, 0, grown, 0, keep);
            }
            BUFFERS.set(grown);
            return grown;
        }
        if (old != null && old != b && keep > 0) {
            System.arraycopy(old, 0, b, 0, keep);
        }
        return b;
    }

    /** Returns null when the file was skipped, else its matches (possibly empty). */
    private List<Map<String, Object>> grepFile(TreeWalker.Entry e, String prefix, Searcher searcher, int max,
                                               int ctxBefore, int ctxAfter, GrepCollector stats) {
        if (e.size() > settings.grepMaxFileBytes()) {
            stats.large.incrementAndGet();
            return null;
        }
        int limit = (int) settings.grepMaxFileBytes();
        byte[] buf = buffer((int) Math.min(limit + 1L, e.size() + 1), 0, null);
        int n;
        try (SeekableByteChannel ch = e.open()) {
            // one read for a file that did not change since the walk saw its size; one byte more detects growth
            ByteBuffer bb = ByteBuffer.wrap(buf, 0, (int) Math.min(limit + 1L, e.size() + 1));
            int r;
            while ((r = ch.read(bb)) > 0 && bb.hasRemaining() && bb.position() < e.size()) {
                // keep reading a file that is delivered in pieces
            }
            if (r > 0 && bb.position() > e.size() && bb.position() <= limit) {
                int pos = bb.position();
                buf = buffer(limit + 1, pos, buf);
                bb = ByteBuffer.wrap(buf);
                bb.position(pos);
                while (bb.hasRemaining() && ch.read(bb) > 0) {
                    // the file grew since the walk: read on, up to the limit
                }
            }
            n = bb.position();
        } catch (IOException | UnsupportedOperationException ex) {
            return null;
        }
        if (n > settings.grepMaxFileBytes()) {
            stats.large.incrementAndGet();
            return null;
        }
        // one char per byte: a plain copy that lets the vectorised String.indexOf search the raw bytes
        String bytes = new String(buf, 0, n, StandardCharsets.ISO_8859_1);
        if (!searcher.mayMatch(bytes)) {
            // cannot match: like git, only the first 8 KiB decide whether it counts as binary
            if ((n <= SNIFF ? bytes : bytes.substring(0, SNIFF)).indexOf(0) >= 0) {
                stats.binary.incrementAndGet();
                return null;
            }
            stats.searched.incrementAndGet();
            return List.of();
        }
        if (bytes.indexOf(0) >= 0) {
            stats.binary.incrementAndGet();
            return null;
        }
        String text = new String(buf, 0, n, StandardCharsets.UTF_8);
        if (text.indexOf('\uFFFD') >= 0 && TextScan.decodeStrict(DECODERS.get(), buf, n) == null) {
            stats.nonUtf8.incrementAndGet();
            return null;
        }
        stats.searched.incrementAndGet();
        List<Searcher.Hit> hits = searcher.search(text, max);
        if (hits.isEmpty()) {
            return List.of();
        }
        String rel = prefix + e.rel();
        List<Map<String, Object>> out = new ArrayList<>(hits.size());
        for (Searcher.Hit h : hits) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("path", rel);
            m.put("line", h.line());
            m.put("text", clip(text.substring(h.start(), h.end()), settings.grepLineClipChars()));
            if (ctxBefore > 0) {
                m.put("before", contextBefore(text, h.start(), ctxBefore));
            }
            if (ctxAfter > 0) {
                m.put("after", contextAfter(text, h.end(), ctxAfter));
            }
            out.add(m);
        }
        return out;
    }

    private List<String> contextBefore(String text, int lineStart, int count) {
        List<String> out = new ArrayList<>();
        int end = lineStart - 1;
        while (out.size() < count && end >= 0) {
            int ls = text.lastIndexOf('\n', end - 1) + 1;
            out.add(0, clip(text.substring(ls, Searcher.trimCr(text, ls, end)), settings.grepLineClipChars()));
            end = ls - 1;
        }
        return out;
    }

    private List<String> contextAfter(String text, int lineEnd, int count) {
        List<String> out = new ArrayList<>();
        int nl = text.indexOf('\n', lineEnd);
        while (out.size() < count && nl >= 0 && nl + 1 < text.length()) {
            int ls = nl + 1;
            int le = text.indexOf('\n', ls);
            if (le < 0) {
                le = text.length();
            }
            out.add(clip(text.substring(ls, Searcher.trimCr(text, ls, le)), settings.grepLineClipChars()));
            nl = le < text.length() ? le : -1;
        }
        return out;
    }

    private static String clip(String s, int max) {
        if (s.length() <= max) {
            return s;
        }
        int cut = max;
        if (Character.isHighSurrogate(s.charAt(cut - 1))) {
            cut--;
        }
        return s.substring(0, cut) + String.format(CLIP_MARKER, s.length() - cut);
    }

    private static Pattern compile(String regex, boolean ci) throws ToolException {
        try {
            return Pattern.compile(regex, ci ? Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE : 0);
        } catch (PatternSyntaxException e) {
            throw Params.invalid("pattern is not a valid Java regular expression: " + e.getDescription()
                    + " near index " + e.getIndex() + ". Escape special characters such as ( [ { . * + ? with '\\'.");
        }
    }

    // =================================================================================== file_head_tail

    /**
     * {@code file_head_tail}: the first and/or last lines; the head streamed, the tail read backwards.
     *
     * @param gate the gate
     * @param params path, head, tail
     * @return path, head, tail, headLines, tailLines, totalBytes, omittedBytes, truncated
     * @throws ToolException on failure
     */
    public Map<String, Object> headTail(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.requireText(params, "path"); // an empty path gets the root's own message
        int head = Params.optInt(params, "head", 0, 0, settings.headTailMaxLines());
        int tail = Params.optInt(params, "tail", 0, 0, settings.headTailMaxLines());
        if (head == 0 && tail == 0) {
            throw Params.invalid("Pass head and/or tail greater than 0 (each at most " + settings.headTailMaxLines()
                    + ").");
        }
        Path file = gate.resolveForRead(userPath);
        long capBytes = (long) settings.readMaxChars() * 4;
        boolean clipped = false;
        String headText = "";
        String tailText = "";
        long size;
        long headEnd = 0;
        long tailStart;
        try (SeekableByteChannel ch = gate.openFile(userPath, file).channel()) {
            size = ch.size();
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(CHUNK, Math.max(1, size)));
            if (head > 0) {
                int found = 0;
                long pos = 0;
                outer:
                while (pos < size) {
                    buf.clear();
                    ch.position(pos);
                    int n = ch.read(buf);
                    if (n <= 0) {
                        break;
                    }
                    byte[] a = buf.array();
                    for (int i = 0; i < n; i++) {
                        if (a[i] == '\n' && ++found == head) {
                            headEnd = pos + i + 1;
                            break outer;
                        }
                    }
                    pos += n;
                    headEnd = pos;
                    if (pos >= capBytes) {
                        headEnd = capBytes;
                        clipped = true;
                        break;
                    }
                }
            }
            tailStart = size;
            if (tail > 0) {
                int found = 0;
                long end = size;
                long pos = size;
                boolean skipFinalNewline = true;
                outer:
                while (pos > 0) {
                    int len = (int) Math.min(buf.capacity(), pos);
                    pos -= len;
                    buf.clear().limit(len);
                    ch.position(pos);
                    while (buf.hasRemaining() && ch.read(buf) > 0) {
                        // fill
                    }
                    byte[] a = buf.array();
                    for (int i = len - 1; i >= 0; i--) {
                        long abs = pos + i;
                        if (a[i] == '\n') {
                            if (skipFinalNewline && abs == size - 1) {
                                continue;
                            }
                            if (++found == tail) {
                                tailStart = abs + 1;
                                break outer;
                            }
                        }
                    }
                    skipFinalNewline = false;
                    tailStart = pos;
                    if (end - pos >= capBytes) {
                        tailStart = end - capBytes;
                        clipped = true;
                        break;
                    }
                }
            }
            if (tail > 0 && tailStart < headEnd) {
                tailStart = headEnd;
            }
            byte[] h = readRange(ch, 0, headEnd);
            byte[] t = tail > 0 ? readRange(ch, tailStart, size) : new byte[0];
            if ((TextScan.classify(h, 0, Math.min(h.length, SNIFF)) & TextScan.BINARY) != 0
                    || (TextScan.classify(t, 0, Math.min(t.length, SNIFF)) & TextScan.BINARY) != 0) {
                throw binary(userPath, "file_head_tail");
            }
            int skip = 0;
            while (skip < t.length && (t[skip] & 0xC0) == 0x80) {
                skip++;
            }
            headText = new String(h, StandardCharsets.UTF_8);
            tailText = new String(t, skip, t.length - skip, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw io(e, userPath, "read");
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", gate.relative(file));
        r.put("head", headText);
        r.put("tail", tailText);
        r.put("headLines", lineCount(headText));
        r.put("tailLines", lineCount(tailText));
        r.put("totalBytes", size);
        r.put("omittedBytes", tail > 0 ? Math.max(0, tailStart - headEnd) : Math.max(0, size - headEnd));
        r.put("truncated", clipped);
        return r;
    }

    private static int lineCount(String s) {
        if (s.isEmpty()) {
            return 0;
        }
        int n = 0;
        for (int i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) {
            n++;
        }
        return s.endsWith("\n") ? n : n + 1;
    }

    private static byte[] readRange(SeekableByteChannel ch, long from, long to) throws IOException {
        ByteBuffer bb = ByteBuffer.allocate((int) Math.max(0, to - from));
        ch.position(from);
        while (bb.hasRemaining() && ch.read(bb) > 0) {
            // fill
        }
        return bb.position() == bb.capacity() ? bb.array() : java.util.Arrays.copyOf(bb.array(), bb.position());
    }

    // =================================================================================== file_count

    /**
     * {@code file_count}: lines, chars and bytes of a file or tree, or the lines matching a pattern.
     *
     * @param gate the gate
     * @param params path, pathGlob, maxDepth, pattern, includeGenerated
     * @return path, files, lines, chars, bytes (or matchingLines, filesWithMatches), skipped counts
     * @throws ToolException on failure
     */
    public Map<String, Object> count(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.optString(params, "path", ".");
        Glob glob = Glob.compile(Params.optString(params, "pathGlob", null));
        int maxDepth = Params.optInt(params, "maxDepth", settings.defaultMaxDepth(), 0, settings.maxDepthLimit());
        String regex = Params.optString(params, "pattern", null);
        boolean includeGenerated = Params.optBoolean(params, "includeGenerated", false);
        Searcher searcher = regex == null ? null : new Searcher(compile(regex, false), false);
        Path base = gate.resolveForRead(userPath);
        BasicFileAttributes baseAttrs = attrs(base, userPath);
        int skippedGenerated = 0;
        boolean single = !baseAttrs.isDirectory();
        AtomicLong lines = new AtomicLong();
        AtomicLong chars = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        AtomicInteger counted = new AtomicInteger();
        AtomicInteger withMatches = new AtomicInteger();
        AtomicInteger binary = new AtomicInteger();
        AtomicInteger nonUtf8 = new AtomicInteger();
        AtomicInteger unreadable = new AtomicInteger();
        TreeWalker.Sink sink = e -> {
            try (SeekableByteChannel ch = e.open()) {
                CountResult c = countFile(ch, searcher, single);
                switch (c.status) {
                    case OK -> {
                        counted.incrementAndGet();
                        lines.addAndGet(c.lines);
                        chars.addAndGet(c.chars);
                        bytes.addAndGet(c.bytes);
                        if (c.lines > 0 && searcher != null) {
                            withMatches.incrementAndGet();
                        }
                    }
                    case BINARY -> binary.incrementAndGet();
                    case NON_UTF8 -> nonUtf8.incrementAndGet();
                }
            } catch (IOException ex) {
                unreadable.incrementAndGet();
            }
        };
        try (SafeDirectory dir = gate.open(single ? base.getParent() : base)) {
            if (single) {
                String name = base.getFileName().toString();
                BasicFileAttributes a = dir.attributes(name);
                if (!a.isRegularFile()) {
                    throw ConfinedRoot.escape(userPath);
                }
                sink.accept(new TreeWalker.Entry(name, base, a.size(), 0, dir, name));
            } else {
                int[] c = TreeWalker.walk(pool, new TreeWalker.Spec(dir, maxDepth, glob,
                        includeGenerated ? null : settings.generatedDirNames(), null), sink);
                skippedGenerated = c[0];
            }
        } catch (IOException e) {
            throw io(e, userPath, "read");
        }
        if (single && unreadable.get() > 0) {
            throw new ToolException(ErrorCode.INTERNAL, "Could not read " + ConfinedRoot.quote(userPath) + ".");
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", gate.relative(base));
        r.put("files", counted.get());
        if (searcher == null) {
            r.put("lines", lines.get());
            r.put("chars", chars.get());
            r.put("bytes", bytes.get());
        } else {
            r.put("pattern", regex);
            r.put("matchingLines", lines.get());
            r.put("filesWithMatches", withMatches.get());
            r.put("skippedNonUtf8", nonUtf8.get());
        }
        r.put("skippedBinary", binary.get());
        r.put("skippedGeneratedDirs", skippedGenerated);
        return r;
    }

    private enum CountStatus { OK, BINARY, NON_UTF8 }

    private record CountResult(CountStatus status, long lines, long chars, long bytes) {
    }

    private CountResult countFile(SeekableByteChannel ch, Searcher searcher, boolean single) throws IOException {
        ByteBuffer bb = ByteBuffer.allocate(CHUNK);
        byte[] a = bb.array();
        int n = fill(ch, bb);
        if (!single && (TextScan.classify(a, 0, Math.min(n, SNIFF)) & TextScan.BINARY) != 0) {
            return new CountResult(CountStatus.BINARY, 0, 0, 0);
        }
        if (searcher != null) {
            ch.position(0);
            Reader reader = Channels.newReader(ch, TextScan.strictUtf8(), CHUNK);
            char[] cbuf = new char[CHUNK];
            StringBuilder line = new StringBuilder();
            long matching = 0;
            int k;
            try {
                while ((k = reader.read(cbuf)) >= 0) {
                    matching += feed(cbuf, k, line, searcher);
                }
            } catch (java.nio.charset.CharacterCodingException e) {
                return new CountResult(CountStatus.NON_UTF8, 0, 0, 0);
            }
            if (line.length() > 0 && searcher.matchesLine(line)) {
                matching++;
            }
            return new CountResult(CountStatus.OK, matching, 0, ch.size());
        }
        long lines = 0;
        long chars = 0;
        long bytes = 0;
        byte last = '\n';
        while (n > 0) {
            bytes += n;
            lines += TextScan.newlines(a, 0, n);
            chars += TextScan.utf16Chars(a, 0, n);
            last = a[n - 1];
            bb.clear();
            n = fill(ch, bb);
        }
        if (bytes > 0 && last != '\n') {
            lines++;
        }
        return new CountResult(CountStatus.OK, lines, chars, bytes);
    }

    private static int fill(SeekableByteChannel ch, ByteBuffer bb) throws IOException {
        while (bb.hasRemaining() && ch.read(bb) > 0) {
            // fill
        }
        return bb.position();
    }

    private static long feed(char[] cbuf, int len, StringBuilder line, Searcher searcher) {
        long matching = 0;
        for (int i = 0; i < len; i++) {
            char c = cbuf[i];
            if (c == '\n') {
                int l = line.length();
                if (l > 0 && line.charAt(l - 1) == '\r') {
                    line.setLength(l - 1);
                }
                if (searcher.matchesLine(line)) {
                    matching++;
                }
                line.setLength(0);
            } else {
                line.append(c);
            }
        }
        return matching;
    }

    // =================================================================================== file_delete

    /**
     * {@code file_delete}: deletes one file (a link itself, never its target); directories are refused.
     *
     * @param gate the gate
     * @param params path
     * @return path, deleted
     * @throws ToolException {@code invalid_params} for a directory
     */
    public Map<String, Object> delete(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.requireText(params, "path"); // an empty path gets the root's own message
        Path entry = gate.resolveEntry(userPath);
        boolean deleted;
        try (SafeDirectory d = gate.open(entry.getParent())) {
            String name = entry.getFileName().toString();
            BasicFileAttributes a = d.attributes(name);
            if (a.isDirectory()) {
                throw Params.invalid("Path " + ConfinedRoot.quote(userPath) + " is a directory; file_delete removes files "
                        + "only.");
            }
            d.deleteFile(name);
            deleted = true;
        } catch (NoSuchFileException | NotDirectoryException e) {
            deleted = false;
        } catch (IOException e) {
            throw io(e, userPath, "delete");
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", gate.relative(entry));
        r.put("deleted", deleted);
        return r;
    }

    // =================================================================================== helpers

    private static BasicFileAttributes attrs(Path p, String userPath) throws ToolException {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw notFound(userPath);
        } catch (IOException e) {
            throw io(e, userPath, "read");
        }
    }

    private static void requireDirectory(Path dir, String userPath, String tool) throws ToolException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new ToolException(ErrorCode.NOT_FOUND, "Directory " + ConfinedRoot.quote(userPath) + " does not exist. "
                    + "Call file_list on its parent to see what is there.");
        } catch (IOException e) {
            throw io(e, userPath, "list");
        }
        if (!a.isDirectory()) {
            throw Params.invalid("Path " + ConfinedRoot.quote(userPath) + " is a file, not a directory; " + tool
                    + " needs a directory. Use file_read to read the file.");
        }
    }

    private static ToolException binary(String userPath, String tool) {
        return Params.invalid("File " + ConfinedRoot.quote(userPath) + " looks binary (it contains NUL bytes); " + tool
                + " shows text only. Use file_count for its size.");
    }

    /** Maps an I/O failure to a tool error without revealing host paths. */
    private static ToolException io(IOException e, String userPath, String what) {
        return ConfinedRoot.io(e, userPath, what);
    }

    private static ToolException notFound(String userPath) {
        return ConfinedRoot.notFound(userPath);
    }
}
