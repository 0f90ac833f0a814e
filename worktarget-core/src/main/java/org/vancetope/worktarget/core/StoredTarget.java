package org.vancetope.worktarget.core;

import java.util.AbstractMap;
import java.util.Map;
import java.util.Set;

/**
 * The stored form of a {@link WorkTarget} ({@code kind} and {@code targetName}) as the map a process
 * store keeps, which remembers the target it was made from: a store that keeps the object it was
 * given (as {@link InMemoryProcessStore} does) hands it back, and the target is then not parsed again
 * on every call. A store that serializes it hands back a plain map, which is parsed as before.
 * Immutable.
 */
final class StoredTarget extends AbstractMap<String, Object> {
    private final WorkTarget target;
    private final Set<Map.Entry<String, Object>> entries;

    StoredTarget(WorkTarget target) {
        this.target = target;
        this.entries = target.targetName() == null
                ? Set.of(Map.entry("kind", target.kind().name()))
                : Set.of(Map.entry("kind", target.kind().name()), Map.entry("targetName", target.targetName()));
    }

    WorkTarget target() {
        return target;
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
        return entries;
    }
}
