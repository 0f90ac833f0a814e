package org.vancetope.worktarget.core.internal.file;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One entry of a listing result (a file found, a match, a tree node, one file of a multi-read): its
 * JSON shape, and what it costs of the result budget.
 */
interface ResultEntry {

    /**
     * The JSON-shaped entry.
     *
     * @return a new map
     */
    Map<String, Object> toMap();

    /**
     * The JSON size of {@link #toMap()}, what the entry costs of the result budget.
     *
     * @return bytes
     */
    default long jsonSize() {
        return JsonSize.of(toMap());
    }

    /**
     * The JSON shapes of entries, in order.
     *
     * @param entries the entries
     * @return a new list
     */
    static List<Map<String, Object>> toMaps(List<? extends ResultEntry> entries) {
        List<Map<String, Object>> out = new ArrayList<>(entries.size());
        for (ResultEntry e : entries) {
            out.add(e.toMap());
        }
        return out;
    }
}
