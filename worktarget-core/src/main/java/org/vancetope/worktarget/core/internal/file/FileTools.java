package org.vancetope.worktarget.core.internal.file;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.JsonValues;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * Builds the thirteen file backend tools ({@code client_file_*} or {@code work_file_*}) over one
 * {@link FileEngine}; the backend only says how a call finds its root.
 *
 * <pre>{@code
 * List<BackendTool> tools = FileTools.create("client_", engine, (params, ctx) -> gate);
 * }</pre>
 */
public final class FileTools {
    /** The file operations, as wrapper names, in catalog order. */
    public static final List<String> OPERATIONS = List.of("file_read", "file_write", "file_edit", "file_list",
            "file_find", "file_grep", "file_head_tail", "file_count", "file_delete", "file_move", "file_mkdir", "file_stat",
            "file_tree");

    private FileTools() {
    }

    /** How a backend finds the root of a call. */
    @FunctionalInterface
    public interface GateResolver {
        /**
         * The gate for a call.
         *
         * @param params the call's parameters (for example {@code dirName})
         * @param context the caller
         * @return the gate of the root to work in
         * @throws ToolException when the root cannot be found or the parameters name no valid root
         */
        ConfinedRoot gate(Map<String, Object> params, ToolContext context) throws ToolException;
    }

    /**
     * The thirteen tools with their catalog specs.
     *
     * @param prefix {@link ToolCatalog#CLIENT_PREFIX} or {@link ToolCatalog#WORK_PREFIX}
     * @param engine the engine
     * @param resolver how a call finds its root
     * @return the tools
     */
    public static List<BackendTool> create(String prefix, FileEngine engine, GateResolver resolver) {
        List<BackendTool> tools = new ArrayList<>();
        for (String op : OPERATIONS) {
            ToolSpec spec = ToolCatalog.backend(prefix + op).orElseThrow(
                    () -> new IllegalArgumentException("no catalog spec for " + prefix + op));
            // The parameters were guarded once, by the dispatcher, against this spec (or the daemon's manifest)
            tools.add(BackendTool.of(spec, (params, ctx) -> {
                Map<String, Object> p = params == null ? Map.of() : params;
                ConfinedRoot gate = resolver.gate(p, ctx);
                return JsonValues.normalize(engine.run(op, gate, p).toMap());
            }));
        }
        return List.copyOf(tools);
    }
}
