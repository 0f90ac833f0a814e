package org.vancetope.worktarget.backend.daemon.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The named processes of admin calls (calls that give a {@code processId}): the scope each belongs to, how
 * many calls run in it and when the last one ended. A named process keeps its target and temp RootDir
 * between calls, so without an end it would keep them for the life of the server; it ends on request
 * ({@code DELETE /admin/v1/processes/ID}), once it had no call for {@code processIdle}, never while a call
 * runs in it. A process keeps the tenant and project of its first call, and at most {@code maxProcesses}
 * exist at once. One-shot processes are not here: they end with their call.
 *
 * <p>Ending a process (the {@code ender}: every backend hears of it, then it leaves the process store)
 * runs outside the lock; a call that names a process while it is being ended waits for the end and then
 * starts the process afresh, so a call never runs in a process whose RootDir is being deleted.
 * Thread-safe.
 */
final class AdminProcesses {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(AdminProcesses.class);
    /** Why a call may not run in a named process, as the admin API answers it. */
    enum Refusal {
        /** The process exists in another tenant or project. */
        OTHER_SCOPE,
        /** {@code maxProcesses} named processes exist already. */
        TOO_MANY
    }

    /** What {@link #end} did. */
    enum Ended {
        /** The process was ended. */
        ENDED,
        /** No named process has that id. */
        UNKNOWN,
        /** A call runs in it; it was left alone. */
        BUSY
    }

    private static final class Entry {
        final String tenant;
        final String project;
        int running;
        long lastUsedNanos;
        /** Set once the end started; completes when it is done and the entry is gone. */
        CompletableFuture<Void> ending;

        Entry(String tenant, String project, long now) {
            this.tenant = tenant;
            this.project = project;
            this.lastUsedNanos = now;
        }
    }

    private final Map<String, Entry> named = new HashMap<>();
    private final Consumer<String> ender;
    private final Duration idle;
    private final int max;
    private final LongSupplier nanos;

    /**
     * Named processes.
     *
     * @param ender ends a process by id: tells every backend, removes it from the store; must not throw
     * @param idle how long a process may go without a call before {@link #sweep} ends it; zero: never
     * @param max the most named processes at once
     * @param nanos the clock, in nanoseconds ({@link System#nanoTime} in use)
     */
    AdminProcesses(Consumer<String> ender, Duration idle, int max, LongSupplier nanos) {
        this.ender = ender;
        this.idle = idle;
        this.max = max;
        this.nanos = nanos;
    }

    /**
     * Starts a call in a named process, making the process if it does not exist (and waiting for its end
     * first if it is being ended). Each call that gets null must be followed by {@link #exit}.
     *
     * @param id the process id
     * @param tenant the call's tenant
     * @param project the call's project
     * @return null when the call may run; else why not
     */
    Refusal enter(String id, String tenant, String project) {
        while (true) {
            CompletableFuture<Void> wait;
            synchronized (this) {
                Entry e = named.get(id);
                if (e == null) {
                    if (named.size() >= max) {
                        return Refusal.TOO_MANY;
                    }
                    e = new Entry(tenant, project, nanos.getAsLong());
                    named.put(id, e);
                }
                if (e.ending == null) {
                    if (!e.tenant.equals(tenant) || !e.project.equals(project)) {
                        return Refusal.OTHER_SCOPE;
                    }
                    e.running++;
                    return null;
                }
                wait = e.ending;
            }
            wait.join();
        }
    }

    /**
     * Ends a call started by {@link #enter}.
     *
     * @param id the process id
     */
    synchronized void exit(String id) {
        Entry e = named.get(id);
        if (e != null && e.running > 0) {
            e.running--;
            e.lastUsedNanos = nanos.getAsLong();
        }
    }

    /**
     * The scope a named process belongs to.
     *
     * @param id the process id
     * @return "tenant/project", or null when no named process has that id
     */
    synchronized String scopeOf(String id) {
        Entry e = named.get(id);
        return e == null ? null : e.tenant + "/" + e.project;
    }

    /**
     * The named processes, for the admin listing: id, tenant, project, running calls and whole seconds since
     * the last call ended (0 while one runs), sorted by id.
     *
     * @return one map each
     */
    synchronized List<Map<String, Object>> list() {
        long now = nanos.getAsLong();
        List<Map<String, Object>> out = new ArrayList<>();
        new java.util.TreeMap<>(named).forEach((id, e) -> {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("processId", id);
            m.put("tenant", e.tenant);
            m.put("project", e.project);
            m.put("runningCalls", e.running);
            m.put("idleSeconds", e.running > 0 ? 0 : Duration.ofNanos(now - e.lastUsedNanos).toSeconds());
            out.add(m);
        });
        return out;
    }

    /**
     * How many named processes exist (being ended included).
     *
     * @return the count
     */
    synchronized int size() {
        return named.size();
    }

    /**
     * Ends a named process unless a call runs in it.
     *
     * @param id the process id
     * @return what was done
     */
    Ended end(String id) {
        CompletableFuture<Void> done;
        synchronized (this) {
            Entry e = named.get(id);
            if (e == null) {
                return Ended.UNKNOWN;
            }
            if (e.ending != null) {
                done = e.ending;
            } else if (e.running > 0) {
                return Ended.BUSY;
            } else {
                e.ending = new CompletableFuture<>();
                done = null;
            }
        }
        if (done != null) {
            done.join();      // ended by someone else meanwhile: it is gone all the same
            return Ended.ENDED;
        }
        finish(id);
        return Ended.ENDED;
    }

    /**
     * Ends every named process that had no call for the idle time.
     *
     * @return the ids it ended
     */
    List<String> sweep() {
        if (idle.isZero()) {
            return List.of();
        }
        List<String> ending = new ArrayList<>();
        long now = nanos.getAsLong();
        synchronized (this) {
            named.forEach((id, e) -> {
                if (e.ending == null && e.running == 0 && now - e.lastUsedNanos >= idle.toNanos()) {
                    e.ending = new CompletableFuture<>();
                    ending.add(id);
                }
            });
        }
        finishAll(ending);
        return ending;
    }

    /**
     * Ends every named process, calls running or not: for when the server stops, since the process store
     * goes with it and nothing could end them later.
     *
     * @return the ids it ended
     */
    List<String> endAll() {
        List<String> ending = new ArrayList<>();
        synchronized (this) {
            named.forEach((id, e) -> {
                if (e.ending == null) {
                    e.ending = new CompletableFuture<>();
                    ending.add(id);
                }
            });
        }
        finishAll(ending);
        return ending;
    }

    /** Ends processes marked as ending, each even when an earlier one fails. */
    private void finishAll(List<String> ids) {
        for (String id : ids) {
            try {
                finish(id);
            } catch (RuntimeException e) {
                // the process is forgotten all the same; the others must still end
                LOG.warn("Ending the named process {} failed", id, e);
            }
        }
    }

    /** Runs the end of a process marked as ending, then forgets it and releases who waits for it. */
    private void finish(String id) {
        CompletableFuture<Void> ending;
        try {
            ender.accept(id);
        } finally {
            synchronized (this) {
                ending = named.remove(id).ending;
            }
            ending.complete(null);
        }
    }
}
