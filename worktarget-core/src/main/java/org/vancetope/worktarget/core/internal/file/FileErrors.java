package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The one place where the file operations turn an I/O failure, a missing path or a path of the wrong
 * kind into a {@link ToolException} with a stable code and a message saying what to do next, naming the
 * caller's path, never a host path.
 */
final class FileErrors {
    private FileErrors() {
    }

    /**
     * Maps an I/O failure to a tool error without revealing host paths.
     *
     * @param e the failure
     * @param userPath the path as the caller gave it
     * @param what what was being done: {@code "read"}, {@code "write"}, {@code "list"}, {@code "delete"}
     * @return the error
     */
    static ToolException io(IOException e, String userPath, String what) {
        return ConfinedRoot.io(e, userPath, what);
    }

    /**
     * A file that looks binary, for an operation that shows text only.
     *
     * @param userPath the path as the caller gave it
     * @param tool the operation
     * @return the error
     */
    static ToolException binary(String userPath, String tool) {
        return Params.invalid("File " + ConfinedRoot.quote(userPath) + " looks binary (it contains NUL bytes); " + tool
                + " shows text only. Use file_count for its size.");
    }

    /**
     * A hint with one more sentence: either may be null.
     *
     * @param hint the hint so far, or null
     * @param more what to add, or null
     * @return both, one, or null
     */
    static String moreHint(String hint, String more) {
        return hint == null ? more : more == null ? hint : hint + " " + more;
    }

    /**
     * The hint of a read whose text shows U+FFFD for bytes of the file that are not UTF-8: what writing that
     * text back would do, and how to reach the real bytes.
     *
     * @return the hint
     */
    static String notUtf8Text() {
        return "The file is not UTF-8 text here (it may be in another encoding, such as Latin-1): its bytes that "
                + "are not UTF-8 are shown as U+FFFD ('\uFFFD'). Writing this text back with file_write would replace "
                + "them, and file_edit refuses the file. Convert it with exec_run (for example iconv -f latin1 -t "
                + "utf-8), or look at its bytes there (od -c).";
    }

    /**
     * A file that looks binary, for a {@code file_read} without {@code allowBinary}.
     *
     * @param userPath the path as the caller gave it
     * @param binaryMaxBytes the largest binary file file_read returns as base64
     * @return the error
     */
    static ToolException binaryRead(String userPath, int binaryMaxBytes) {
        return Params.invalid("File " + ConfinedRoot.quote(userPath) + " looks binary (it contains NUL bytes); "
                + "file_read shows text unless asked otherwise. Pass allowBinary: true to get its bytes as base64 "
                + "with their mediaType (files of at most " + binaryMaxBytes + " bytes), or use file_count for its "
                + "size.");
    }

    /**
     * The attributes of a path, not following a link.
     *
     * @param p the resolved path
     * @param userPath the path as the caller gave it
     * @return the attributes
     * @throws ToolException {@code not_found} when nothing is there, else as {@link #io}
     */
    static BasicFileAttributes attrs(Path p, String userPath) throws ToolException {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw ConfinedRoot.notFound(userPath);
        } catch (IOException e) {
            throw io(e, userPath, "read");
        }
    }

    /**
     * Checks that a path is a directory (not following a link).
     *
     * @param dir the resolved path
     * @param userPath the path as the caller gave it
     * @param tool the operation
     * @throws ToolException {@code not_found} when nothing is there, {@code invalid_params} for a file
     */
    static void requireDirectory(Path dir, String userPath, String tool) throws ToolException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new ToolException(ErrorCode.NOT_FOUND, "Directory " + ConfinedRoot.quote(userPath) + " does not exist. "
                    + "Call file_list on its parent to see what is there." + ConfinedRoot.undecodableHint(userPath));
        } catch (IOException e) {
            throw io(e, userPath, "list");
        }
        if (!a.isDirectory()) {
            throw Params.invalid("Path " + ConfinedRoot.quote(userPath) + " is a file, not a directory; " + tool
                    + " needs a directory. Use file_read to read the file.");
        }
    }
}
