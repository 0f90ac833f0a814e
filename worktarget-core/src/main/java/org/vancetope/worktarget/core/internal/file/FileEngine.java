package org.vancetope.worktarget.core.internal.file;

import java.nio.file.LinkOption;
import java.util.Map;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.core.internal.path.StagedFile;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The file engine: the thirteen file operations on any {@link java.nio.file.FileSystem}, every path going
 * through a {@link ConfinedRoot}. One instance serves every backend, so results have the same shape on
 * CLIENT, WORK and DAEMON; paths in results are relative to the gate's root with {@code '/'}.
 *
 * <p>Each operation returns a typed {@link FileResult}, rendered once into the tool's JSON-shaped
 * result by the tool binding ({@link FileTools}). The operations live with their idea: reading
 * ({@link FileReading}: {@code file_read}, {@code file_head_tail}), counting ({@link FileCounting}),
 * writing ({@link FileWriting}: {@code file_write}, {@code file_delete} and the atomic staged write),
 * editing ({@link FileEditing}), listing and finding ({@link FileListing}), searching ({@link FileGrep}),
 * whole entries ({@link FileEntries}: {@code file_move}, {@code file_mkdir}, {@code file_stat}) and the
 * tree view ({@link FileTree}); their failures are mapped in one place ({@link FileErrors}).
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
    private final FileToolSettings settings;
    private final FileReading reading;
    private final FileCounting counting;
    private final FileWriting writing;
    private final FileEditing editing;
    private final FileListing listing;
    private final FileGrep grep;
    private final FileEntries entries;
    private final FileTree tree;
    private final SearchLanes lanes;

    /**
     * An engine with the given limits.
     *
     * @param settings the limits
     */
    public FileEngine(FileToolSettings settings) {
        this.settings = settings;
        this.lanes = new SearchLanes(settings.parallelism());
        this.reading = new FileReading(settings);
        this.counting = new FileCounting(settings, lanes);
        this.writing = new FileWriting(settings);
        this.editing = new FileEditing(settings);
        this.listing = new FileListing(settings, lanes);
        this.grep = new FileGrep(settings, lanes);
        this.entries = new FileEntries(counting);
        this.tree = new FileTree(settings);
    }

    /**
     * Ends the threads its searches keep for the next call (named {@code worktarget-search-N}; unused, they
     * would end after a minute). Calls made afterwards still work, on threads that end with each call.
     */
    public void close() {
        lanes.close();
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
     * @return the typed result; {@link FileResult#toMap()} renders it
     * @throws ToolException with a stable code and a message saying what to do next
     */
    public FileResult run(String operation, ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        try {
            return dispatch(operation, gate, params);
        } catch (ToolException e) {
            // a path that does not exist: say where it stops existing and what is there instead
            throw NearNames.explain(e, gate, text(params, "path"), text(params, "from"), text(params, "to"));
        }
    }

    private static String text(Map<String, Object> params, String key) {
        return params.get(key) instanceof String s ? s : null;
    }

    private FileResult dispatch(String operation, ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        return switch (operation) {
            case "file_read" -> reading.read(gate, params);
            case "file_write" -> writing.write(gate, params);
            case "file_edit" -> editing.edit(gate, params);
            case "file_list" -> listing.list(gate, params);
            case "file_find" -> listing.find(gate, params);
            case "file_grep" -> grep.grep(gate, params);
            case "file_head_tail" -> reading.headTail(gate, params);
            case "file_count" -> counting.count(gate, params);
            case "file_delete" -> writing.delete(gate, params);
            case "file_move" -> entries.move(gate, params);
            case "file_mkdir" -> entries.mkdir(gate, params);
            case "file_stat" -> entries.stat(gate, params);
            case "file_tree" -> tree.tree(gate, params);
            default -> throw new ToolException(ErrorCode.UNKNOWN_TOOL, "Unknown file operation '" + operation + "'.");
        };
    }
}
