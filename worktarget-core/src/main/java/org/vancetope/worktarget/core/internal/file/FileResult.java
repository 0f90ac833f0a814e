package org.vancetope.worktarget.core.internal.file;

import java.util.Map;

/**
 * What one file operation returns: a typed value, rendered once, by the tool binding, into the
 * JSON-shaped result the tool sends ({@link #toMap()}). Every operation has its own record; the keys,
 * their order, the number types and which keys may be null or absent are the records' {@code toMap}.
 */
public sealed interface FileResult permits ReadResult, BinaryReadResult, MultiReadResult, HeadTailResult, CountResult,
        WriteResult, DeleteResult, EditResult, ListResult, FindResult, GrepResult, GrepCountResult, MoveResult,
        MkdirResult, StatResult, TreeResult {
    /**
     * The JSON-shaped tool result.
     *
     * @return a new map, keys in the documented order; a {@code hint} only when the result has one
     */
    Map<String, Object> toMap();
}
