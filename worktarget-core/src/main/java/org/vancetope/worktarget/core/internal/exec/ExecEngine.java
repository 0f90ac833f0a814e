package org.vancetope.worktarget.core.internal.exec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
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
 * after {@code killGrace}, without blocking; {@link #close} waits for the trees to end (up to
 * {@code killGrace}, then SIGKILL) before it returns, so a JVM that exits next leaves nothing behind.
 *
 * <p>Every job is started from one engine-owned spawner thread: Linux's parent-death signal (used by
 * bubblewrap's {@code --die-with-parent}) follows the thread that started a process, so jobs must not
 * be started from callers' threads, which pools retire.
 *
 * <p>Nothing of an ended job is kept for ever: a finished job's output files are deleted
 * {@code outputRetention} after it finished (the job stays known, with its in-memory head and tail),
 * and a scope whose jobs have all finished and that had no call for {@code scopeIdle} is closed, as
 * by {@link #closeScope}. The engine's scheduler checks both every {@code expiryCheckMs}, on the
 * engine's clock. Thread-safe.
 *
 * <p>This class is the engine's face and owns its life: it checks the calls' arguments and ties the
 * parts together. The parts do the work: {@link JobTable} keeps the jobs by scope, {@link JobLauncher}
 * starts them, {@link JobWaits} notices their end, {@link JobReaper} ends them and clears away what
 * they leave, {@link JobOutputs} handles their output files, {@link ExecResults} renders results,
 * {@link ExecExpiry} expires output files and idle scopes and {@link ExecThreads} holds the threads.
 */
public final class ExecEngine implements AutoCloseable {
    /** Default of {@code outputDrainMs}: how long output pipes may stay open after the shell exits. */
    public static final long DEFAULT_OUTPUT_DRAIN_MS = 1_000;
    /** Default number of lines of {@code exec_tail}. */
    public static final int DEFAULT_TAIL_LINES = 10;
    /** The most lines {@code exec_tail} returns. */
    public static final int MAX_TAIL_LINES = 500;
    /** The most bytes (UTF-8) of {@code stdin} one {@code exec_run} may give: 1 MiB. */
    public static final int MAX_STDIN_BYTES = 1024 * 1024;
    /** The most jobs {@link #list(String)} shows, newest first. */
    public static final int MAX_LISTED_JOBS = 100;

    private static final Logger LOG = LoggerFactory.getLogger(ExecEngine.class);
    /** How much longer than killGrace plus the output drain a cancelled call waits for its job to end. */
    private static final long KILL_ANSWER_SLACK_MS = 2_000;

    private final int inlineOutputCharCap;
    private final long defaultWaitMs;
    private final long maxWaitMs;
    private final long killGraceMs;
    /** The server's limit on a job's run ({@code maxJobDuration}), 0 for none. */
    private final long maxJobSeconds;
    private final long outputDrainMs;
    private final Isolation isolation;
    private final ExecThreads threads;

    private final JobTable jobs;
    private final JobLauncher launcher;
    private final JobWaits waits;
    private final JobReaper reaper;
    private final JobOutputs outputs;
    private final ExecResults results;
    private final ExecExpiry expiry;

    private volatile boolean closed;
    /** Completes when the first {@link #close()} has ended every tree; later calls wait for it. */
    private final AtomicReference<CompletableFuture<Void>> closing = new AtomicReference<>();
    /** Calls of {@link #run} between their open check and the moment their job is in its table. */
    private final AtomicInteger starting = new AtomicInteger();

    ExecEngine(ExecEngineBuilder b, String setsid) {
        ExecSettings s = b.settings;
        this.inlineOutputCharCap = s.inlineOutputCharCap();
        this.defaultWaitMs = s.defaultWait().toMillis();
        this.maxWaitMs = s.maxWait().toMillis();
        this.killGraceMs = s.killGrace().toMillis();
        this.maxJobSeconds = s.maxJobDuration().getSeconds();
        this.outputDrainMs = b.outputDrainMs;
        this.isolation = b.isolation;
        JobControlGroups groups = controlGroups(s, b.isolation);
        this.threads = new ExecThreads(b.scheduler);
        ScheduledExecutorService scheduler = threads.scheduler;
        ProcessTree tree = new ProcessTree(scheduler, Duration.ofMillis(killGraceMs));
        ProcessTree.killJobsOfEndedJvmsOnce();     // jobs a killed JVM left: nothing else could ever end them
        long outputRetentionMs = s.outputRetention().toMillis();
        long scopeIdleMs = s.scopeIdle().toMillis();
        this.jobs = new JobTable(b.clock, b.random, s.maxJobsPerScope(), s.maxRunningJobsPerProject(), scopeIdleMs);
        this.outputs = new JobOutputs(s.outputFileMaxBytes(), inlineOutputCharCap, b.clock);
        this.launcher = new JobLauncher(outputs, isolation, b.shell, setsid, b.random, b.clock, tree, threads.spawner,
                threads.io, groups);
        this.waits = new JobWaits(threads.io, scheduler, b.outputDrainMs);
        this.reaper = new JobReaper(tree, jobs, threads.io, scheduler);
        this.results = new ExecResults(inlineOutputCharCap, s.outputFileMaxBytes(), outputRetentionMs,
                s.maxJobProcesses(), s.maxJobMemory(), s.maxJobCpus(), b.isolation,
                jobs::jobs);
        this.expiry = new ExecExpiry(jobs, reaper, b.clock, scheduler, outputRetentionMs, scopeIdleMs,
                b.expiryCheckMs);
    }

    /**
     * The control groups of the settings' {@code jobControlGroups}, checked, with what ended JVMs left there
     * removed; null without one.
     *
     * @throws IllegalArgumentException when groups cannot be made there, or the wrapper gives no shell (a job
     *                                  enters its group while its shell waits for its first line)
     */
    private static JobControlGroups controlGroups(ExecSettings s, Isolation isolation) {
        if (s.jobControlGroups().isEmpty()) {
            return null;
        }
        if (!JobLauncher.KEEP_OUTPUT || !isolation.takesShellCommand()) {
            throw new IllegalArgumentException("jobControlGroups need Linux and an isolation whose wrapper gives the "
                    + "command to a shell ({cmd} right after -c): a job enters its group before "
                    + "its command starts");
        }
        JobControlGroups groups = JobControlGroups.open(s);
        groups.sweepStale();
        return groups;
    }

    /**
     * A builder with the defaults.
     *
     * @return the builder
     */
    public static ExecEngineBuilder builder() {
        return new ExecEngineBuilder();
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
     * Starts a job and waits for its exit or for {@code waitMs}, whichever comes first. A caller interrupted
     * while it waits (a cancelled call) kills the job's tree and gets the job's state once it has ended
     * ({@link JobStatus#KILLED}; at most {@code killGrace} plus the output drain and a little later), with its
     * interrupt status set again.
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
            reaper.end(job, JobStatus.KILLED);
        }
        long wait = req.waitMs() == null ? defaultWaitMs : Math.max(0, Math.min(req.waitMs(), maxWaitMs));
        Long caller = req.deadlineSeconds();
        boolean serverLimit = maxJobSeconds > 0 && (caller == null || caller > maxJobSeconds);
        Long deadline = serverLimit ? Long.valueOf(maxJobSeconds) : caller;
        if (deadline != null) {
            try {
                job.deadline(threads.scheduler.schedule(() -> reaper.end(job, JobStatus.TIMED_OUT), deadline,
                        TimeUnit.SECONDS), deadline, serverLimit);
            } catch (RejectedExecutionException e) {
                reaper.end(job, JobStatus.KILLED);
            }
        }
        waits.awaitFirst(job, wait);
        if (Thread.interrupted()) {
            // The call was cancelled while it waited (client_tool_cancel, a closed connection, an interrupted
            // caller): the job it started goes with it, whole tree. The answer waits for the kill, so that it
            // says "killed" rather than "running" (SIGKILL follows after killGrace; the bound covers the
            // output drain too), and the caller gets its interrupt status back.
            reaper.end(job, JobStatus.KILLED);
            JobWaits.awaitDone(job, TimeUnit.MILLISECONDS.toNanos(killGraceMs + outputDrainMs + KILL_ANSWER_SLACK_MS));
            Thread.currentThread().interrupt();
        }
        // a caller that asked to wait longer than one call may is told so, or it takes the early answer for a hang
        boolean capped = req.waitMs() != null && req.waitMs() > maxWaitMs;
        return results.result(job, capped ? "It waited " + maxWaitMs + " ms, not the " + req.waitMs() + " ms asked "
                + "for: that is the longest one call waits here (maxWait). Call exec_status or exec_tail later for the "
                + "rest." : null);
    }

    /** Checks the request, reserves a slot in the scope, starts the job and puts it in the scope's table. */
    private Job startInTable(ExecRequest req) throws ToolException {
        if (closed) {
            throw new ToolException(ErrorCode.INTERNAL, "The exec engine is closed; no new jobs can start.");
        }
        String workingDirectory = JobLauncher.check(req);
        JobTable.Reservation slot = jobs.reserve(req.scope());
        if (slot.evicted() != null) {
            reaper.forget(slot.evicted());
        }
        String id = jobs.newId();
        Job job;
        try {
            job = launcher.start(req, id, workingDirectory);
        } catch (ToolException | RuntimeException e) {
            jobs.cancel(slot, id);
            throw e;
        }
        if (!jobs.file(slot, job)) {
            // The scope or the job's root was closed while the job started: it goes the way of their other jobs.
            reaper.dispose(List.of(job));
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
        return results.result(jobs.require(scope, id));
    }

    /**
     * The jobs of a scope ({@code exec_status} without an id), newest first, at most
     * {@value #MAX_LISTED_JOBS}: id, command, state, exit code, start and finish time; no output.
     *
     * @param scope the caller's scope
     * @return the listing, empty when the scope has no job
     */
    public ExecJobsResult list(String scope) {
        List<Job> all = jobs.jobs(scope);
        List<ExecJobsResult.JobSummary> out = new java.util.ArrayList<>();
        for (int i = all.size() - 1; i >= 0 && out.size() < MAX_LISTED_JOBS; i--) {
            Job j = all.get(i);
            JobStatus st = j.status();
            out.add(new ExecJobsResult.JobSummary(j.id, ExecJobsResult.clip(j.command), st,
                    st.finished() ? j.exitCode() : null, j.startedAt, j.finishedAt()));
        }
        return new ExecJobsResult(out, all.size(), all.size() > out.size());
    }

    /**
     * Waits until a job ends or the wait passes, without starting anything.
     *
     * @param scope the caller's scope
     * @param id the job id
     * @param waitMs the most milliseconds to wait (capped by {@code maxWait})
     * @return the state
     * @throws ToolException {@code not_found} when no job of that id exists in this scope
     */
    public ExecResult await(String scope, String id, long waitMs) throws ToolException {
        Job job = jobs.require(scope, id);
        JobWaits.awaitDone(job, TimeUnit.MILLISECONDS.toNanos(Math.max(0, Math.min(waitMs, maxWaitMs))));
        return results.result(job);
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
        Job job = jobs.require(scope, id);
        boolean expired = job.outputExpired();
        return results.tail(job, stderr, expired, outputs.tail(job, n, stderr, expired));
    }

    /**
     * Kills a running job and its whole process tree: SIGTERM now, SIGKILL to survivors after
     * {@code killGrace}. Returns at once.
     *
     * @param scope the caller's scope
     * @param id the job id
     * @return true when a running job was told to end; false for unknown or finished jobs
     */
    public boolean kill(String scope, String id) {
        Job job = jobs.find(scope, id);
        return job != null && reaper.end(job, JobStatus.KILLED);
    }

    /**
     * Ends what a job that had already ended left running in the background ({@code server &}): the
     * processes that still carry its cookie get SIGTERM now and SIGKILL after {@code killGrace}. Returns at
     * once; the job stays known.
     *
     * @param scope the caller's scope
     * @param id the job id
     * @return how many processes were told to end; 0 for an unknown or running job, or one that left nothing
     */
    public int endLeftBehind(String scope, String id) {
        Job job = jobs.find(scope, id);
        return job == null ? 0 : reaper.endLeftBehind(job);
    }

    /**
     * What {@link #endLeftBehind} did, for the caller.
     *
     * @param id the job id
     * @param processes how many processes were told to end (at least 1)
     * @return one sentence
     */
    public static String leftBehindEnded(String id, int processes) {
        return "Job '" + id + "' had already ended; the " + (processes == 1 ? "process" : processes + " processes")
                + " it left running in the background (e.g. 'server &') " + (processes == 1 ? "was" : "were")
                + " told to end.";
    }

    /**
     * Why {@link #kill} killed nothing, for the caller: the job is unknown here (never started, a typo,
     * another session's, or forgotten), or it had already ended, and how.
     *
     * @param scope the caller's scope
     * @param id the job id
     * @return the reason, one or two sentences
     */
    public String notKilledReason(String scope, String id) {
        Job job = jobs.find(scope, id);
        if (job == null) {
            return jobs.unknown(id) + " Nothing was killed; exec_status without an id lists the jobs here.";
        }
        JobStatus status = job.status();
        if (status == JobStatus.RUNNING) {
            return "Job '" + id + "' is ending already (a kill or its deadline came first); exec_status shows when it "
                    + "has.";
        }
        Integer exit = job.exitCode();
        return "Job '" + id + "' had already ended (" + status.wire() + (exit != null ? ", exit code " + exit : "")
                + "); nothing was killed.";
    }

    /**
     * Kills every job of a scope (running ones and what finished ones left behind) and forgets them,
     * removing their output files. For when a session, process or project closes.
     *
     * @param scope the scope
     * @return how many running jobs were killed
     */
    public int closeScope(String scope) {
        List<Job> closedJobs = jobs.closeScope(scope);
        return closedJobs == null ? 0 : reaper.dispose(closedJobs);
    }

    /**
     * Kills every job whose working directory lies in a root, and forgets them. For when a RootDir is
     * disposed or a backend over that root closes.
     *
     * @param root the root directory
     * @return how many running jobs were killed
     */
    public int closeRoot(Path root) {
        return reaper.dispose(jobs.removeRoot(root));
    }

    /**
     * Lets jobs start again in a root that {@link #closeRoot} closed: until then, a job that was starting
     * in it when it closed, or starts later, is killed as soon as it has started.
     *
     * @param root the root directory, as given to {@link #closeRoot}
     */
    public void reopenRoot(Path root) {
        jobs.reopenRoot(root);
    }

    /**
     * How many jobs a scope holds (running and finished).
     *
     * @param scope the scope
     * @return the count
     */
    public int jobCount(String scope) {
        return jobs.jobCount(scope);
    }

    /**
     * How many scopes hold jobs or starts in progress.
     *
     * @return the count
     */
    public int scopeCount() {
        return jobs.scopeCount();
    }

    /**
     * Kills all jobs and waits for them: SIGTERM to every tree (and to what finished jobs left running),
     * a wait of up to {@code killGrace} for them to end, then SIGKILL to whatever still runs — in this
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
            expiry.stop();
            awaitStarts();
            List<Job> all = jobs.closeAll();
            int left = reaper.closeAll(all);
            if (left == 0 && !all.isEmpty()) {
                LOG.debug("exec engine closed: {} job trees ended", all.size());
            }
        } finally {
            threads.shutdown();
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

    /**
     * How many evicted jobs' trees still wait for the pass that ends what they left running; for tests.
     *
     * @return the count
     */
    int forgottenWaiting() {
        return reaper.forgottenWaiting();
    }

    /**
     * One expiry pass at the clock's current time (the engine's scheduler runs one every
     * {@code expiryCheckMs}): closes the scopes that are idle for {@code scopeIdle} — every job finished,
     * and neither a call nor a job's end for that long — and deletes the output files of jobs that
     * finished {@code outputRetention} ago.
     *
     * @return what it did
     */
    ExecExpiry.Pass expireNow() {
        return expiry.passNow();
    }
}
