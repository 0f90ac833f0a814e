package org.vancetope.worktarget.testkit;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.ProcessStore;

/**
 * A thread-safe in-memory {@link ProcessStore} whose {@link #putEngineParam} is a true field-level
 * update: concurrent updates of different keys never lose each other.
 *
 * <pre>{@code
 * InMemoryProcessStore store = new InMemoryProcessStore();
 * store.add(new ProcessInfo("p1", null, "s1", "acme", "proj", "alice", Map.of()));
 * }</pre>
 *
 * <p>It stores only what {@link ProcessInfo} describes; it knows nothing of process lifecycles.
 */
public final class InMemoryProcessStore implements ProcessStore {
    private final Map<String, Entry> processes = new ConcurrentHashMap<>();
    private final AtomicLong writes = new AtomicLong();

    /** An empty store. */
    public InMemoryProcessStore() {
    }

    private record Entry(ProcessInfo identity, ConcurrentHashMap<String, Object> params) {
    }

    /**
     * Adds (or replaces) a process.
     *
     * @param process the process; its engine parameters become the initial ones
     * @return this
     */
    public InMemoryProcessStore add(ProcessInfo process) {
        ConcurrentHashMap<String, Object> params = new ConcurrentHashMap<>();
        process.engineParams().forEach((k, v) -> {
            if (v != null) {
                params.put(k, v);
            }
        });
        processes.put(process.id(), new Entry(process, params));
        return this;
    }

    /**
     * Adds a process with no engine parameters.
     *
     * @param id the id
     * @param parentId the parent, or null
     * @param sessionId the session, or null
     * @param tenant the tenant
     * @param project the project
     * @param user the user, or null
     * @return the snapshot that was added
     */
    public ProcessInfo add(String id, String parentId, String sessionId, String tenant, String project, String user) {
        ProcessInfo p = new ProcessInfo(id, parentId, sessionId, tenant, project, user, Map.of());
        add(p);
        return p;
    }

    /**
     * Removes a process.
     *
     * @param id the id
     */
    public void remove(String id) {
        processes.remove(id);
    }

    @Override
    public Optional<ProcessInfo> find(String processId) {
        Entry e = processes.get(Objects.requireNonNull(processId, "processId"));
        if (e == null) {
            return Optional.empty();
        }
        ProcessInfo id = e.identity;
        return Optional.of(new ProcessInfo(id.id(), id.parentId(), id.sessionId(), id.tenant(), id.project(), id.user(),
                new LinkedHashMap<>(e.params)));
    }

    @Override
    public void putEngineParam(String processId, String key, Object value) {
        Entry e = processes.get(processId);
        if (e == null) {
            throw new NoSuchElementException("No process '" + processId + "'");
        }
        if (value == null) {
            e.params.remove(key);
        } else {
            e.params.put(key, value);
        }
        writes.incrementAndGet();
    }

    /**
     * How many field-level writes were made.
     *
     * @return the count
     */
    public long writeCount() {
        return writes.get();
    }
}
