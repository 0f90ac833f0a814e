package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharsetDecoder;
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
 * <p>No call can take the process down: the variable part of every result is capped at
 * {@link FileToolSettings#resultMaxBytes()} bytes of JSON ({@link JsonSize}) besides its counts;
 * {@code file_edit} and {@code file_write} refuse more than {@link FileToolSettings#wholeFileMaxBytes()};
 * walks and searches run on threads of their own ({@link SearchLanes}) under a deadline that matching
 * itself checks ({@link CallDeadline}, {@link GuardedText}) and stop when their caller's thread is
 * interrupted; a {@code file_read} page costs about the page ({@link PageReader}).
 *
 * <p>Thread-safe. It does not know about RootDirs, processes or WorkTargets.
 */
public final class FileEngine {
    private static final int CHUNK = 64 * 1024;
    private static final int SNIFF = 8 * 1024;
    private static final String CLIP_MARKER = "…[clipped %d chars]";

    /** One read buffer per thread, grown to the largest file read so far (at most the grep size limit + 1). */
    private static final ThreadLocal<byte[]> BUFFERS = ThreadLocal.withInitial(() -> new byte[CHUNK]);
    private static final ThreadLocal<CharsetDecoder> DECODERS = ThreadLocal.withInitial(TextScan::strictUtf8);

    private final FileToolSettings settings;
    private final SearchLanes lanes;
    private final PageReader pages = new PageReader();

    /**
     * An engine with the given limits.
     *
     * @param settings the limits
     */
    public FileEngine(FileToolSettings settings) {
        this.settings = settings;
        this.lanes = new SearchLanes(settings.parallelism());
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
     * <p>The window ends at {@code maxLines}, {@code maxChars} or {@link FileToolSettings#resultMaxBytes()}
     * bytes of JSON, whichever comes first. The totals are counted only for a file of at most
     * {@link FileToolSettings#readTotalsMaxBytes()}, or when the window reaches the end; otherwise they
     * are null and {@code totalsKnown} is false, so a page of a big file costs about the page (see
     * {@link PageReader}). A window that contains a NUL is refused as binary, like a file whose first
     * 8 KiB do.
     *
     * @param gate the gate
     * @param params path, startLine, maxLines, maxChars
     * @return path, content, startLine, endLine, totalLines, totalChars, totalsKnown, truncated, nextStartLine,
     *         and a hint when the window was cut
     * @throws ToolException on failure
     */
    public Map<String, Object> read(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.requireText(params, "path"); // an empty path gets the root's own message
        int startLine = Params.optInt(params, "startLine", 1, 1, Integer.MAX_VALUE);
        int maxLines = Params.optInt(params, "maxLines", Integer.MAX_VALUE, 1, Integer.MAX_VALUE);
        int maxChars = Params.optInt(params, "maxChars", settings.readDefaultChars(), 1, settings.readMaxChars());
        Path file = gate.resolveForRead(userPath);
        PageReader.Page page;
        ConfinedRoot.OpenFile open = gate.openFile(userPath, file);
        try (SeekableByteChannel ch = open.channel()) {
            ByteBuffer first = ByteBuffer.allocate(SNIFF);
            int got;
            do {
                got = ch.read(first);
            } while (got > 0 && first.hasRemaining());
            if ((TextScan.classify(first.array(), 0, first.position()) & TextScan.BINARY) != 0) {
                throw binary(userPath, "file_read");
            }
            page = pages.read(ch, open.attributes(), open.path().toString(), startLine, maxLines, maxChars,
                    settings.resultMaxBytes(), settings.readTotalsMaxBytes());
        } catch (IOException e) {
            throw io(e, userPath, "read");
        }
        if (startLine > 1 && page.totalsKnown() && startLine > page.totalLines()) {
            throw Params.invalid("startLine " + startLine + " is past the end of " + ConfinedRoot.quote(userPath)
                    + ", which has " + page.totalLines() + " lines.");
        }
        if (page.content().indexOf('\0') >= 0) {
            throw Params.invalid("File " + ConfinedRoot.quote(userPath) + " contains NUL bytes in lines " + startLine
                    + "-" + (startLine + Math.max(1, page.returned()) - 1) + "; it looks binary there, and file_read "
                    + "shows text only. Use file_count for its size, or file_grep to find the text parts.");
        }
        int returned = page.returned();
        long nextStart = page.nextStart();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", gate.relative(file));
        r.put("content", page.content());
        r.put("startLine", startLine);
        r.put("endLine", returned == 0 ? startLine - 1 : startLine + returned - 1);
        r.put("totalLines", page.totalsKnown() ? page.totalLines() : null);
        r.put("totalChars", page.totalsKnown() ? page.totalChars() : null);
        r.put("totalsKnown", page.totalsKnown());
        r.put("truncated", page.truncated());
        r.put("nextStartLine", nextStart < 0 ? null : (Object) (int) Math.min(Integer.MAX_VALUE, nextStart));
        if (page.clipped()) {
            r.put("hint", "Line " + startLine + " is longer than " + (page.byBytes()
                    ? "the result budget of " + settings.resultMaxBytes() + " bytes of JSON (resultMaxBytes)"
                    : "maxChars") + " and was cut; " + (page.byBytes() ? "" : "raise maxChars (at most "
                    + settings.readMaxChars() + ") or ") + "use file_grep to find the part you need"
                    + (nextStart < 0 ? "." : ", or go on with startLine " + nextStart + "."));
        } else if (page.byBytes()) {
            r.put("hint", "The page was cut at the result budget of " + settings.resultMaxBytes() + " bytes of JSON "
                    + "(resultMaxBytes); go on with startLine " + nextStart + ", or lower maxChars/maxLines.");
        }
        return r;
    }

    // =================================================================================== file_write

    /**
     * {@code file_write}: creates or replaces a file atomically, creating parents and keeping the
     * permissions of a replaced file. Content over {@link FileToolSettings#wholeFileMaxBytes()} bytes of
     * UTF-8 is refused before anything is written; the content is encoded in pieces, never copied whole.
     *
     * @param gate the gate
     * @param params path, content
     * @return path, bytes, created
     * @throws ToolException on failure; {@code size_limit} for content over the limit
     */
    public Map<String, Object> write(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.requireText(params, "path"); // an empty path gets the root's own message
        String content = Params.requireText(params, "content");
        Path file = gate.resolve(userPath);
        if (file.equals(gate.root())) {
            throw ConfinedRoot.isTheRoot(userPath);
        }
        long limit = settings.wholeFileMaxBytes();
        long bytes = utf8Length(content, limit);
        if (bytes > limit) {
            throw new ToolException(ErrorCode.SIZE_LIMIT, "The content for " + ConfinedRoot.quote(userPath) + " is "
                    + (bytes == Long.MAX_VALUE ? "more than " + limit : bytes) + " bytes of UTF-8; file_write accepts at "
                    + "most " + limit + " bytes in one call (wholeFileMaxBytes). Nothing was written. Generate a big "
                    + "file with exec_run, or move it with a file transfer.");
        }
        boolean created;
        long[] written = new long[1];
        try {
            created = replaceAtomically(gate, file, userPath, staged -> {
                writeUtf8(staged, content);
                written[0] = staged.size();
            });
        } catch (IOException e) {
            throw io(e, userPath, "write");
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", gate.relative(file));
        r.put("bytes", written[0]);
        r.put("created", created);
        return r;
    }

    /**
     * The UTF-8 length of a string as {@link String#getBytes} encodes it (a lone surrogate is one
     * {@code '?'}), without encoding it; {@link Long#MAX_VALUE} when it is certainly over {@code limit}.
     */
    static long utf8Length(String s, long limit) {
        int n = s.length();
        if (n > limit) {
            return Long.MAX_VALUE;      // every char takes at least one byte
        }
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                bytes++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /**
     * Encodes {@code s} into the staged file through one char buffer and one byte buffer of {@link #CHUNK}
     * (no copy of the content, no garbage per piece), never splitting a surrogate pair; a lone surrogate
     * becomes {@code '?'}, as {@link String#getBytes} makes it.
     */
    private static void writeUtf8(StagedFile staged, String s) throws IOException {
        int n = s.length();
        if (n <= CHUNK) {
            staged.write(s.getBytes(StandardCharsets.UTF_8));
            return;
        }
        java.nio.charset.CharsetEncoder enc = StandardCharsets.UTF_8.newEncoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPLACE)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPLACE);
        char[] chars = new char[CHUNK];
        java.nio.CharBuffer cb = java.nio.CharBuffer.wrap(chars);
        ByteBuffer bb = ByteBuffer.allocate(CHUNK * 3);
        for (int i = 0; i < n; ) {
            int j = Math.min(n, i + CHUNK);
            if (j < n && Character.isHighSurrogate(s.charAt(j - 1)) && Character.isLowSurrogate(s.charAt(j))) {
                j--;
            }
            s.getChars(i, j, chars, 0);
            cb.clear().limit(j - i);
            bb.clear();
            enc.reset();
            enc.encode(cb, bb, true);       // a piece never ends inside a pair: each is complete input
            enc.flush(bb);
            bb.flip();
            staged.write(bb);
            i = j;
        }
    }

    /** Writes the new content of a staged file. */
    @FunctionalInterface
    private interface Content {
        void writeTo(StagedFile staged) throws IOException;
    }

    /**
     * Writes the whole new content under a staging name and renames it over the target (missing parents
     * are created race-free by the root); an existing file keeps its permissions.
     */
    private static boolean replaceAtomically(ConfinedRoot gate, Path file, String userPath, Content content)
            throws IOException, ToolException {
        try (StagedFile staged = gate.stage(file)) {
            ConfinedRoot.TargetState existing = gate.checkTarget(staged, userPath);
            content.writeTo(staged);
            staged.finishWriting(true);
            staged.commit(existing.permissions(), null);
            return !existing.exists();
        }
    }

    // =================================================================================== file_edit

    /**
     * {@code file_edit}: replaces exactly one occurrence, atomically, and shows a short diff.
     *
     * <p>Works on the file's bytes (in valid UTF-8 a text's bytes occur exactly where the text does), so
     * it holds the file once, not as bytes and text and the edited copy; a file over
     * {@link FileToolSettings#wholeFileMaxBytes()} is refused before it is read.
     *
     * @param gate the gate
     * @param params path, oldText, newText
     * @return path, line, changed, diff
     * @throws ToolException {@code not_found} when oldText is missing, {@code invalid_params} when ambiguous,
     *         {@code size_limit} for a file (or an edited file) over the limit
     */
    public Map<String, Object> edit(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.requireText(params, "path"); // an empty path gets the root's own message
        String oldText = Params.requireString(params, "oldText");
        String newText = Params.requireText(params, "newText");
        Path file = gate.resolve(userPath);
        long limit = settings.wholeFileMaxBytes();
        byte[] data;
        int n;
        try (SeekableByteChannel ch = gate.openFile(userPath, file).channel()) {
            long size = ch.size();
            if (size > limit) {
                throw new ToolException(ErrorCode.SIZE_LIMIT, "File " + ConfinedRoot.quote(userPath) + " is " + size
                        + " bytes; file_edit holds the whole file in memory and accepts at most " + limit + " bytes "
                        + "(wholeFileMaxBytes; by default 1/8 of the maximum heap). The file is unchanged. Edit it with "
                        + "exec_run (sed, patch), or find the place with file_grep and rewrite a smaller file.");
            }
            data = new byte[(int) size];
            ByteBuffer bb = ByteBuffer.wrap(data);
            while (bb.hasRemaining() && ch.read(bb) > 0) {
                // read all
            }
            n = bb.position();
        } catch (IOException e) {
            throw io(e, userPath, "read");
        }
        if (!isUtf8(data, n)) {
            throw Params.invalid("File " + ConfinedRoot.quote(userPath) + " is not UTF-8 text; file_edit only edits "
                    + "text files.");
        }
        byte[] old = hasLoneSurrogate(oldText) ? null : oldText.getBytes(StandardCharsets.UTF_8);
        int idx = old == null ? -1 : indexOf(data, n, old, 0);
        if (idx < 0) {
            String hint = "";
            String stripped = oldText.strip();
            if (indexOf(data, n, CRLF, 0) >= 0 && oldText.contains("\n") && !oldText.contains("\r\n")) {
                hint = " The file uses CRLF line endings; include '\\r\\n' in oldText.";
            } else if (!stripped.isEmpty() && !hasLoneSurrogate(stripped)
                    && indexOf(data, n, stripped.getBytes(StandardCharsets.UTF_8), 0) >= 0) {
                hint = " The text occurs with different surrounding whitespace; copy it exactly.";
            }
            throw new ToolException(ErrorCode.NOT_FOUND, "oldText was not found in " + ConfinedRoot.quote(userPath)
                    + "; the file is unchanged." + hint + " Call file_read and copy the exact text, including "
                    + "whitespace and line breaks.");
        }
        int second = indexOf(data, n, old, idx + 1);
        if (second >= 0) {
            List<Integer> lines = new ArrayList<>();
            int count = 0;
            for (int i = idx; i >= 0; i = indexOf(data, n, old, i + 1)) {
                count++;
                if (lines.size() < 10) {
                    lines.add(lineOf(data, i));
                }
            }
            throw Params.invalid("oldText occurs " + count + " times in " + ConfinedRoot.quote(userPath) + " (at lines "
                    + joinInts(lines) + (count > lines.size() ? ", ..." : "") + "); the file is unchanged. Include more "
                    + "surrounding lines in oldText so that it matches exactly once.");
        }
        boolean changed = !oldText.equals(newText);
        if (changed) {
            byte[] neu = newText.getBytes(StandardCharsets.UTF_8);
            long after = (long) n - old.length + neu.length;
            if (after > limit) {
                throw new ToolException(ErrorCode.SIZE_LIMIT, "The edited " + ConfinedRoot.quote(userPath) + " would be "
                        + after + " bytes, over the " + limit + " bytes file_edit may write (wholeFileMaxBytes). The file "
                        + "is unchanged. Make the edit with exec_run instead.");
            }
            int end = idx + old.length;
            byte[] body = data;
            try {
                replaceAtomically(gate, file, userPath, staged -> {
                    staged.write(ByteBuffer.wrap(body, 0, idx));
                    staged.write(neu);
                    staged.write(ByteBuffer.wrap(body, end, n - end));
                });
            } catch (IOException e) {
                throw io(e, userPath, "write");
            }
        }
        int line = lineOf(data, idx);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", gate.relative(file));
        r.put("line", line);
        r.put("changed", changed);
        r.put("diff", diff(data, n, idx, old.length, oldText, newText, line));
        return r;
    }

    private static final byte[] CRLF = {'\r', '\n'};

    /** The diff of an edit, from the lines around it only (decoded from the bytes). */
    private String diff(byte[] data, int n, int idx, int oldLen, String oldText, String newText, int line) {
        int ls = lastNewline(data, idx - 1) + 1;
        int end = idx + oldLen;
        int le = indexOf(data, n, NEWLINE, Math.max(end - (oldText.endsWith("\n") ? 1 : 0), idx));
        if (le < 0) {
            le = n;
        }
        int from = ls > 0 ? lastNewline(data, ls - 2) + 1 : 0;
        int to = n;
        if (le < n) {
            int nle = indexOf(data, n, NEWLINE, le + 1);
            to = nle < 0 ? n : nle;
        }
        String local = new String(data, from, to - from, StandardCharsets.UTF_8);
        return diff(local, (int) TextScan.utf16Chars(data, from, idx), oldText, newText, line);
    }

    private static final byte[] NEWLINE = {'\n'};

    private static int lastNewline(byte[] data, int fromIndex) {
        for (int i = Math.min(fromIndex, data.length - 1); i >= 0; i--) {
            if (data[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** The first occurrence of {@code needle} in {@code data[0, n)} at or after {@code from}, or -1. */
    static int indexOf(byte[] data, int n, byte[] needle, int from) {
        int m = needle.length;
        if (m == 0) {
            return from <= n ? Math.max(0, from) : -1;
        }
        byte first = needle[0];
        for (int i = Math.max(0, from), last = n - m; i <= last; i++) {
            if (data[i] != first) {
                continue;
            }
            int k = 1;
            while (k < m && data[i + k] == needle[k]) {
                k++;
            }
            if (k == m) {
                return i;
            }
        }
        return -1;
    }

    private static int lineOf(byte[] data, int idx) {
        int line = 1;
        for (int i = 0; i < idx; i++) {
            if (data[i] == '\n') {
                line++;
            }
        }
        return line;
    }

    private static boolean hasLoneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code data[0, n)} is valid UTF-8, decoded in pieces (no copy of the whole text). */
    private static boolean isUtf8(byte[] data, int n) {
        if ((TextScan.classify(data, 0, n) & TextScan.NON_ASCII) == 0) {
            return true;
        }
        CharsetDecoder dec = TextScan.strictUtf8();
        ByteBuffer in = ByteBuffer.wrap(data, 0, n);
        java.nio.CharBuffer out = java.nio.CharBuffer.allocate(CHUNK);
        while (true) {
            java.nio.charset.CoderResult cr = dec.decode(in, out, true);
            if (cr.isError()) {
                return false;
            }
            if (cr.isUnderflow()) {
                return !dec.flush(out.clear()).isError();
            }
            out.clear();
        }
    }

    private String diff(String text, int idx, String oldText, String newText, int line) {
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
        int total = entries.size();
        int keep = Math.min(total, settings.listMaxEntries());
        int fit = fitting(entries, keep);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", gate.relative(dir));
        r.put("entries", fit < total ? List.copyOf(entries.subList(0, fit)) : entries);
        r.put("count", total);
        r.put("truncated", fit < total);
        if (fit < keep) {
            r.put("hint", "The listing was cut after " + fit + " of " + total + " entries at the result budget of "
                    + settings.resultMaxBytes() + " bytes of JSON (resultMaxBytes). Use file_find with maxDepth 0 and "
                    + "a pathGlob such as 'a*' to see the files in parts.");
        } else if (fit < total) {
            r.put("hint", "Only the first " + fit + " of " + total + " entries are shown (listMaxEntries). Use "
                    + "file_find with maxDepth 0 and a pathGlob such as 'a*' to see the files in parts.");
        }
        return r;
    }

    /** How many of the first {@code max} strings fit in the result budget as a JSON array. */
    private int fitting(List<String> items, int max) {
        long bytes = 2;
        for (int i = 0; i < max; i++) {
            bytes += JsonSize.of(items.get(i)) + 1;
            if (bytes > settings.resultMaxBytes()) {
                return i;
            }
        }
        return max;
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
        CallDeadline deadline = CallDeadline.start("file_find", settings.searchTimeoutMillis());
        try (SafeDirectory dir = gate.open(base)) {
            walk = TreeWalker.walk(lanes, deadline, new TreeWalker.Spec(dir, maxDepth, glob,
                    includeGenerated ? null : settings.generatedDirNames(), filter));
        } catch (IOException e) {
            throw io(e, userPath, "list");
        } catch (CallDeadline.Stop e) {
            throw deadline.failure("Narrow path, pathGlob or maxDepth.");
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
        long bytes = 2;
        boolean byBytes = false;
        for (int i = 0; i < files.size() && i < limit; i++) {
            TreeWalker.Entry e = files.get(i);
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("path", prefix + e.rel());
            f.put("size", e.size());
            f.put("modified", Instant.ofEpochMilli(e.mtimeMillis()).toString());
            long b = JsonSize.of(f) + 1;
            if (bytes + b > settings.resultMaxBytes()) {
                byBytes = true;
                break;
            }
            bytes += b;
            out.add(f);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("path", gate.relative(base));
        r.put("files", out);
        r.put("count", out.size());
        r.put("totalMatches", files.size());
        r.put("truncated", files.size() > out.size());
        r.put("skippedGeneratedDirs", walk.skippedGeneratedDirs());
        if (byBytes) {
            r.put("hint", "Only " + out.size() + " of " + files.size() + " files fit in the result budget of "
                    + settings.resultMaxBytes() + " bytes of JSON (resultMaxBytes). Narrow path or pathGlob, or filter "
                    + "by size or time, to see the rest.");
        } else if (files.size() > out.size()) {
            r.put("hint", "Only the first " + out.size() + " of " + files.size() + " files are shown (limit). Raise "
                    + "limit (at most " + settings.findMaxLimit() + "), or narrow path or pathGlob.");
        }
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
     * <p>Files are searched in parallel while the tree is walked, on threads of the call's own
     * ({@link SearchLanes}). Each file is read whole (it is at most
     * {@link FileToolSettings#grepMaxFileBytes()}); its bytes are first searched for the longest literal
     * the pattern requires, and only a file that may match is decoded as UTF-8 and matched line by line.
     * Skipped and counted: files over the size limit, binary files (a NUL byte in the first 8 KiB, or
     * anywhere in a file that may match), and files that may match but are not valid UTF-8 (a non-UTF-8
     * file that cannot match is simply not a hit).
     *
     * <p>Matches are ordered by path and line and kept while they fit both {@code limit} and
     * {@link FileToolSettings#resultMaxBytes()} bytes of JSON (context lines included); files whose path
     * sorts after the last match that can still be kept are not searched, so the result does not depend
     * on thread timing. A cut result has {@code truncated} true and a {@code hint}; {@code filesSearched}
     * counts only the files actually searched. The call fails {@code timeout} at
     * {@link FileToolSettings#searchTimeoutMillis()} (matching checks it) and {@code cancelled} when its
     * thread is interrupted.
     *
     * @param gate the gate
     * @param params pattern, path, pathGlob, caseInsensitive, contextBefore, contextAfter, maxDepth, limit,
     *        includeGenerated
     * @return path, matches ({@code path}, {@code line}, {@code text}, optional {@code before}/{@code after}),
     *         count, truncated, filesSearched, filesMatched, skippedLarge, skippedBinary, skippedNonUtf8,
     *         skippedGeneratedDirs, and a hint when truncated
     * @throws ToolException {@code invalid_params} for a bad pattern, {@code timeout}, {@code cancelled}
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
        GrepCollector col = new GrepCollector(limit, settings.resultMaxBytes());
        CallDeadline deadline = CallDeadline.start("file_grep", settings.searchTimeoutMillis());
        int skippedGenerated = 0;
        String prefix = baseAttrs.isDirectory() ? prefix(gate, base) : prefixOfParent(gate, base);
        try {
            if (baseAttrs.isDirectory()) {
                try (SafeDirectory dir = gate.open(base)) {
                    TreeWalker.Spec spec = new TreeWalker.Spec(dir, maxDepth, glob,
                            includeGenerated ? null : settings.generatedDirNames(), null);
                    int[] counts = TreeWalker.walk(lanes, deadline, spec, e -> {
                        if (col.beyondCutoff(e.rel())) {
                            col.skippedByLimit.incrementAndGet();
                            return;
                        }
                        List<GrepHit> hits = grepFile(e, prefix, searcher, limit + 1, ctxBefore, ctxAfter, col,
                                deadline);
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
                    List<GrepHit> hits = grepFile(single, prefix, searcher, limit + 1, ctxBefore, ctxAfter, col,
                            deadline);
                    if (hits != null && !hits.isEmpty()) {
                        col.add(single.rel(), hits);
                    }
                } catch (IOException e) {
                    throw io(e, userPath, "read");
                }
            }
        } catch (CallDeadline.Stop e) {
            throw deadline.failure("The pattern probably backtracks catastrophically on long lines (nested "
                    + "quantifiers such as (a+)+ or (.*)*): simplify it (a+ instead of (a+)+, a possessive a++ or an "
                    + "atomic group), or narrow path or pathGlob.");
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
        if (col.truncated()) {
            r.put("hint", grepHint(col, prefix, matches, limit, ctxBefore, ctxAfter));
        }
        return r;
    }

    private String grepHint(GrepCollector col, String prefix, List<Map<String, Object>> matches, int limit,
                            int ctxBefore, int ctxAfter) {
        String left = col.firstLeftOut(prefix);
        String where = left != null ? " The first match left out is " + left + "."
                : matches.isEmpty() ? "" : " Files after " + ConfinedRoot.quote(String.valueOf(
                        matches.get(matches.size() - 1).get("path"))) + " were not searched.";
        if (col.byBytes()) {
            return "The matches shown fill the result budget of " + settings.resultMaxBytes() + " bytes of JSON "
                    + "(resultMaxBytes); the rest were left out." + where + " To get the rest, "
                    + (ctxBefore + ctxAfter > 0 ? "lower contextBefore/contextAfter (now " + ctxBefore + "/" + ctxAfter
                    + "), " : "") + "narrow path, pathGlob or pattern (for example path = the file named above), or "
                    + "lower limit.";
        }
        return "Only the first " + limit + " matches are shown (limit)." + where + " Raise limit (at most "
                + settings.grepMaxLimit() + ") or narrow path, pathGlob or pattern to see the rest.";
    }

    private static String prefixOfParent(ConfinedRoot gate, Path file) {
        String rel = gate.relative(file.getParent());
        return rel.equals(".") ? "" : rel + "/";
    }

    /**
     * One match as it goes into the result, with its JSON size.
     *
     * @param json the match object
     * @param bytes its JSON size plus a separating comma
     * @param line its line number
     */
    private record GrepHit(Map<String, Object> json, long bytes, int line) {
    }

    /**
     * Keeps the longest prefix, in (path, line) order, of the matches found that fits {@code limit}
     * matches and {@code maxBytes} bytes of JSON, while files are searched in parallel, and tells the walk
     * which files can no longer contribute (their path sorts after the last match kept once the limit is
     * reached, or after the first match dropped for size: a match that did not fit never fits later,
     * since matches found later only come before it), so the result is the same whatever order files are
     * searched in.
     */
    private static final class GrepCollector {
        final AtomicInteger large = new AtomicInteger();
        final AtomicInteger binary = new AtomicInteger();
        final AtomicInteger nonUtf8 = new AtomicInteger();
        final AtomicInteger searched = new AtomicInteger();
        final AtomicInteger skippedByLimit = new AtomicInteger();
        final long maxBytes;
        private final int limit;
        private final java.util.TreeMap<String, List<GrepHit>> byFile = new java.util.TreeMap<>();
        private int kept;
        private long bytes = 2;
        private int filesMatched;
        private boolean trimmed;
        private boolean byBytes;
        private String droppedRel;
        private int droppedLine;
        private volatile String cutoff;

        GrepCollector(int limit, long maxBytes) {
            this.limit = limit;
            this.maxBytes = maxBytes;
        }

        boolean beyondCutoff(String rel) {
            String c = cutoff;
            return c != null && rel.compareTo(c) > 0;
        }

        synchronized void add(String rel, List<GrepHit> hits) {
            filesMatched++;
            byFile.put(rel, new ArrayList<>(hits));
            kept += hits.size();
            for (GrepHit h : hits) {
                bytes += h.bytes();
            }
            while (kept > limit || bytes > maxBytes) {
                Map.Entry<String, List<GrepHit>> last = byFile.lastEntry();
                List<GrepHit> l = last.getValue();
                GrepHit drop = l.remove(l.size() - 1);
                if (kept <= limit) {
                    byBytes = true;
                }
                kept--;
                bytes -= drop.bytes();
                trimmed = true;
                if (droppedRel == null || last.getKey().compareTo(droppedRel) < 0
                        || last.getKey().equals(droppedRel) && drop.line() < droppedLine) {
                    droppedRel = last.getKey();
                    droppedLine = drop.line();
                }
                if (l.isEmpty()) {
                    byFile.pollLastEntry();
                }
            }
            String c = droppedRel;
            if (kept == limit && (c == null || byFile.lastKey().compareTo(c) < 0)) {
                c = byFile.lastKey();
            }
            cutoff = c;
        }

        synchronized List<Map<String, Object>> matches() {
            List<Map<String, Object>> out = new ArrayList<>(kept);
            for (List<GrepHit> l : byFile.values()) {
                for (GrepHit h : l) {
                    out.add(h.json());
                }
            }
            return out;
        }

        synchronized boolean truncated() {
            return trimmed || skippedByLimit.get() > 0;
        }

        synchronized boolean byBytes() {
            return byBytes;
        }

        /** The first match that was dropped, as {@code 'path' line N}, or null. */
        synchronized String firstLeftOut(String prefix) {
            return droppedRel == null ? null : ConfinedRoot.quote(prefix + droppedRel) + " line " + droppedLine;
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

    /** Returns null when the file was skipped, else its matches (possibly empty), at most one over the byte budget. */
    private List<GrepHit> grepFile(TreeWalker.Entry e, String prefix, Searcher searcher, int max, int ctxBefore,
                                   int ctxAfter, GrepCollector stats, CallDeadline deadline) {
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
        String rel = prefix + e.rel();
        List<Searcher.Hit> hits;
        try {
            hits = searcher.search(text, max, deadline, rel);
        } catch (StackOverflowError so) {
            throw deadline.fail(Params.invalid("The pattern recursed too deeply while matching a long line of "
                    + ConfinedRoot.quote(rel) + " (Java regex recursion, e.g. (a|b)* or (.|\\n)* over thousands of "
                    + "characters). Use a character class instead (e.g. [ab]* or [^x]*), or narrow path or pathGlob."));
        }
        if (hits.isEmpty()) {
            return List.of();
        }
        List<GrepHit> out = new ArrayList<>(hits.size());
        long used = 2;
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
            long b = JsonSize.of(m) + 1;
            out.add(new GrepHit(m, b, h.line()));
            used += b;
            if (used > stats.maxBytes) {
                break;          // this file alone is over the budget: what follows can never be kept
            }
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
        boolean byBytes = false;
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
            if ((TextScan.classify(h, 0, h.length) & TextScan.BINARY) != 0
                    || (TextScan.classify(t, 0, t.length) & TextScan.BINARY) != 0) {
                throw binary(userPath, "file_head_tail");
            }
            // the result budget, counted on the bytes (an upper bound of their JSON): each side gets half, and
            // what one side does not need goes to the other
            long budget = settings.resultMaxBytes() - 4;
            long headBudget = t.length == 0 ? budget : Math.max(budget / 2, budget - jsonBoundOfBytes(t, 0, t.length));
            int hKeep = fittingBytes(h, 0, h.length, headBudget, true);
            budget -= jsonBoundOfBytes(h, 0, hKeep);
            int tKeep = fittingBytes(t, 0, t.length, budget, false);
            if (hKeep < h.length || tKeep < t.length) {
                clipped = true;
                byBytes = true;
                h = java.util.Arrays.copyOf(h, hKeep);
                tailStart += t.length - tKeep;
                t = java.util.Arrays.copyOfRange(t, t.length - tKeep, t.length);
            }
            headEnd = h.length;
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
        if (byBytes) {
            r.put("hint", "head and tail were cut to the result budget of " + settings.resultMaxBytes() + " bytes of "
                    + "JSON (resultMaxBytes); ask for fewer lines, or page with file_read and startLine.");
        }
        return r;
    }

    /**
     * How many bytes of {@code b[from, to)} fit in {@code budget} bytes of JSON (counted by
     * {@link JsonSize#byteBound}), taken from the start ({@code fromStart}) or from the end, never cutting a
     * UTF-8 sequence.
     */
    private static int fittingBytes(byte[] b, int from, int to, long budget, boolean fromStart) {
        if (jsonBoundOfBytes(b, from, to) <= budget) {
            return to - from;
        }
        long used = 0;
        if (fromStart) {
            int i = from;
            while (i < to && used + JsonSize.byteBound(b[i]) <= budget) {
                used += JsonSize.byteBound(b[i]);
                i++;
            }
            while (i > from && i < to && (b[i] & 0xC0) == 0x80) {
                i--;            // do not end inside a sequence
            }
            return i - from;
        }
        int i = to;
        while (i > from && used + JsonSize.byteBound(b[i - 1]) <= budget) {
            used += JsonSize.byteBound(b[i - 1]);
            i--;
        }
        while (i < to && (b[i] & 0xC0) == 0x80) {
            i++;                // do not start inside a sequence
        }
        return to - i;
    }

    private static long jsonBoundOfBytes(byte[] b, int from, int to) {
        long n = 0;
        for (int i = from; i < to; i++) {
            n += JsonSize.byteBound(b[i]);
        }
        return n;
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
     * {@code file_count}: lines, chars and bytes of a file or tree, or the lines matching a pattern. Bounded
     * by {@link FileToolSettings#searchTimeoutMillis()} like {@code file_grep} (matching checks it).
     *
     * @param gate the gate
     * @param params path, pathGlob, maxDepth, pattern, includeGenerated
     * @return path, files, lines, chars, bytes (or matchingLines, filesWithMatches), skipped counts
     * @throws ToolException on failure; {@code timeout}, {@code cancelled}
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
        CallDeadline deadline = CallDeadline.start("file_count", settings.searchTimeoutMillis());
        String prefix = single ? prefixOfParent(gate, base) : prefix(gate, base);
        TreeWalker.Sink sink = e -> {
            try (SeekableByteChannel ch = e.open()) {
                CountResult c = countFile(ch, searcher, single, deadline, prefix + e.rel());
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
                int[] c = TreeWalker.walk(lanes, deadline, new TreeWalker.Spec(dir, maxDepth, glob,
                        includeGenerated ? null : settings.generatedDirNames(), null), sink);
                skippedGenerated = c[0];
            }
        } catch (IOException e) {
            throw io(e, userPath, "read");
        } catch (CallDeadline.Stop e) {
            throw deadline.failure(searcher == null ? "Narrow path, pathGlob or maxDepth."
                    : "The pattern may backtrack catastrophically (nested quantifiers such as (a+)+): simplify it, or "
                    + "narrow path, pathGlob or maxDepth.");
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

    private CountResult countFile(SeekableByteChannel ch, Searcher searcher, boolean single, CallDeadline deadline,
                                  String rel) throws IOException {
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
                    deadline.check(rel);
                    matching += feed(cbuf, k, line, searcher, deadline, rel);
                }
            } catch (java.nio.charset.CharacterCodingException e) {
                return new CountResult(CountStatus.NON_UTF8, 0, 0, 0);
            } catch (StackOverflowError so) {
                throw deadline.fail(Params.invalid("The pattern recursed too deeply while matching a long line of "
                        + ConfinedRoot.quote(rel) + " (Java regex recursion, e.g. (a|b)*). Use a character class "
                        + "instead (e.g. [ab]*)."));
            }
            if (line.length() > 0 && searcher.matchesLine(line, deadline, rel)) {
                matching++;
            }
            return new CountResult(CountStatus.OK, matching, 0, ch.size());
        }
        long lines = 0;
        long chars = 0;
        long bytes = 0;
        byte last = '\n';
        while (n > 0) {
            deadline.check(rel);
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

    private static long feed(char[] cbuf, int len, StringBuilder line, Searcher searcher, CallDeadline deadline,
                             String rel) {
        long matching = 0;
        for (int i = 0; i < len; i++) {
            char c = cbuf[i];
            if (c == '\n') {
                int l = line.length();
                if (l > 0 && line.charAt(l - 1) == '\r') {
                    line.setLength(l - 1);
                }
                if (searcher.matchesLine(line, deadline, rel)) {
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
