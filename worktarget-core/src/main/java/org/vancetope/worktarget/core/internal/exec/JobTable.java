package org.vancetope.worktarget.core.internal.exec;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The jobs of one {@link ExecEngine} by scope, and the job ids in use. It reserves a slot for a start
 * (making room by evicting the oldest finished job when the scope is full), files the started job,
 * finds a job for a call of its scope (which counts as that scope's last call), hands out the jobs of a
 * closed scope, root or engine, and picks the idle scopes and the expired output files of an expiry
 * pass. A job of one scope is invisible to every other scope.
 *
 * <p>It does not start, end or delete anything and holds no thread: whatever it hands out or evicts,
 * the caller ends and cleans up (see {@link JobReaper}). Thread-safe: each scope is guarded by its own
 * monitor; a closed scope is out of the table for good, and a start that lands in it is told so.
 */
final class JobTable {
    private static final Logger LOG = LoggerFactory.getLogger(JobTable.class);

    private final ConcurrentHashMap<String, Scope> scopes = new ConcurrentHashMap<>();
    private final Set<String> ids = ConcurrentHashMap.newKeySet();
    /** Roots closed by {@link #removeRoot} and not reopened: a job that starts in one is not filed. */
    private final Set<Path> closedRoots = ConcurrentHashMap.newKeySet();
    private final Clock clock;
    private final Random random;
    private final int maxJobsPerScope;
    /** The most running jobs of one project, over its scopes; 0 for no cap. */
    private final int maxRunningPerProject;
    /** Held while a reservation counts a project's running jobs, so that two starts cannot both pass. */
    private final Object projectCount = new Object();
    private final long scopeIdleMs;

    /**
     * The jobs of one scope, plus slots reserved by starts in progress. Guarded by its own monitor; once
     * closed it is out of {@link #scopes} for good.
     */
    static final class Scope {
        private final LinkedHashMap<String, Job> jobs = new LinkedHashMap<>();
        private int pending;
        private boolean closed;
        /** The last call of this scope (exec_run, exec_status, exec_tail, exec_kill), on the engine's clock. */
        private Instant lastCall;

        private Scope(Instant now) {
            this.lastCall = now;
        }
    }

    /**
     * A slot reserved for a start.
     *
     * @param scope the scope the slot is in
     * @param evicted the finished job evicted to make room, which the caller must forget; or null
     */
    record Reservation(Scope scope, Job evicted) {
    }

    /**
     * What an expiry pass found.
     *
     * @param closedJobs the jobs of the scopes it closed, to be disposed of
     * @param expiring the finished jobs whose output files are due for deletion
     * @param scopesClosed how many scopes it closed
     */
    record Expired(List<Job> closedJobs, List<Job> expiring, int scopesClosed) {
    }

    JobTable(Clock clock, Random random, int maxJobsPerScope, int maxRunningPerProject, long scopeIdleMs) {
        this.clock = clock;
        this.random = random;
        this.maxJobsPerScope = maxJobsPerScope;
        this.maxRunningPerProject = maxRunningPerProject;
        this.scopeIdleMs = scopeIdleMs;
    }

    /**
     * Reserves a slot in a scope, creating the scope when needed, and counts as the scope's last call.
     *
     * @param scope the scope
     * @return the reservation
     * @throws ToolException {@code size_limit} when the scope holds {@code maxJobsPerScope} running jobs
     */
    Reservation reserve(String scope) throws ToolException {
        if (maxRunningPerProject <= 0) {
            return reserveInScope(scope);
        }
        synchronized (projectCount) {
            String project = projectOf(scope);
            int running = 0;
            for (Map.Entry<String, Scope> e : scopes.entrySet()) {
                if (!projectOf(e.getKey()).equals(project)) {
                    continue;
                }
                Scope t = e.getValue();
                synchronized (t) {
                    running += t.pending;
                    for (Job j : t.jobs.values()) {
                        if (!j.status().finished()) {
                            running++;
                        }
                    }
                }
            }
            if (running >= maxRunningPerProject) {
                throw new ToolException(ErrorCode.SIZE_LIMIT, "Project " + project + " already has " + running
                        + " running jobs, the most one project may run at once (maxRunningJobsPerProject "
                        + maxRunningPerProject + ", over all its sessions and processes). End one with exec_kill or "
                        + "wait for one to finish (exec_status lists this session's), then run again.");
            }
            return reserveInScope(scope);
        }
    }

    /** The project of a scope: {@code tenant/project} of {@code tenant/project/session:…}; else the whole key. */
    static String projectOf(String scope) {
        // tenant and project are path segments without '/'; a session or process id may hold one
        int first = scope.indexOf('/');
        int second = first < 0 ? -1 : scope.indexOf('/', first + 1);
        return second > 0 ? scope.substring(0, second) : scope;
    }

    private Reservation reserveInScope(String scope) throws ToolException {
        while (true) {
            Scope table = scopes.computeIfAbsent(scope, s -> new Scope(clock.instant()));
            Job evicted = null;
            synchronized (table) {
                if (table.closed || scopes.get(scope) != table) {
                    continue; // closed concurrently; take the new table
                }
                table.lastCall = clock.instant();
                if (table.jobs.size() + table.pending >= maxJobsPerScope) {
                    for (Job j : table.jobs.values()) {
                        if (j.status().finished()) {
                            evicted = j;
                            break;
                        }
                    }
                    if (evicted == null) {
                        throw new ToolException(ErrorCode.SIZE_LIMIT, "This scope already has " + maxJobsPerScope
                                + " running jobs (maxJobsPerScope). End one with exec_kill or wait for one to finish, "
                                + "then run again.");
                    }
                    table.jobs.remove(evicted.id);
                }
                table.pending++;
            }
            return new Reservation(table, evicted);
        }
    }

    /**
     * A new job id, unique among the ids in use.
     *
     * @return the id
     */
    String newId() {
        byte[] b = new byte[10];
        while (true) {
            synchronized (random) {
                random.nextBytes(b);
            }
            String id = "j" + HexFormat.of().formatHex(b);
            if (ids.add(id)) {
                return id;
            }
            LOG.warn("exec job id collision on {}; drawing another", id);
        }
    }

    /**
     * Gives back a reserved slot and its id: the start failed.
     *
     * @param r the reservation
     * @param id the id drawn for the start
     */
    void cancel(Reservation r, String id) {
        ids.remove(id);
        synchronized (r.scope()) {
            r.scope().pending--;
        }
    }

    /**
     * Files a started job in its reserved slot.
     *
     * @param r the reservation
     * @param job the started job
     * @return true when filed; false when the scope, or the root the job runs in, was closed while the job
     *         started (the caller ends it)
     */
    boolean file(Reservation r, Job job) {
        Scope table = r.scope();
        synchronized (table) {
            table.pending--;
            if (table.closed || inClosedRoot(job)) {
                return false;
            }
            table.jobs.put(job.id, job);
            return true;
        }
    }

    /** Forgets a job's id once the job is out of its scope. */
    void release(Job job) {
        ids.remove(job.id);
    }

    /**
     * A job of a scope; the lookup counts as the scope's last call.
     *
     * @param scope the scope, or null
     * @param id the id, or null
     * @return the job, or null when that scope holds no such job
     */
    Job find(String scope, String id) {
        if (scope == null || id == null) {
            return null;
        }
        Scope table = scopes.get(scope);
        if (table == null) {
            return null;
        }
        synchronized (table) {
            table.lastCall = clock.instant();
            return table.jobs.get(id);
        }
    }

    /**
     * The jobs of a scope, oldest first; the lookup counts as the scope's last call.
     *
     * @param scope the scope
     * @return a snapshot, empty when the scope holds no job
     */
    List<Job> jobs(String scope) {
        Scope table = scope == null ? null : scopes.get(scope);
        if (table == null) {
            return List.of();
        }
        synchronized (table) {
            table.lastCall = clock.instant();
            return List.copyOf(table.jobs.values());
        }
    }

    /**
     * A job of a scope, which must exist.
     *
     * @param scope the scope
     * @param id the id
     * @return the job
     * @throws ToolException {@code not_found}, saying when jobs are forgotten
     */
    Job require(String scope, String id) throws ToolException {
        Job job = find(scope, id);
        if (job == null) {
            throw new ToolException(ErrorCode.NOT_FOUND, unknown(id) + " Run the command again if you need its output.");
        }
        return job;
    }

    /**
     * Why there is no job with this id: the start of the message for an unknown job.
     *
     * @param id the id asked for
     * @return the message, saying when jobs are forgotten
     */
    String unknown(String id) {
        return "No job with id '" + id + "' here. Job ids come from exec_run; the oldest finished jobs are forgotten "
                + "after " + maxJobsPerScope + " newer ones (maxJobsPerScope)"
                + (scopeIdleMs > 0 ? ", and all of them once this scope has had no call and no running job for "
                + ExecResults.duration(scopeIdleMs) + " (scopeIdle)" : "") + ".";
    }

    /**
     * Closes a scope and hands out its jobs.
     *
     * @param scope the scope
     * @return its jobs, or null when there is no such scope
     */
    List<Job> closeScope(String scope) {
        Scope table = scopes.remove(scope);
        return table == null ? null : closed(table);
    }

    private boolean inClosedRoot(Job job) {
        return closedRoots.stream().anyMatch(closed -> runsIn(job, closed));
    }

    /** Whether a job's working directory lies in a root (normalised). */
    private static boolean runsIn(Job job, Path root) {
        return job.root.root().startsWith(root);
    }

    /**
     * Lets jobs be filed again in a root that {@link #removeRoot} closed.
     *
     * @param root the root directory
     */
    void reopenRoot(Path root) {
        closedRoots.remove(root.toAbsolutePath().normalize());
    }

    /**
     * Takes every job whose working directory lies in a root out of its scope, and closes the root: a job
     * that starts in it is not filed until {@link #reopenRoot}.
     *
     * @param root the root directory
     * @return the jobs
     */
    List<Job> removeRoot(Path root) {
        Path norm = root.toAbsolutePath().normalize();
        closedRoots.add(norm);      // before the walk: a job filed after its table was walked sees it
        List<Job> jobs = new ArrayList<>();
        for (Scope table : scopes.values()) {
            synchronized (table) {
                for (Iterator<Job> it = table.jobs.values().iterator(); it.hasNext(); ) {
                    Job j = it.next();
                    if (runsIn(j, norm)) {
                        jobs.add(j);
                        it.remove();
                    }
                }
            }
        }
        return jobs;
    }

    /**
     * Closes every scope and hands out all jobs.
     *
     * @return the jobs
     */
    List<Job> closeAll() {
        List<Job> jobs = new ArrayList<>();
        for (String scope : new ArrayList<>(scopes.keySet())) {
            Scope table = scopes.remove(scope);
            if (table != null) {
                jobs.addAll(closed(table));
            }
        }
        return jobs;
    }

    private static List<Job> closed(Scope table) {
        synchronized (table) {
            table.closed = true;
            List<Job> jobs = new ArrayList<>(table.jobs.values());
            table.jobs.clear();
            return jobs;
        }
    }

    /** How many jobs a scope holds (running and finished). */
    int jobCount(String scope) {
        Scope table = scopes.get(scope);
        if (table == null) {
            return 0;
        }
        synchronized (table) {
            return table.jobs.size();
        }
    }

    /** How many scopes hold jobs or starts in progress. */
    int scopeCount() {
        return scopes.size();
    }

    /**
     * Closes the scopes idle for {@code scopeIdle} at {@code now} (when that is not 0) and, in the other
     * scopes, picks the jobs that finished {@code outputRetention} ago and still have their files (when
     * that is not 0).
     *
     * @param now the clock's current time
     * @param outputRetentionMs the retention of output files, 0 to keep them
     * @return what it found
     */
    Expired expire(Instant now, long outputRetentionMs) {
        List<Job> closedJobs = new ArrayList<>();
        List<Job> expiring = new ArrayList<>();
        int scopesClosed = 0;
        for (Map.Entry<String, Scope> e : scopes.entrySet()) {
            Scope table = e.getValue();
            synchronized (table) {
                if (table.closed) {
                    continue;
                }
                if (scopeIdleMs > 0 && idle(table, now)) {
                    table.closed = true;
                    scopes.remove(e.getKey(), table);
                    LOG.debug("exec scope {} idle for {} ms or more: closing it with {} jobs", e.getKey(), scopeIdleMs,
                            table.jobs.size());
                    closedJobs.addAll(table.jobs.values());
                    table.jobs.clear();
                    scopesClosed++;
                } else if (outputRetentionMs > 0) {
                    for (Job j : table.jobs.values()) {
                        Instant finished = j.finishedAt();
                        if (finished != null && !now.isBefore(finished.plusMillis(outputRetentionMs))
                                && !j.outputExpired()) {
                            expiring.add(j);
                        }
                    }
                }
            }
        }
        return new Expired(closedJobs, expiring, scopesClosed);
    }

    /** Whether a scope is idle: no start in progress, every job finished, nothing happened for scopeIdle. */
    private boolean idle(Scope table, Instant now) {
        if (table.pending > 0) {
            return false;
        }
        Instant last = table.lastCall;
        for (Job j : table.jobs.values()) {
            Instant finished = j.finishedAt();
            if (finished == null) {
                return false;
            }
            if (finished.isAfter(last)) {
                last = finished;
            }
        }
        return !now.isBefore(last.plusMillis(scopeIdleMs));
    }
}
