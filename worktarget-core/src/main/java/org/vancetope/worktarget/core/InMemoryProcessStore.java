package org.vancetope.worktarget.core;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.ProcessStore;

/**
 * A thread-safe in-memory {@link ProcessStore}, for a host that keeps its processes in memory (and for
 * tests). Its {@link #putEngineParam} is a true field-level update: concurrent updates of different
 * keys never lose each other.
 *
 * <pre>{@code
 * InMemoryProcessStore processes = new InMemoryProcessStore();
 * processes.process("agent-1").tenant("acme").project("shop").session("s-42").user("alice").add();
 * }</pre>
 *
 * <p>It stores only what {@link ProcessInfo} describes; it knows nothing of process lifecycles (remove a
 * process yourself when it ends, after {@code WorkTargetDispatcher.processEnded}).
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
     * Starts adding a process: name its scope, then call {@link NewProcess#add()}.
     *
     * @param id the process id
     * @return the process to describe
     */
    public NewProcess process(String id) {
        return new NewProcess(this, Objects.requireNonNull(id, "id"));
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
     * Removes a process.
     *
     * @param id the id
     * @return true when the store held it
     */
    public boolean remove(String id) {
        return processes.remove(id) != null;
    }

    /**
     * How many processes the store holds.
     *
     * @return the count
     */
    public int size() {
        return processes.size();
    }

    /**
     * The ids of the processes the store holds.
     *
     * @return a snapshot, in no particular order
     */
    public List<String> ids() {
        return List.copyOf(processes.keySet());
    }

    @Override
    public Optional<ProcessInfo> find(String processId) {
        Entry e = processes.get(Objects.requireNonNull(processId, "processId"));
        if (e == null) {
            return Optional.empty();
        }
        ProcessInfo id = e.identity;
        return Optional.of(new ProcessInfo(id.id(), id.parentId(), id.sessionId(), id.tenant(), id.project(), id.user(),
                e.params));     // the record copies the map
    }

    /**
     * Sets or removes one engine parameter of a process.
     *
     * @param processId the process
     * @param key the key
     * @param value the value; null removes the key
     * @throws NoSuchElementException when the store does not hold the process
     */
    @Override
    public void putEngineParam(String processId, String key, Object value) {
        Entry e = processes.get(processId);
        if (e == null) {
            throw new NoSuchElementException("No process '" + processId + "' in this store; add it first with "
                    + "process(id)...add().");
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

    /**
     * A process being described for {@link #process(String)}: tenant and project are required, the
     * rest optional.
     */
    public static final class NewProcess {
        private final InMemoryProcessStore store;
        private final String id;
        private String parentId;
        private String sessionId;
        private String tenant;
        private String project;
        private String user;
        private final Map<String, Object> engineParams = new LinkedHashMap<>();

        private NewProcess(InMemoryProcessStore store, String id) {
            this.store = store;
            this.id = id;
        }

        /**
         * The tenant (required).
         *
         * @param value the tenant
         * @return this
         */
        public NewProcess tenant(String value) {
            this.tenant = Objects.requireNonNull(value, "tenant");
            return this;
        }

        /**
         * The project (required).
         *
         * @param value the project
         * @return this
         */
        public NewProcess project(String value) {
            this.project = Objects.requireNonNull(value, "project");
            return this;
        }

        /**
         * The session the process belongs to (default none); its client is the process's CLIENT target.
         *
         * @param value the session id, or null
         * @return this
         */
        public NewProcess session(String value) {
            this.sessionId = value;
            return this;
        }

        /**
         * The user (default none).
         *
         * @param value the user login, or null
         * @return this
         */
        public NewProcess user(String value) {
            this.user = value;
            return this;
        }

        /**
         * The process that spawned this one (default none: a root process).
         *
         * @param value the parent's id, or null
         * @return this
         */
        public NewProcess parent(String value) {
            this.parentId = value;
            return this;
        }

        /**
         * An initial engine parameter, e.g. the stored work target.
         *
         * @param key the key
         * @param value the value
         * @return this
         */
        public NewProcess engineParam(String key, Object value) {
            engineParams.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * Adds (or replaces) the process in the store.
         *
         * @return the snapshot that was added
         * @throws IllegalStateException when the tenant or the project is missing
         */
        public ProcessInfo add() {
            if (tenant == null || project == null) {
                throw new IllegalStateException("Process '" + id + "' needs a tenant and a project: call "
                        + "tenant(..) and project(..) before add().");
            }
            ProcessInfo p = new ProcessInfo(id, parentId, sessionId, tenant, project, user, engineParams);
            store.add(p);
            return p;
        }
    }
}
