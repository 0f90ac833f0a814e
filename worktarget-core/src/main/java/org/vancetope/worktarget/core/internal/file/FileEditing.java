package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * {@code file_edit}: replaces texts in a file, one edit or a list applied in order, working on the
 * file's bytes in memory; writes the result with {@link FileWriting#replaceAtomically} only when every
 * edit matched (all or nothing), and renders the diff of the file as it was against the file as the
 * edits left it ({@link EditDiff}).
 */
final class FileEditing {
    private final FileToolSettings settings;

    FileEditing(FileToolSettings settings) {
        this.settings = settings;
    }

    /** One replacement of a {@code file_edit} call. */
    private record Edit(String oldText, String newText, boolean replaceAll) {
    }

    private static final List<String> EDIT_KEYS = List.of("oldText", "newText", "replaceAll");

    /**
     * {@code file_edit}: applies one edit ({@code oldText}, {@code newText}) or a list of them
     * ({@code edits}) in order to the file's content in memory, and writes the result atomically, or
     * nothing when any edit fails; shows a short diff.
     *
     * <p>Works on the file's bytes (in valid UTF-8 a text's bytes occur exactly where the text does); a
     * file over {@link FileToolSettings#wholeFileMaxBytes()} is refused before it is read. Each edit must
     * match exactly once in the text the previous edits left, unless its {@code replaceAll} is true; with
     * {@code dryRun} nothing is written. When another program saved the file after it was read, nothing is
     * written and the edits are applied again to what is there now (at most {@value #ATTEMPTS} times).
     *
     * @param gate the gate
     * @param params path and oldText, newText, replaceAll, or edits; dryRun
     * @return path, line, changed, replacements, dryRun, diff
     * @throws ToolException {@code not_found} when an oldText is missing, {@code invalid_params} when one is
     *         ambiguous or the parameters mix both forms, {@code size_limit} for a file (or an edited file) over
     *         the limit, {@code source_changed} when the file changed at every attempt; in every case the file
     *         is unchanged by this call
     */
    EditResult edit(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        for (int attempt = 1; ; attempt++) {
            try {
                return editOnce(gate, params);
            } catch (FileWriting.ChangedMeanwhile e) {
                if (attempt == ATTEMPTS) {
                    throw new ToolException(ErrorCode.SOURCE_CHANGED, "File " + ConfinedRoot.quote(Params.optString(
                            params, "path", "")) + " changed while it was being edited, " + ATTEMPTS + " times in a "
                            + "row (another program writes it); nothing was written. Call again once it no longer "
                            + "changes.");
                }
                // another program saved the file meanwhile: read it again and apply the edits to what is there
            }
        }
    }

    /** How often an edit is applied to a file that another program keeps changing, before it gives up. */
    static final int ATTEMPTS = 3;

    /** Tests only: runs after the file was read, so that a test can change it meanwhile. */
    static volatile Runnable afterReadForTests;

    private EditResult editOnce(ConfinedRoot gate, Map<String, Object> params)
            throws ToolException, FileWriting.ChangedMeanwhile {
        String userPath = Params.requireText(params, "path"); // an empty path gets the root's own message
        boolean single = params.get("edits") == null;
        List<Edit> edits = edits(params);
        boolean dryRun = Params.optBoolean(params, "dryRun", false);
        Path file = gate.resolve(userPath);
        if (!file.equals(gate.root())) {       // the root has a refusal of its own below
            ConfinedRoot.refuseDirectoryForm(userPath, "path", "file_edit edits a file. Nothing was changed. Pass "
                    + "the file's own path.");
        }
        long limit = settings.wholeFileMaxBytes();
        byte[] data;
        int n;
        java.nio.file.attribute.BasicFileAttributes read;
        ConfinedRoot.OpenFile open = gate.openFile(userPath, file);
        try (SeekableByteChannel ch = open.channel()) {
            read = open.attributes();
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
            throw FileErrors.io(e, userPath, "read");
        }
        Runnable hook = afterReadForTests;
        if (hook != null) {
            hook.run();
        }
        if (!isUtf8(data, n)) {
            throw Params.invalid("File " + ConfinedRoot.quote(userPath) + " is not UTF-8 text; file_edit only edits "
                    + "text files.");
        }
        if ((TextScan.classify(data, 0, Math.min(n, TextScan.SNIFF)) & TextScan.BINARY) != 0) {
            // what file_read, file_grep and file_count call binary (a NUL in the first 8 KiB) is not edited as text
            throw Params.invalid("File " + ConfinedRoot.quote(userPath) + " looks binary (it contains NUL bytes); "
                    + "file_edit only edits text files, and the file is unchanged. Change it with exec_run if you "
                    + "must (e.g. a script that writes the bytes).");
        }
        int firstLine = 0;
        int replacements = 0;
        boolean changed = false;
        byte[] original = data;     // the edits make new arrays: the diff compares with this
        int originalLength = n;
        // each edit reads and copies the whole text: many edits of a big file are bounded by the search deadline,
        // so that one call cannot hold a worker for minutes (10,000 edits of a 1.6 MB file took 40 s)
        CallDeadline deadline = CallDeadline.start("file_edit", settings.searchTimeout().toMillis());
        // only an edit with a line break can need CRLF, and only then is the whole file scanned for its kind
        boolean crlf = edits.stream().anyMatch(x -> x.oldText().indexOf('\n') >= 0 || x.newText().indexOf('\n') >= 0)
                && onlyCrlf(data, n);
        for (int e = 0; e < edits.size(); e++) {
            try {
                deadline.check();
            } catch (CallDeadline.Stop stop) {
                throw deadline.failure("It had applied " + e + " of " + edits.size() + " edits to the " + n
                        + " bytes of " + ConfinedRoot.quote(userPath) + " in memory, each of which reads the whole "
                        + "text; the file is unchanged. Send fewer edits per call, or make many edits with exec_run "
                        + "(sed -i, or a script).");
            }
            Edit edit = crlf ? inCrlf(edits.get(e)) : edits.get(e);
            String which = single ? "oldText" : "edits[" + e + "].oldText";
            String unchanged = single ? "the file is unchanged" : "no edit was applied and the file is unchanged";
            List<Integer> at = occurrences(data, n, edit, which, unchanged, userPath, single);
            byte[] old = edit.oldText().getBytes(StandardCharsets.UTF_8);
            byte[] neu = edit.newText().getBytes(StandardCharsets.UTF_8);
            long after = (long) n + (long) at.size() * (neu.length - old.length);
            if (after > limit) {
                throw new ToolException(ErrorCode.SIZE_LIMIT, "The edited " + ConfinedRoot.quote(userPath) + " would be "
                        + after + " bytes, over the " + limit + " bytes file_edit may write (wholeFileMaxBytes). The file "
                        + "is unchanged. Make the edit with exec_run instead.");
            }
            // the occurrences come in order: each line is counted on from the one before (one pass, not one
            // pass per occurrence, which made a replaceAll of a frequent text take hours on a large file)
            int line = 1;
            int counted = 0;
            for (int idx : at) {
                line += lineOf(data, counted, idx) - 1;
                counted = idx;
                if (firstLine == 0) {
                    firstLine = line;
                }
            }
            replacements += at.size();
            if (!edit.oldText().equals(edit.newText())) {
                changed = true;
                byte[] next = new byte[(int) after];
                int from = 0;
                int to = 0;
                for (int idx : at) {
                    System.arraycopy(data, from, next, to, idx - from);
                    to += idx - from;
                    System.arraycopy(neu, 0, next, to, neu.length);
                    to += neu.length;
                    from = idx + old.length;
                }
                System.arraycopy(data, from, next, to, n - from);
                data = next;
                n = next.length;
            }
        }
        // edits that undo each other leave the file as it was: nothing to write, nothing changed
        changed = changed && !java.util.Arrays.equals(original, 0, originalLength, data, 0, n);
        if (changed && !dryRun) {
            byte[] body = data;
            int len = n;
            try {
                FileWriting.replaceIfUnchanged(gate, file, userPath, read,
                        staged -> staged.write(ByteBuffer.wrap(body, 0, len)));
            } catch (IOException e) {
                throw FileErrors.io(e, userPath, "write");
            }
        }
        return new EditResult(gate.relative(file), firstLine, changed, replacements, dryRun,
                EditDiff.of(original, originalLength, data, n, settings.editDiffMaxLines(), settings.grepLineClipChars()));
    }

    /**
     * Whether every line break of {@code data[0, n)} is CRLF (and there is at least one): a file written on
     * Windows, or for it.
     */
    static boolean onlyCrlf(byte[] data, int n) {
        boolean any = false;
        for (int i = 0; i < n; i++) {
            if (data[i] == '\n') {
                if (i == 0 || data[i - 1] != '\r') {
                    return false;
                }
                any = true;
            }
        }
        return any;
    }

    /**
     * An edit of a file whose line breaks are all CRLF, with its own bare line breaks made CRLF: a caller
     * often writes the lines it read with '\n' alone (which could never match), and a newText with '\n'
     * would leave the file with line breaks of two kinds. An edit that holds a '\r' is taken as it is.
     */
    private static Edit inCrlf(Edit edit) {
        String oldText = edit.oldText();
        String newText = edit.newText();
        if (oldText.indexOf('\r') >= 0 || newText.indexOf('\r') >= 0) {
            return edit;
        }
        return new Edit(oldText.replace("\n", "\r\n"), newText.replace("\n", "\r\n"), edit.replaceAll());
    }

    /** The edits of a call: the single form or the list, exactly one of them. */
    private static List<Edit> edits(Map<String, Object> params) throws ToolException {
        Object list = params.get("edits");
        boolean hasSingle = params.get("oldText") != null || params.get("newText") != null;
        if (list == null) {
            if (!hasSingle) {
                throw Params.invalid("Pass oldText and newText (one edit), or edits (a list of {oldText, newText}) for "
                        + "several edits.");
            }
            return List.of(new Edit(Params.requireString(params, "oldText"), Params.requireText(params, "newText"),
                    Params.optBoolean(params, "replaceAll", false)));
        }
        if (hasSingle || params.get("replaceAll") != null) {
            throw Params.invalid("Pass either oldText/newText/replaceAll or edits, not both; put the single edit into "
                    + "edits as one more {oldText, newText} entry.");
        }
        if (!(list instanceof List<?> items)) {
            throw Params.invalid("Parameter 'edits' must be an array of {oldText, newText, replaceAll?} objects.");
        }
        if (items.isEmpty()) {
            throw Params.invalid("Parameter 'edits' is empty; give at least one {oldText, newText} edit, or use "
                    + "oldText/newText.");
        }
        List<Edit> out = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            if (!(items.get(i) instanceof Map<?, ?> m)) {
                throw Params.invalid("edits[" + i + "] must be an object {oldText, newText, replaceAll?}; no edit was "
                        + "applied.");
            }
            Map<String, Object> p = new java.util.LinkedHashMap<>();
            for (Map.Entry<?, ?> en : m.entrySet()) {
                String key = String.valueOf(en.getKey());
                if (!EDIT_KEYS.contains(key)) {
                    throw Params.invalid("edits[" + i + "] has an unknown key '" + key + "'; an edit takes oldText, "
                            + "newText and replaceAll. No edit was applied.");
                }
                p.put(key, en.getValue());
            }
            try {
                out.add(new Edit(Params.requireString(p, "oldText"), Params.requireText(p, "newText"),
                        Params.optBoolean(p, "replaceAll", false)));
            } catch (ToolException e) {
                throw Params.invalid("edits[" + i + "]: " + e.getMessage() + " No edit was applied.");
            }
        }
        return out;
    }

    /**
     * Where one edit's oldText occurs in {@code data[0, n)}: once, or every non-overlapping occurrence
     * with replaceAll.
     */
    private static List<Integer> occurrences(byte[] data, int n, Edit edit, String which, String unchanged,
                                             String userPath, boolean single) throws ToolException {
        String oldText = edit.oldText();
        byte[] old = hasLoneSurrogate(oldText) ? null : oldText.getBytes(StandardCharsets.UTF_8);
        int idx = old == null ? -1 : indexOf(data, n, old, 0);
        if (idx < 0) {
            String hint = "";
            String advice = " Call file_read and copy the exact text, including whitespace and line breaks.";
            String stripped = oldText.strip();
            if (indexOf(data, n, CRLF, 0) >= 0 && oldText.contains("\n") && !oldText.contains("\r\n")) {
                hint = " The file uses CRLF line endings; include '\\r\\n' in oldText.";
            } else if (!stripped.isEmpty() && !hasLoneSurrogate(stripped)) {
                String near = null;
                if (n <= WHITESPACE_HINT_MAX_BYTES) {
                    String text = new String(data, 0, n, StandardCharsets.UTF_8);     // decoded once for both looks
                    near = whitespaceHint(text, stripped);
                    if (near == null) {
                        near = ClosestText.hint(text, stripped);
                    }
                }
                if (near != null) {
                    hint = near;
                    advice = "";     // the hint quotes what to copy
                }
            }
            String seen = single ? "" : (" (in the text the edits before it left)");
            throw new ToolException(ErrorCode.NOT_FOUND, which + " was not found in " + ConfinedRoot.quote(userPath)
                    + seen + "; " + unchanged + "." + hint + advice);
        }
        List<Integer> at = new ArrayList<>();
        if (edit.replaceAll()) {
            for (int i = idx; i >= 0; i = indexOf(data, n, old, i + old.length)) {
                at.add(i);
            }
            return at;
        }
        int second = indexOf(data, n, old, idx + 1);
        if (second >= 0) {
            // the first ten distinct lines, counted on from one occurrence to the next (one pass over the data)
            List<Integer> lines = new ArrayList<>();
            int count = 0;
            int line = 1;
            int counted = 0;
            boolean more = false;
            for (int i = idx; i >= 0; i = indexOf(data, n, old, i + 1)) {
                count++;
                if (more) {
                    continue;
                }
                line += lineOf(data, counted, i) - 1;
                counted = i;
                if (lines.isEmpty() || lines.get(lines.size() - 1) != line) {
                    if (lines.size() == 10) {
                        more = true;
                    } else {
                        lines.add(line);
                    }
                }
            }
            throw Params.invalid(which + " occurs " + count + " times in " + ConfinedRoot.quote(userPath) + " ("
                    + (lines.size() == 1 ? "all on line " : "at lines ") + joinInts(lines) + (more ? ", ..." : "")
                    + "); " + unchanged + ". Include more "
                    + "surrounding lines in oldText so that it matches exactly once, or set replaceAll to true to "
                    + "replace every occurrence.");
        }
        at.add(idx);
        return at;
    }

    private static final byte[] CRLF = {'\r', '\n'};

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

    /** The largest file in which a text that differs only in whitespace is looked for (a copy and a map of it). */
    static final int WHITESPACE_HINT_MAX_BYTES = 8 << 20;
    /** How much of the text found that way the hint quotes. */
    static final int WHITESPACE_HINT_MAX_CHARS = 1_000;

    /**
     * Where the file holds a text that differs from {@code oldText} only in whitespace (indentation, tabs
     * for spaces, spaces, line breaks), quoted exactly so that the caller can copy it; or null. A model that
     * retypes lines often gets their indentation wrong, and "not found" alone makes it guess again.
     *
     * @param text the file's text (of at most {@link #WHITESPACE_HINT_MAX_BYTES} bytes)
     * @param oldText the text that was not found, without whitespace at its ends (not empty)
     * @return the hint, starting with a blank, or null
     */
    static String whitespaceHint(String text, String oldText) {
        String want = collapseWhitespace(oldText, null);
        int[] map = new int[text.length() + 1];
        String norm = collapseWhitespace(text, map);
        int at = norm.indexOf(want);
        if (at < 0) {
            return null;
        }
        int more = 0;
        for (int i = norm.indexOf(want, at + 1); i >= 0 && more < 1_000; i = norm.indexOf(want, i + 1)) {
            more++;
        }
        int start = map[at];
        int end = map[at + want.length() - 1] + 1;
        int line = 1;
        for (int i = 0; i < start; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        boolean cut = end - start > WHITESPACE_HINT_MAX_CHARS;
        String exact = text.substring(start, cut ? start + WHITESPACE_HINT_MAX_CHARS : end);
        String others = more == 0 ? "" : more == 1 ? " (and at 1 other place)"
                : " (and at " + (more == 1_000 ? "1,000 or more" : String.valueOf(more)) + " other places)";
        String shown = cut ? " (the first " + WHITESPACE_HINT_MAX_CHARS + " characters)" : "";
        return " A text that differs from it only in whitespace (indentation, tabs, spaces or line breaks) is at line "
                + line + others + "; there the file reads" + shown + ":\n" + exact + "\nCopy that text exactly into "
                + "oldText.";
    }

    /**
     * The text with every run of whitespace made one blank; {@code map}, when given, receives for each
     * character of the result the index of the character of {@code s} it stands for.
     */
    private static String collapseWhitespace(String s, int[] map) {
        StringBuilder out = new StringBuilder(s.length());
        boolean blank = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ws = Character.isWhitespace(c);
            if (ws && blank) {
                continue;
            }
            if (map != null) {
                map[out.length()] = i;
            }
            out.append(ws ? ' ' : c);
            blank = ws;
        }
        return out.toString();
    }

    /** One plus the line breaks in {@code data[from, idx)}: the line of {@code idx} counted from {@code from}. */
    private static int lineOf(byte[] data, int from, int idx) {
        int line = 1;
        for (int i = from; i < idx; i++) {
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
        CharBuffer out = CharBuffer.allocate(TextScan.CHUNK);
        while (true) {
            CoderResult cr = dec.decode(in, out, true);
            if (cr.isError()) {
                return false;
            }
            if (cr.isUnderflow()) {
                return !dec.flush(out.clear()).isError();
            }
            out.clear();
        }
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
}
