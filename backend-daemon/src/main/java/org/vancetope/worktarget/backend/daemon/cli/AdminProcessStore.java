package org.vancetope.worktarget.backend.daemon.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.ProcessStore;

/**
 * The processes of the admin API, in memory: a one-shot process per call without {@code processId}
 * (removed when the call is over), or one kept under the id the caller gives (its target persists).
 */
final class AdminProcessStore implements ProcessStore {
    private final Map<String, ProcessInfo> processes = new ConcurrentHashMap<>();

    void put(ProcessInfo p) {
        processes.put(p.id(), p);
    }

    void remove(String id) {
        processes.remove(id);
    }

    /**
     * How many processes the store holds.
     *
     * @return the count
     */
    int size() {
        return processes.size();
    }

    @Override
    public Optional<ProcessInfo> find(String processId) {
        return Optional.ofNullable(processes.get(processId));
    }

    @Override
    public void putEngineParam(String processId, String key, Object value) {
        processes.compute(processId, (id, p) -> {
            if (p == null) {
                throw new NoSuchElementException("No process " + processId);
            }
            Map<String, Object> params = new LinkedHashMap<>(p.engineParams());
            if (value == null) {
                params.remove(key);
            } else {
                params.put(key, value);
            }
            return new ProcessInfo(p.id(), p.parentId(), p.sessionId(), p.tenant(), p.project(), p.user(), params);
        });
    }
}
