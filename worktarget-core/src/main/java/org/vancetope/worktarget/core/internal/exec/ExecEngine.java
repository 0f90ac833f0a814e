package org.vancetope.worktarget.core.internal.exec;

import java.io.File;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The exec engine behind {@code client_exec_*} and {@code work_exec_*}: runs each job as
 * {@code /bin/sh -c <command>} in its own session (through {@code setsid} where available, optionally
 * inside an {@link Isolation} wrapper), streams stdout and stderr in full to two files in the root's
 * {@code .worktarget/exec/<owner>/} (created and deleted by directory handle, so a job that replaces
 * that directory by a link cannot redirect the engine; the owner names this process, so what a crashed
 * one left is swept by {@link ConfinedRoot#sweep()}) while keeping only their true start and end in
 * memory, and ends jobs by killing their whole process tree. The files' paths in results are relative
 * to the root, so the same backend's file tools and jobs read them.
 *
 * <pre>{@code
 * try (ExecEngine engine = ExecEngine.builder().build()) {
 *     ExecResult r = engine.run(ExecRequest.of("acme/proj/s1", "make test", ConfinedRoot.of(workDir), env));
 *     if (r.status() == JobStatus.RUNNING) {
 *         r = engine.status("acme/proj/s1", r.id());
 *     }
 * }
 * }</pre>
 *
 * <p>Jobs are kept per scope; a job of one scope is invisible to every other scope. The engine does
 * not check caller paths or build environments: the caller passes the confined root of its backend
 * and a complete, sealed environment, to which the engine adds only the random job
 * cookie {@code WORKTARGET_EXEC_JOB} (how the tree kill finds re-parented children). Kill, deadline
 * and {@link #closeScope}/{@link #closeRoot} send SIGTERM to the whole tree and SIGKILL to survivors
 * after {@code killGraceMs}, without blocking; {@link #close} waits for the trees to end (up to
 * {@code killGraceMs}, then SIGKILL) before it returns, so a JVM that exits next leaves nothing behind.
 *
 * <p>Every job is started from one engine-owned spawner thread: Linux's parent-death signal (used by
 * bubblewrap's {@code --die-with-parent}) follows the thread that started a process, so jobs must not
 * be started from callers' threads, which pools retire.
 *
 * <p>Nothing of an ended job is kept for ever: a finished job's output files are deleted
 * {@code outputRetentionMs} after it finished (the job stays known, with its in-memory head and tail),
 * and a scope whose jobs have all finished and that had no call for {@code scopeIdleMs} is closed, as
 * by {@link #closeScope}. The engine's scheduler checks both every {@code expiryCheckMs}, on the
 * engine's clock. Thread-safe.
 */
public final class ExecEngine implements AutoCloseable {
    /** Default of {@code inlineOutputCharCap}: characters of each stream returned inline. */
    public static final int DEFAULT_INLINE_OUTPUT_CHAR_CAP = 8_000;
    /** Default of {@code defaultWaitMs}: how long {@code exec_run} waits for the exit. */
    public static final long DEFAULT_WAIT_MS = 15_000;
    /** Default of {@code maxWaitMs}: the cap on a caller's {@code waitMs}. */
    public static final long DEFAULT_MAX_WAIT_MS = 300_000;
    /** Default of {@code killGraceMs}: time between SIGTERM and SIGKILL (spec §8). */
    public static final long DEFAULT_KILL_GRACE_MS = 10_000;
    /** Default of {@code maxJobsPerScope}. */
    public static final int DEFAULT_MAX_JOBS_PER_SCOPE = 32;
    /** Default of {@code outputFileMaxBytes}: the most bytes kept in each stream's file. */
    public static final long DEFAULT_OUTPUT_FILE_MAX_BYTES = 64L * 1024 * 1024;
    /** Default of {@code outputRetentionMs}: a finished job's output files are deleted one hour after it finished. */
    public static final long DEFAULT_OUTPUT_RETENTION_MS = 3_600_000;
    /** Default of {@code scopeIdleMs}: a scope with only finished jobs and no call for one hour is closed. */
    public static final long DEFAULT_SCOPE_IDLE_MS = 3_600_000;
    /** The longest default of {@code expiryCheckMs}: how often the engine looks for expired output and idle scopes. */
    public static final long MAX_DEFAULT_EXPIRY_CHECK_MS = 60_000;
    /** Default of {@code outputDrainMs}: how long output pipes may stay open after the shell exits. */
    public static final long DEFAULT_OUTPUT_DRAIN_MS = 1_000;
    /** Default number of lines of {@code exec_tail}. */
    public static final int DEFAULT_TAIL_LINES = 10;
    /** The most lines {@code exec_tail} returns. */
    public static final int MAX_TAIL_LINES = 500;

    private static final Logger LOG = LoggerFactory.getLogger(ExecEngine.class);
    private static final File DEV_NULL = new File("/dev/null");

    private final int inlineOutputCharCap;
    private final long defaultWaitMs;
    private final long maxWaitMs;
    private final long killGraceMs;
    private final int maxJobsPerScope;
    private final long outputFileMaxBytes;
    private final long outputRetentionMs;
    private final long scopeIdleMs;
    private final long outputDrainMs;
    private final Isolation isolation;
    private final Clock clock;
    private final ScheduledExecutorService scheduler;
    private final boolean ownsScheduler;
    private final ExecutorService io;
    /** One thread for the engine's lifetime that starts every job (see {@link #spawn}). */
    private final ExecutorService spawner;
    private final Random random;
    private final String shell;
    private final String setsid;
    private final ProcessTree tree;

    private final ConcurrentHashMap<String, ScopeTable> scopes = new ConcurrentHashMap<>();
    private final Set<String> ids = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    /** Completes when the first {@link #close()} has ended every tree; later calls wait for it. */
    private final AtomicReference<CompletableFuture<Void>> closing = new AtomicReference<>();
    /** Calls of {@link #run} between their open check and the moment their job is in its table. */
    private final AtomicInteger starting = new AtomicInteger();
    private final ScheduledFuture<?> expiry;

    /**
     * The jobs of one scope, plus slots reserved by starts in progress. Guarded by its own monitor; once
     * closed it is out of {@link #scopes} for good and a start that lands in it ends its job.
     */
    private static final class ScopeTable {
        final LinkedHashMap<String, Job> jobs = new LinkedHashMap<>();
        int pending;
        boolean closed;
        /** The last call of this scope (exec_run, exec_status, exec_tail, exec_kill), on the engine's clock. */
        Instant lastCall;

        ScopeTable(Instant now) {
            this.lastCall = now;
        }
    }

    private ExecEngine(Builder b, String setsid) {
        this.inlineOutputCharCap = b.settings.inlineOutputCharCap();
        this.defaultWaitMs = b.settings.defaultWaitMs();
        this.maxWaitMs = b.settings.maxWaitMs();
        this.killGraceMs = b.settings.killGraceMs();
        this.maxJobsPerScope = b.settings.maxJobsPerScope();
        this.outputFileMaxBytes = b.settings.outputFileMaxBytes();
        this.outputRetentionMs = b.settings.outputRetentionMs();
        this.scopeIdleMs = b.settings.scopeIdleMs();
        this.outputDrainMs = b.outputDrainMs;
        this.isolation = b.isolation;
        this.clock = b.clock;
        this.ownsScheduler = b.scheduler == null;
        if (ownsScheduler) {
            ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, daemonThreads("worktarget-exec-watchdog"));
            s.setRemoveOnCancelPolicy(true);
            // close() ends every tree itself, so pending SIGKILL rounds need not keep the thread after it.
            s.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            this.scheduler = s;
        } else {
            this.scheduler = b.scheduler;
        }
        this.io = Executors.newCachedThreadPool(daemonThreads("worktarget-exec-io"));
        this.spawner = Executors.newSingleThreadExecutor(daemonThreads("worktarget-exec-spawner"));
        this.random = b.random;
        this.shell = b.shell;
        this.setsid = setsid;
        this.tree = new ProcessTree(scheduler, Duration.ofMillis(killGraceMs));
        long check = b.expiryCheckMs != null ? b.expiryCheckMs : defaultExpiryCheckMs(outputRetentionMs, scopeIdleMs);
        this.expiry = outputRetentionMs > 0 || scopeIdleMs > 0
                ? scheduler.scheduleWithFixedDelay(this::expireQuietly, check, check, TimeUnit.MILLISECONDS)
                : null;
    }

    /** A tenth of the shorter non-zero expiry time, between 1 s and {@value #MAX_DEFAULT_EXPIRY_CHECK_MS} ms. */
    static long defaultExpiryCheckMs(long retentionMs, long idleMs) {
        long shortest = Long.MAX_VALUE;
        if (retentionMs > 0) {
            shortest = retentionMs;
        }
        if (idleMs > 0) {
            shortest = Math.min(shortest, idleMs);
        }
        return Math.max(1_000, Math.min(MAX_DEFAULT_EXPIRY_CHECK_MS, shortest / 10));
    }

    /**
     * A builder with the spec defaults.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The inline cap of each stream.
     *
     * @return {@code inlineOutputCharCap}
     */
    public int inlineOutputCharCap() {
        return inlineOutputCharCap;
    }

    /**
     * The isolation jobs run in.
     *
     * @return the isolation
     */
    public Isolation isolation() {
        return isolation;
    }

    /**
     * Starts a job and waits for its exit or for {@code waitMs}, whichever comes first.
     *
     * @param req the request
     * @return the job's state: finished, or {@link JobStatus#RUNNING} with its id for later calls
     * @throws ToolException {@code not_found} when the working directory is missing, {@code size_limit}
     *                       when the scope already has {@code maxJobsPerScope} running jobs,
     *                       {@code internal} when the shell cannot be started
     */
    public ExecResult run(ExecRequest req) throws ToolException {
        Objects.requireNonNull(req, "req");
        Job job;
        starting.incrementAndGet();
        try {
            job = startInTable(req);
        } finally {
            starting.decrementAndGet();
        }
        if (closed) {
            end(job, JobStatus.KILLED);
        }
        long wait = req.waitMs() == null ? defaultWaitMs : Math.max(0, Math.min(req.waitMs(), maxWaitMs));
        if (req.deadlineSeconds() != null) {
            try {
                job.deadline(scheduler.schedule(() -> end(job, JobStatus.TIMED_OUT), req.deadlineSeconds(), TimeUnit.SECONDS));
            } catch (RejectedExecutionException e) {
                end(job, JobStatus.KILLED);
            }
        }
        awaitFirst(job, wait);
        if (Thread.currentThread().isInterrupted()) {
            // The call was cancelled while it waited (client_tool_cancel, a closed connection, an interrupted
            // caller): the job it started goes with it, whole tree.
            end(job, JobStatus.KILLED);
        }
        return result(job);
    }

    /** Checks the request, reserves a slot in the scope, starts the job and puts it in the scope's table. */
    private Job startInTable(ExecRequest req) throws ToolException {
        ensureOpen();
        if (req.command().isBlank()) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, "Parameter 'command' must not be blank.");
        }
        Path cwd = req.root().root();
        if (cwd.getFileSystem() != FileSystems.getDefault()) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, "exec needs a working directory on the default file "
                    + "system; this backend's root is virtual, so it cannot run commands.");
        }
        if (!Files.isDirectory(cwd)) {
            throw new ToolException(ErrorCode.NOT_FOUND, "The working directory of the job does not exist (any more). "
                    + "Check the work target with work_target_get.");
        }
        if (req.deadlineSeconds() != null && req.deadlineSeconds() < 1) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, "Parameter 'deadlineSeconds' must be at least 1.");
        }
        ScopeTable table = reserve(req.scope());
        String id = newId();
        Job job;
        try {
            job = start(req, id);
        } catch (ToolException | RuntimeException e) {
            ids.remove(id);
            synchronized (table) {
                table.pending--;
            }
            throw e;
        }
        boolean orphan;
        synchronized (table) {
            table.pending--;
            orphan = table.closed;
            if (!orphan) {
                table.jobs.put(id, job);
            }
        }
        if (orphan) {
            // The scope was closed while the job started: it goes the way of the scope's other jobs.
            dispose(List.of(job));
        }
        return job;
    }

    /**
     * The current state and output of a job.
     *
     * @param scope the caller's scope
     * @param id the job id
     * @return the state
     * @throws ToolException {@code not_found} when no job of that id exists in this scope
     */
    public ExecResult status(String scope, String id) throws ToolException {
        return result(require(scope, id));
    }

    /**
     * Waits until a job ends or the wait passes, without starting anything.
     *
     * @param scope the caller's scope
     * @param id the job id
     * @param waitMs the most milliseconds to wait (capped by {@code maxWaitMs})
     * @return the state
     * @throws ToolException {@code not_found} when no job of that id exists in this scope
     */
    public ExecResult await(String scope, String id, long waitMs) throws ToolException {
        Job job = require(scope, id);
        awaitDone(job, TimeUnit.MILLISECONDS.toNanos(Math.max(0, Math.min(waitMs, maxWaitMs))));
        return result(job);
    }

    /**
     * The last lines of one stream, read from the end of its file (or, when the file reached its cap,
     * from the in-memory tail, which is the true end).
     *
     * @param scope the caller's scope
     * @param id the job id
     * @param n how many lines, 1 to {@value #MAX_TAIL_LINES}
     * @param stderr true for stderr, false for stdout
     * @return the lines
     * @throws ToolException {@code not_found} for an unknown job, {@code invalid_params} for a bad n
     */
    public ExecTailResult tail(String scope, String id, int n, boolean stderr) throws ToolException {
        if (n < 1 || n > MAX_TAIL_LINES) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, "Parameter 'n' must be between 1 and " + MAX_TAIL_LINES
                    + ", got " + n + ".");
        }
        Job job = require(scope, id);
        StreamCapture capture = stderr ? job.stderr : job.stdout;
        int maxBytes = inlineOutputCharCap * 4;
        TailReader.Tail t;
        boolean expired = job.outputExpired();
        if (capture.fileCapped() || expired) {
            t = capture.tailLines(n);
        } else {
            try (SeekableByteChannel ch = job.root.openJobOutput(capture.name())) {
                t = TailReader.lastLines(ch, n, maxBytes);
            } catch (FileSystemException gone) {
                // removed or replaced by the job itself (it can write its RootDir): the in-memory tail is the true end
                t = capture.tailLines(n);
            } catch (IOException e) {
                throw new ToolException(ErrorCode.INTERNAL, "The output file of job " + id + " could not be read: "
                        + e.getClass().getSimpleName() + ". Try exec_status.", e);
            }
        }
        return new ExecTailResult(job.id, job.status(), stderr ? "stderr" : "stdout",
                expired ? null : ConfinedRoot.jobOutputPath(capture.name()), t.lines(), t.truncated());
    }

    /**
     * Kills a running job and its whole process tree: SIGTERM now, SIGKILL to survivors after
     * {@code killGraceMs}. Returns at once.
     *
     * @param scope the caller's scope
     * @param id the job id
     * @return true when a running job was told to end; false for unknown or finished jobs
     */
    public boolean kill(String scope, String id) {
        Job job = find(scope, id);
        return job != null && end(job, JobStatus.KILLED);
    }

    /**
     * Kills every job of a scope (running ones and what finished ones left behind) and forgets them,
     * removing their output files. For when a session, process or project closes.
     *
     * @param scope the scope
     * @return how many running jobs were killed
     */
    public int closeScope(String scope) {
        ScopeTable table = scopes.remove(scope);
        if (table == null) {
            return 0;
        }
        List<Job> jobs;
        synchronized (table) {
            table.closed = true;
            jobs = new ArrayList<>(table.jobs.values());
            table.jobs.clear();
        }
        return dispose(jobs);
    }

    /**
     * Kills every job whose working directory lies in a root, and forgets them. For when a RootDir is
     * disposed or a backend over that root closes.
     *
     * @param root the root directory
     * @return how many running jobs were killed
     */
    public int closeRoot(Path root) {
        Path norm = root.toAbsolutePath().normalize();
        List<Job> jobs = new ArrayList<>();
        for (ScopeTable table : scopes.values()) {
            synchronized (table) {
                for (Iterator<Job> it = table.jobs.values().iterator(); it.hasNext(); ) {
                    Job j = it.next();
                    if (j.root.root().startsWith(norm)) {
                        jobs.add(j);
                        it.remove();
                    }
                }
            }
        }
        return dispose(jobs);
    }

    /**
     * How many jobs a scope holds (running and finished).
     *
     * @param scope the scope
     * @return the count
     */
    public int jobCount(String scope) {
        ScopeTable table = scopes.get(scope);
        if (table == null) {
            return 0;
        }
        synchronized (table) {
            return table.jobs.size();
        }
    }

    /**
     * How many scopes hold jobs or starts in progress.
     *
     * @return the count
     */
    public int scopeCount() {
        return scopes.size();
    }

    /**
     * Kills all jobs and waits for them: SIGTERM to every tree (and to what finished jobs left running),
     * a wait of up to {@code killGraceMs} for them to end, then SIGKILL to whatever still runs — in this
     * call, so that a JVM that exits next leaves nothing behind. Returns as soon as every tree has ended.
     * Then removes the output files and stops the engine's threads. A second call waits for the first.
     */
    @Override
    public void close() {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        if (!closing.compareAndSet(null, mine)) {
            closing.get().join();
            return;
        }
        closed = true;
        try {
            if (expiry != null) {
                expiry.cancel(false);
            }
            awaitStarts();
            List<Job> jobs = new ArrayList<>();
            for (String scope : new ArrayList<>(scopes.keySet())) {
                ScopeTable table = scopes.remove(scope);
                if (table != null) {
                    synchronized (table) {
                        table.closed = true;
                        jobs.addAll(table.jobs.values());
                        table.jobs.clear();
                    }
                }
            }
            List<ProcessTree.Target> trees = new ArrayList<>();
            for (Job j : jobs) {
                j.markEnding(JobStatus.KILLED);
                trees.add(j.tree);
            }
            int left = tree.terminateAndWait(trees);
            if (left == 0 && !jobs.isEmpty()) {
                LOG.debug("exec engine closed: {} job trees ended", jobs.size());
            }
            for (Job j : jobs) {
                ids.remove(j.id);
                deleteOutputs(j);
            }
        } finally {
            io.shutdown();
            spawner.shutdown();
            if (ownsScheduler) {
                scheduler.shutdown();
            }
            mine.complete(null);
        }
    }

    /**
     * Waits (bounded) until the starts that passed the open check before {@link #close()} have put their
     * job in its table, so that close finds them.
     */
    private void awaitStarts() {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(1_000, killGraceMs));
        while (starting.get() > 0 && System.nanoTime() - end < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /** What one expiry pass did. */
    record ExpiryPass(int scopesClosed, int outputsExpired) {
    }

    /**
     * One expiry pass at the clock's current time (the engine's scheduler runs one every
     * {@code expiryCheckMs}): closes the scopes that are idle for {@code scopeIdleMs} — every job finished,
     * and neither a call nor a job's end for that long — and deletes the output files of jobs that
     * finished {@code outputRetentionMs} ago.
     *
     * @return what it did
     */
    ExpiryPass expireNow() {
        Instant now = clock.instant();
        int scopesClosed = 0;
        int outputsExpired = 0;
        List<Job> closedJobs = new ArrayList<>();
        for (Map.Entry<String, ScopeTable> e : scopes.entrySet()) {
            ScopeTable table = e.getValue();
            List<Job> expiring = new ArrayList<>();
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
            for (Job j : expiring) {
                if (j.expireOutput()) {
                    deleteOutputs(j);
                    outputsExpired++;
                }
            }
        }
        // One pass over the process table for all the closed scopes' leftovers, then their files.
        dispose(closedJobs);
        return new ExpiryPass(scopesClosed, outputsExpired);
    }

    /** Whether a scope is idle: no start in progress, every job finished, nothing happened for scopeIdleMs. */
    private boolean idle(ScopeTable table, Instant now) {
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

    private void expireQuietly() {
        try {
            expireNow();
        } catch (RuntimeException e) {
            // A failed pass must not stop the periodic task; the next one tries again.
            LOG.warn("exec expiry pass failed: {}", e.toString());
        }
    }

    // ---------------------------------------------------------------------------------------------

    private void ensureOpen() throws ToolException {
        if (closed) {
            throw new ToolException(ErrorCode.INTERNAL, "The exec engine is closed; no new jobs can start.");
        }
    }

    private ScopeTable reserve(String scope) throws ToolException {
        while (true) {
            ScopeTable table = scopes.computeIfAbsent(scope, s -> new ScopeTable(clock.instant()));
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
            if (evicted != null) {
                forget(evicted);
            }
            return table;
        }
    }

    private String newId() {
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

    private String newCookie() {
        byte[] b = new byte[16];
        synchronized (random) {
            random.nextBytes(b);
        }
        return HexFormat.of().formatHex(b);
    }

    private Job start(ExecRequest req, String id) throws ToolException {
        String outName = id + ".stdout";
        String errName = id + ".stderr";
        StreamCapture out = null;
        StreamCapture err = null;
        Process p = null;
        String cookie = newCookie();
        try {
            try (SafeDirectory outputs = req.root().jobOutputDirectory()) {
                out = new StreamCapture(outName, outputs.createFile(outName), outputFileMaxBytes, inlineOutputCharCap, clock);
                err = new StreamCapture(errName, outputs.createFile(errName), outputFileMaxBytes, inlineOutputCharCap, clock);
            } catch (IOException e) {
                throw new ToolException(ErrorCode.INTERNAL, "The job's output files could not be created in "
                        + ConfinedRoot.INTERNAL_DIR + "/" + ConfinedRoot.EXEC_DIR + " ("
                        + (e instanceof FileSystemException f && f.getReason() != null ? f.getReason()
                        : e.getClass().getSimpleName()) + "). Check that the work directory is writable and try again.", e);
            }
            Map<String, String> env = new LinkedHashMap<>(req.env());
            env.put(ProcessTree.COOKIE_VAR, cookie);
            List<String> argv = new ArrayList<>();
            if (setsid != null) {
                argv.add(setsid);
            }
            argv.addAll(isolation.argv(shell, req.command(), req.root().root(), req.home(), env));
            ProcessBuilder pb = new ProcessBuilder(argv);
            pb.directory(req.root().root().toFile());
            pb.environment().clear();
            pb.environment().putAll(env);
            pb.redirectInput(ProcessBuilder.Redirect.from(DEV_NULL));
            long startNanos = System.nanoTime();
            p = spawn(pb);
            Job job = new Job(id, req.scope(), cookie, req.root(), p, out, err, startNanos, clock);
            wire(job);
            return job;
        } catch (IOException | RuntimeException | ToolException e) {
            if (p != null) {
                tree.terminate(p.toHandle(), cookie); // started, but could not be watched: leave nothing behind
            }
            if (out != null) {
                out.closeFile();
            }
            if (err != null) {
                err.closeFile();
            }
            deleteQuietly(req.root(), outName);
            deleteQuietly(req.root(), errName);
            if (e instanceof ToolException te) {
                throw te;
            }
            if (e instanceof RuntimeException re && !(e instanceof RejectedExecutionException)) {
                throw re;
            }
            LOG.warn("exec job could not start: {}", e.toString());
            throw new ToolException(ErrorCode.INTERNAL, "The job could not be started (" + e.getClass().getSimpleName()
                    + "). Check that the work directory is writable and try again.", e);
        }
    }

    /**
     * Starts the process on the engine's spawner thread, which lives as long as the engine: Linux's
     * parent-death signal (bubblewrap's {@code --die-with-parent}) follows the thread that started a
     * process, so a job started on a caller's pooled thread would die when that thread retires. The
     * caller waits for the start without giving up on an interrupt, and keeps its interrupt status, so
     * that {@link #run} still ends the job of an interrupted caller.
     */
    private Process spawn(ProcessBuilder pb) throws IOException, ToolException {
        Future<Process> started;
        try {
            started = spawner.submit(pb::start);
        } catch (RejectedExecutionException e) {
            throw new ToolException(ErrorCode.INTERNAL, "The exec engine is closed; no new jobs can start.", e);
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return started.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IOException(cause);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void wire(Job job) {
        Process p = job.process;
        CompletableFuture<Void> pumps = CompletableFuture.allOf(
                CompletableFuture.runAsync(() -> job.stdout.pump(p.getInputStream()), io),
                CompletableFuture.runAsync(() -> job.stderr.pump(p.getErrorStream()), io));
        job.pumps(pumps);
    }

    /**
     * Watches for the exit of a job whose caller stopped waiting: one waiter thread, started only for
     * jobs that outlive their {@code waitMs}, so short jobs cost no extra thread hop.
     */
    private void startWaiter(Job job) {
        Process p = job.process;
        Runnable waiter = () -> {
            boolean interrupted = false;
            while (true) {
                try {
                    p.waitFor();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            onExit(job);
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        };
        try {
            io.execute(waiter);
        } catch (RejectedExecutionException e) {
            // The engine is closing: the tree is being killed; notice the exit through the JDK instead.
            p.onExit().thenRun(() -> onExit(job));
        }
    }

    /** The shell exited: finish now if the output is drained, else when it is or when the drain time is up. */
    private void onExit(Job job) {
        if (!job.exited(job.process.exitValue(), System.nanoTime())) {
            return;
        }
        CompletableFuture<Void> pumps = job.pumps();
        if (pumps.isDone()) {
            job.finish();
            return;
        }
        pumps.whenComplete((v, e) -> job.finish());
        try {
            scheduler.schedule(job::finish, outputDrainMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            job.finish();
        }
    }

    /**
     * The first wait of a new job, in the caller's thread (woken by the JDK's own reaper); if the job
     * outlives it, a waiter takes over.
     */
    private void awaitFirst(Job job, long waitMs) {
        boolean exited = false;
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        try {
            exited = waitMs > 0 && job.process.waitFor(waitMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!exited) {
            startWaiter(job);
            return;
        }
        onExit(job);
        awaitDone(job, end - System.nanoTime());
    }

    private static void awaitDone(Job job, long nanos) {
        if (nanos <= 0) {
            return;
        }
        try {
            job.done.get(nanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            // still running or draining: the caller gets the output so far
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            LOG.warn("exec job {} ended abnormally: {}", job.id, e.getCause().toString());
        }
    }

    private boolean end(Job job, JobStatus reason) {
        if (!job.markEnding(reason)) {
            return false;
        }
        tree.terminate(job.tree);
        return true;
    }

    private int dispose(List<Job> jobs) {
        int killed = 0;
        List<ProcessTree.Target> trees = new ArrayList<>();
        for (Job j : jobs) {
            // Running jobs are marked killed; finished ones may have left background children ("server &").
            if (j.markEnding(JobStatus.KILLED)) {
                killed++;
            }
            trees.add(j.tree);
        }
        tree.terminateAll(trees);
        for (Job j : jobs) {
            ids.remove(j.id);
            deleteOutputs(j);
        }
        return killed;
    }

    /** Forgets an evicted job off the caller's path: ends what it left running and removes its files. */
    private void forget(Job j) {
        ids.remove(j.id);
        Runnable cleanup = () -> {
            tree.terminateAll(List.of(j.tree));
            deleteOutputs(j);
        };
        try {
            io.execute(cleanup);
        } catch (RejectedExecutionException e) {
            cleanup.run();
        }
    }

    private static void deleteOutputs(Job j) {
        j.stdout.closeFile();
        j.stderr.closeFile();
        deleteQuietly(j.root, j.stdout.name());
        deleteQuietly(j.root, j.stderr.name());
    }

    /** Deletes an output file by handle: a job that replaced the output directory by a link cannot redirect it. */
    private static void deleteQuietly(ConfinedRoot root, String name) {
        try {
            root.deleteJobOutput(name);
        } catch (IOException e) {
            LOG.warn("could not delete exec output file {}: {}", name, e.toString());
        }
    }

    private Job find(String scope, String id) {
        if (scope == null || id == null) {
            return null;
        }
        ScopeTable table = scopes.get(scope);
        if (table == null) {
            return null;
        }
        synchronized (table) {
            table.lastCall = clock.instant();
            return table.jobs.get(id);
        }
    }

    private Job require(String scope, String id) throws ToolException {
        Job job = find(scope, id);
        if (job == null) {
            throw new ToolException(ErrorCode.NOT_FOUND, "No job with id '" + id + "' here. Job ids come from exec_run; "
                    + "the oldest finished jobs are forgotten after " + maxJobsPerScope + " newer ones (maxJobsPerScope)"
                    + (scopeIdleMs > 0 ? ", and all of them once this scope has had no call and no running job for "
                    + duration(scopeIdleMs) + " (scopeIdleMs)" : "") + ". Run the command again if you need its output.");
        }
        return job;
    }

    private ExecResult result(Job job) {
        JobStatus status = job.status();
        Integer exit = job.exitCode();
        HeadTail.Rendered out = job.stdout.render(inlineOutputCharCap);
        HeadTail.Rendered err = job.stderr.render(inlineOutputCharCap);
        boolean expired = job.outputExpired();
        boolean fileCut = job.stdout.fileCapped() || job.stderr.fileCapped();
        boolean truncated = out.truncated() || err.truncated() || fileCut;
        String outPath = ConfinedRoot.jobOutputPath(job.stdout.name());
        String errPath = ConfinedRoot.jobOutputPath(job.stderr.name());
        String hint = null;
        if (expired) {
            hint = "The output files of this job were deleted " + duration(outputRetentionMs) + " after it finished "
                    + "(outputRetentionMs), so stdoutPath and stderrPath are null; stdout and stderr are what was kept "
                    + "in memory" + (truncated ? " (head and tail)" : " (all of it)") + ". Run the command again if you "
                    + "need more of its output.";
        } else if (truncated) {
            String path = out.truncated() || !err.truncated() ? outPath : errPath;
            StringBuilder h = new StringBuilder("Output was cut to its head and tail. ");
            h.append(fileCut ? "The files stdoutPath (" + outPath + ") and stderrPath (" + errPath + ") hold the output "
                    + "up to where they stopped (below)" : "The full output is in stdoutPath (" + outPath
                    + ") and stderrPath (" + errPath + ")");
            h.append("; page it with bounded commands in exec_run, e.g. 'tail -n 200 ").append(path)
                    .append("', 'head -n 200 ").append(path).append("', \"sed -n '200,400p' ").append(path)
                    .append("\" or \"grep -n -m 20 'error' ").append(path).append("\".");
            cutNote(h, "stdout", job.stdout);
            cutNote(h, "stderr", job.stderr);
            hint = h.toString();
        }
        Instant a = job.stdout.lastOutputAt();
        Instant b = job.stderr.lastOutputAt();
        Instant last = a == null ? b : b == null ? a : a.isAfter(b) ? a : b;
        return new ExecResult(job.id, status, status.finished() ? exit : null, job.durationMs(System.nanoTime()), last,
                expired ? null : outPath, expired ? null : errPath, out.text(), err.text(), truncated, hint);
    }

    /** Says why a stream's file stopped growing, if it did: its cap, a full disk, another write error. */
    private void cutNote(StringBuilder h, String stream, StreamCapture c) {
        StreamCapture.Cut cut = c.fileCut();
        if (cut == null) {
            return;
        }
        h.append(' ');
        switch (cut) {
            case CAP -> h.append("The ").append(stream).append(" file stopped growing at ").append(outputFileMaxBytes)
                    .append(" bytes (outputFileMaxBytes); the inline tail is still the true end of the output.");
            case DISK_FULL -> h.append("The ").append(stream).append(" file is incomplete: it stopped at ")
                    .append(c.fileBytes()).append(" bytes because the disk is full (disk_full), not because of a "
                    + "limit; the inline tail is still the true end of the output. Free space on the work "
                    + "directory's file system before running commands with much output.");
            case WRITE_ERROR -> h.append("The ").append(stream).append(" file is incomplete: writing it failed at ")
                    .append(c.fileBytes()).append(" bytes (").append(c.cutDetail()).append("); the inline tail is still "
                    + "the true end of the output.");
            default -> throw new IllegalStateException("unknown cut " + cut);
        }
    }

    /** A duration for messages: "1 h", "90 min", "30 s", "250 ms". */
    static String duration(long ms) {
        if (ms >= 3_600_000 && ms % 3_600_000 == 0) {
            return ms / 3_600_000 + " h";
        }
        if (ms >= 60_000 && ms % 60_000 == 0) {
            return ms / 60_000 + " min";
        }
        if (ms >= 1_000 && ms % 1_000 == 0) {
            return ms / 1_000 + " s";
        }
        return ms + " ms";
    }

    private static ThreadFactory daemonThreads(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private static String findSetsid() {
        for (String p : List.of("/usr/bin/setsid", "/bin/setsid")) {
            if (Files.isExecutable(Path.of(p))) {
                return p;
            }
        }
        return null;
    }

    /**
     * Builds an {@link ExecEngine}; every limit has the spec default.
     */
    public static final class Builder {
        private ExecSettings settings = ExecSettings.defaults();
        private long outputDrainMs = DEFAULT_OUTPUT_DRAIN_MS;
        private Isolation isolation = Isolation.none();
        private Clock clock = Clock.systemUTC();
        private ScheduledExecutorService scheduler;
        private Random random;
        private String shell = "/bin/sh";
        private boolean useSetsid = true;
        private Long expiryCheckMs;

        private Builder() {
        }

        /**
         * The limits (default {@link ExecSettings#defaults()}: inline cap 8,000, waitMs 15,000 capped at
         * 300,000, killGraceMs 10,000, 32 jobs per scope, 64 MiB per output file, output kept one hour after
         * the job finished, idle scopes closed after one hour). The isolation settings in it are not used
         * here: pass the built {@link #isolation(Isolation)}.
         *
         * @param limits the limits, validated when they were built
         * @return this
         */
        public Builder settings(ExecSettings limits) {
            this.settings = Objects.requireNonNull(limits, "settings");
            return this;
        }







        /**
         * {@code outputDrainMs}: after the shell exits, how long the engine waits for its output pipes
         * to close before reporting the job as ended (background children may hold them open;
         * default 1,000).
         *
         * @param ms milliseconds, 0 or more
         * @return this
         */
        public Builder outputDrainMs(long ms) {
            this.outputDrainMs = ms;
            return this;
        }

        /**
         * {@code expiryCheckMs}: how often the engine's scheduler looks for finished jobs whose output
         * files are older than {@code outputRetentionMs} and for scopes idle for {@code scopeIdleMs}
         * (default: a tenth of the shorter of the two, between 1,000 and 60,000; no checks when both are 0).
         *
         * @param ms milliseconds, at least 1
         * @return this
         */
        public Builder expiryCheckMs(long ms) {
            this.expiryCheckMs = ms;
            return this;
        }

        /**
         * The isolation wrapper (default {@link Isolation#none()}).
         *
         * @param isolation the isolation
         * @return this
         */
        public Builder isolation(Isolation isolation) {
            this.isolation = Objects.requireNonNull(isolation, "isolation");
            return this;
        }

        /**
         * The clock for {@code lastOutputAt} and for the expiry of output files and idle scopes (default
         * UTC system clock); tests pass a clock they move.
         *
         * @param clock the clock
         * @return this
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The scheduler for deadlines, SIGKILL after the grace period, output drains and the expiry checks
         * (default: an engine-owned single daemon thread). A given scheduler is not shut down by
         * {@link #close()}.
         *
         * @param scheduler the scheduler
         * @return this
         */
        public Builder scheduler(ScheduledExecutorService scheduler) {
            this.scheduler = scheduler;
            return this;
        }

        /**
         * The randomness for job ids (default a {@link SecureRandom}); tests may pass a seeded one to
         * provoke collisions.
         *
         * @param random the source
         * @return this
         */
        public Builder random(Random random) {
            this.random = Objects.requireNonNull(random, "random");
            return this;
        }

        /**
         * The shell (default {@code /bin/sh}).
         *
         * @param shell an absolute path
         * @return this
         */
        public Builder shell(String shell) {
            this.shell = Objects.requireNonNull(shell, "shell");
            return this;
        }

        /**
         * Whether jobs start in their own session through {@code setsid} when it is installed
         * (default true).
         *
         * @param use whether to use it
         * @return this
         */
        public Builder useSetsid(boolean use) {
            this.useSetsid = use;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @return the engine
         * @throws IllegalArgumentException when a setting is out of range, with the setting's name
         */
        public ExecEngine build() {
            if (outputDrainMs < 0) {
                throw new IllegalArgumentException("outputDrainMs must be 0 or more, got " + outputDrainMs);
            }
            if (expiryCheckMs != null && expiryCheckMs < 1) {
                throw new IllegalArgumentException("expiryCheckMs must be at least 1, got " + expiryCheckMs);
            }
            if (!Files.isExecutable(Path.of(shell))) {
                throw new IllegalArgumentException("shell " + shell + " is not an executable file");
            }
            if (random == null) {
                random = new SecureRandom();
            }
            String s = useSetsid ? findSetsid() : null;
            if (useSetsid && s == null) {
                LOG.warn("setsid is not installed: exec jobs share the JVM's session; tree kill still follows "
                        + "descendants and the job cookie");
            }
            return new ExecEngine(this, s);
        }
    }
}
