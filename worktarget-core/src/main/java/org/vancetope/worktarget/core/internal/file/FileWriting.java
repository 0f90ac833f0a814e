package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.Utf8;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.core.internal.path.StagedFile;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Changes what is on disk as a whole: {@code file_write} and {@code file_delete}, and the atomic
 * staged replacement of a file that {@code file_write} and {@code file_edit} share (the new content is
 * written under a staging name by the root, {@link StagedFile}, and renamed over the target).
 */
final class FileWriting {
    private final FileToolSettings settings;

    FileWriting(FileToolSettings settings) {
        this.settings = settings;
    }

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
    WriteResult write(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.requireText(params, "path"); // an empty path gets the root's own message
        String content = Params.requireText(params, "content");
        Path file = gate.resolveFileToWrite(userPath, "path", "file_write", "written");
        long limit = settings.wholeFileMaxBytes();
        long bytes = Utf8.length(content, limit);
        if (bytes > limit) {
            throw new ToolException(ErrorCode.SIZE_LIMIT, "The content for " + ConfinedRoot.quote(userPath) + " is "
                    + (bytes == Long.MAX_VALUE ? "more than " + limit : bytes) + " bytes of UTF-8; file_write accepts at "
                    + "most " + limit + " bytes in one call (wholeFileMaxBytes). Nothing was written. Generate a big "
                    + "file with exec_run, or move it with a file transfer.");
        }
        String beside = NearNames.createdBeside(gate, file, false);     // before the write makes the path exist
        boolean created;
        long[] written = new long[1];
        try {
            created = replaceAtomically(gate, file, userPath, staged -> {
                writeUtf8(staged, content);
                written[0] = staged.size();
            });
        } catch (IOException e) {
            throw FileErrors.io(e, userPath, "write");
        }
        return new WriteResult(gate.relative(file), written[0], created, created ? beside : null);
    }

    /**
     * Encodes {@code s} into the staged file through one char buffer and one byte buffer of
     * {@link TextScan#CHUNK} (no copy of the content, no garbage per piece), never splitting a surrogate
     * pair; a lone surrogate becomes {@code '?'}, as {@link String#getBytes} makes it.
     */
    private static void writeUtf8(StagedFile staged, String s) throws IOException {
        int n = s.length();
        if (n <= TextScan.CHUNK) {
            staged.write(s.getBytes(StandardCharsets.UTF_8));
            return;
        }
        CharsetEncoder enc = StandardCharsets.UTF_8.newEncoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        char[] chars = new char[TextScan.CHUNK];
        CharBuffer cb = CharBuffer.wrap(chars);
        ByteBuffer bb = ByteBuffer.allocate(TextScan.CHUNK * 3);
        for (int i = 0; i < n; ) {
            int j = Math.min(n, i + TextScan.CHUNK);
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
    interface Content {
        /**
         * Writes the whole new content.
         *
         * @param staged the staged file
         * @throws IOException on failure
         */
        void writeTo(StagedFile staged) throws IOException;
    }

    /** The target of a {@link #replaceIfUnchanged} is no longer the file that was read. */
    static final class ChangedMeanwhile extends Exception {
        private static final long serialVersionUID = 1L;

        ChangedMeanwhile() {
            super(null, null, false, false);
        }
    }

    /**
     * Writes the whole new content under a staging name and renames it over the target (missing parents
     * are created race-free by the root); an existing file keeps its permissions.
     *
     * @return whether the file was created (did not exist before)
     */
    static boolean replaceAtomically(ConfinedRoot gate, Path file, String userPath, Content content)
            throws IOException, ToolException {
        try {
            return replace(gate, file, userPath, null, content);
        } catch (ChangedMeanwhile e) {
            throw new IllegalStateException("no attributes to compare, so nothing can have changed", e);
        }
    }

    /**
     * {@link #replaceAtomically} of a file read before, only while it is still that file: right before the
     * rename its file key, size and modification time are compared with {@code read}, so that a change
     * another program saved meanwhile is not overwritten with content computed from the older text. (The
     * compare and the rename are two steps: a change in between is still lost, but the window is
     * microseconds instead of the whole call.)
     *
     * @param read the attributes of the file when it was read
     * @throws ChangedMeanwhile when it changed; nothing was written
     */
    static void replaceIfUnchanged(ConfinedRoot gate, Path file, String userPath, BasicFileAttributes read,
                                   Content content) throws IOException, ToolException, ChangedMeanwhile {
        replace(gate, file, userPath, java.util.Objects.requireNonNull(read, "read"), content);
    }

    /** The staged write of both; {@code read} null: no compare. */
    private static boolean replace(ConfinedRoot gate, Path file, String userPath, BasicFileAttributes read,
                                   Content content) throws IOException, ToolException, ChangedMeanwhile {
        try (StagedFile staged = gate.stage(file)) {
            ConfinedRoot.TargetState existing = gate.checkTarget(staged, userPath);
            content.writeTo(staged);
            staged.finishWriting(true);
            if (read != null) {
                BasicFileAttributes now;
                try {
                    now = staged.directory().attributes(staged.targetName());
                } catch (NoSuchFileException e) {
                    throw new ChangedMeanwhile();
                }
                if (!java.util.Objects.equals(read.fileKey(), now.fileKey()) || read.size() != now.size()
                        || !read.lastModifiedTime().equals(now.lastModifiedTime())) {
                    throw new ChangedMeanwhile();
                }
            }
            staged.commit(existing.permissions(), null);
            return !existing.exists();
        }
    }

    /**
     * {@code file_delete}: deletes one file (a link itself, never its target; a FIFO, socket or device too, whose
     * unlink opens nothing); directories are refused.
     *
     * @param gate the gate
     * @param params path
     * @return path, deleted
     * @throws ToolException {@code invalid_params} for a directory
     */
    DeleteResult delete(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.requireText(params, "path"); // an empty path gets the root's own message
        Path entry = FileEntries.entry(gate, userPath, "file_delete", "delete", true);
        ConfinedRoot.refuseDirectoryForm(userPath, "path", "file_delete removes files only. Nothing was deleted. "
                + "To delete a file, pass its own path.");
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
            throw FileErrors.io(e, userPath, "delete");
        }
        return new DeleteResult(gate.relative(entry), deleted);
    }
}
