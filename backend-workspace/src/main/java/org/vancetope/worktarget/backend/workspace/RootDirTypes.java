package org.vancetope.worktarget.backend.workspace;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.spi.RootDirTypeHandler;

/**
 * The table of RootDir types a workspace knows: each type's handler and whether its RootDirs go away
 * with their creator by default. Filled by the builder, read-only once the backend is built.
 *
 * <p>It only answers which handler serves a type; it does not create, suspend or dispose RootDirs
 * ({@link RootDirLifecycle} does, through the handlers) and keeps no RootDir state.
 */
final class RootDirTypes {
    private final Map<String, RootDirTypeHandler> handlers;
    private final Map<String, Boolean> deleteDefaults;

    private RootDirTypes(Map<String, RootDirTypeHandler> handlers, Map<String, Boolean> deleteDefaults) {
        this.handlers = Map.copyOf(handlers);
        this.deleteDefaults = Map.copyOf(deleteDefaults);
    }

    /** Collects the types while the backend is configured; a later registration of a type replaces it. */
    static final class Table {
        private final Map<String, RootDirTypeHandler> handlers = new LinkedHashMap<>();
        private final Map<String, Boolean> deleteDefaults = new LinkedHashMap<>();

        void put(RootDirTypeHandler handler, boolean deleteOnCreatorCloseDefault) {
            Objects.requireNonNull(handler, "handler");
            handlers.put(handler.type(), handler);
            deleteDefaults.put(handler.type(), deleteOnCreatorCloseDefault);
        }

        /**
         * Checks every type name and freezes the table.
         *
         * @throws IllegalStateException when a type name is not a safe segment
         */
        RootDirTypes freeze() {
            for (String type : handlers.keySet()) {
                if (!Segments.isSafe(type)) {
                    throw new IllegalStateException("RootDir type '" + type + "' must be a safe name");
                }
            }
            return new RootDirTypes(handlers, deleteDefaults);
        }
    }

    boolean isKnown(String type) {
        return handlers.containsKey(type);
    }

    List<String> names() {
        return handlers.keySet().stream().sorted().toList();
    }

    boolean deleteOnCreatorCloseDefault(String type) {
        return deleteDefaults.getOrDefault(type, false);
    }

    /**
     * The handler of a type.
     *
     * @throws IllegalStateException when the type has no handler (a descriptor of a type not registered)
     */
    RootDirTypeHandler handler(String type) {
        RootDirTypeHandler h = handlers.get(type);
        if (h == null) {
            throw new IllegalStateException("no handler for RootDir type '" + type + "'; register it on the builder");
        }
        return h;
    }
}
