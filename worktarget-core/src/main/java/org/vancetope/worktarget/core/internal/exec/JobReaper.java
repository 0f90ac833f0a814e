package org.vancetope.worktarget.core.internal.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Ends jobs and clears away what they leave. {@link #end} tells one running job's tree to end (SIGTERM
 * now, SIGKILL to survivors after the grace period, without blocking); {@link #dispose} does that for
 * jobs taken out of their scope and also ends what finished ones left running in the background, then
 * forgets their ids and deletes their output files; {@link #forget} does the same for an evicted job
 * off the caller's thread, ending what the jobs evicted within {@value #FORGET_BATCH_MS} ms left running in
 * one pass over {@code /proc}; {@link #closeAll} waits for the trees to end, for when the engine closes.
 *
 * <p>It does not decide which jobs go (that is {@link JobTable}) and does not take them out of their
 * scope: the jobs it is given are already out. Thread-safe.
 */
final class JobReaper {
    /**
     * How long the trees of evicted jobs are gathered before one pass over {@code /proc} ends what they left
     * running: a scope that runs one short job after another evicts one job per job, and a pass each (all of
     * {@code /proc}'s stat files) cost about a sixth of such a job's time on two cores.
     */
    static final long FORGET_BATCH_MS = 50;

    private final ProcessTree tree;
    private final JobTable table;
    private final ExecutorService io;
    private final ScheduledExecutorService scheduler;
    private final Object forgottenLock = new Object();
    /** The trees of evicted jobs not looked at yet; guarded by {@link #forgottenLock}. */
    private List<ProcessTree.Target> forgotten = new ArrayList<>();
    /** The trees of the pass in progress; guarded by {@link #forgottenLock}. */
    private final List<ProcessTree.Target> inPass = new ArrayList<>();
    /** Whether a pass over {@link #forgotten} is scheduled; guarded by {@link #forgottenLock}. */
    private boolean forgottenPassScheduled;

    JobReaper(ProcessTree tree, JobTable table, ExecutorService io, ScheduledExecutorService scheduler) {
        this.tree = tree;
        this.table = table;
        this.io = io;
        this.scheduler = scheduler;
    }

    /**
     * Ends a running job for a reason and tells its tree to end; returns at once.
     *
     * @param job the job
     * @param reason KILLED or TIMED_OUT
     * @return true when the job was running and this call set its reason
     */
    boolean end(Job job, JobStatus reason) {
        if (!job.markEnding(reason)) {
            return false;
        }
        tree.terminate(job.tree);
        return true;
    }

    /**
     * Ends what a finished job left running in the background ({@code server &}), the job staying known:
     * SIGTERM now, SIGKILL to survivors after the grace period, without blocking.
     *
     * @param job the job
     * @return how many processes were told to end; 0 when the job still runs or left nothing
     */
    int endLeftBehind(Job job) {
        return job.status().finished() ? tree.terminateAll(List.of(job.tree)) : 0;
    }

    /**
     * Ends jobs taken out of their scope: running ones are marked killed, and every tree — also what
     * finished jobs left behind ("server &") — is told to end in one pass; then their ids are forgotten
     * and their output files deleted.
     *
     * @param jobs the jobs
     * @return how many of them were running
     */
    int dispose(List<Job> jobs) {
        int killed = 0;
        List<ProcessTree.Target> trees = new ArrayList<>();
        for (Job j : jobs) {
            if (j.markEnding(JobStatus.KILLED)) {
                killed++;
            }
            trees.add(j.tree);
        }
        tree.terminateAll(trees);
        for (Job j : jobs) {
            table.release(j);
            JobOutputs.delete(j);
        }
        return killed;
    }

    /**
     * Forgets an evicted job off the caller's path: removes its files now and ends what it left running
     * within {@value #FORGET_BATCH_MS} ms, in one pass with the other jobs evicted meanwhile.
     *
     * @param j the evicted job
     */
    void forget(Job j) {
        table.release(j);
        Runnable files = () -> JobOutputs.delete(j);
        try {
            io.execute(files);
        } catch (RejectedExecutionException e) {
            files.run();
        }
        synchronized (forgottenLock) {
            forgotten.add(j.tree);
            if (forgottenPassScheduled) {
                return;
            }
            forgottenPassScheduled = true;
        }
        try {
            scheduler.schedule(() -> {
                try {
                    io.execute(this::endForgotten);
                } catch (RejectedExecutionException e) {
                    endForgotten();
                }
            }, FORGET_BATCH_MS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            endForgotten();
        }
    }

    /**
     * Ends what the jobs evicted since the last pass left running. Their trees stay in view of
     * {@link #closeAll} until this pass has told them to end (and scheduled the SIGKILL round that close
     * waits for).
     */
    void endForgotten() {
        List<ProcessTree.Target> batch;
        synchronized (forgottenLock) {
            batch = forgotten;
            forgotten = new ArrayList<>();
            forgottenPassScheduled = false;
            inPass.addAll(batch);
        }
        try {
            tree.terminateAll(batch);
        } finally {
            synchronized (forgottenLock) {
                inPass.removeAll(batch);
            }
        }
    }

    /**
     * The trees of evicted jobs that no pass has told to end yet (those of a pass in progress too), for
     * close to end; the ones no pass took are taken.
     */
    private List<ProcessTree.Target> takeNotEndedYet() {
        synchronized (forgottenLock) {
            List<ProcessTree.Target> out = new ArrayList<>(inPass);
            out.addAll(forgotten);
            forgotten = new ArrayList<>();
            return out;
        }
    }

    /**
     * How many evicted jobs' trees wait for their pass; for tests.
     *
     * @return the count
     */
    int forgottenWaiting() {
        synchronized (forgottenLock) {
            return forgotten.size() + inPass.size();
        }
    }

    /**
     * Ends all jobs and waits: SIGTERM to every tree (and to what evicted jobs whose pass has not come yet
     * left running), up to the grace period for them to end, then SIGKILL to whatever still runs, in this
     * call; then forgets the jobs and deletes their files.
     *
     * @param jobs every job of the engine, out of their scopes
     * @return how many processes were still left after the last SIGKILL round
     */
    int closeAll(List<Job> jobs) {
        List<ProcessTree.Target> trees = new ArrayList<>();
        for (Job j : jobs) {
            j.markEnding(JobStatus.KILLED);
            trees.add(j.tree);
        }
        trees.addAll(takeNotEndedYet());      // evicted jobs whose pass has not come (or not ended) yet
        int left = tree.terminateAndWait(trees);
        for (Job j : jobs) {
            table.release(j);
            JobOutputs.delete(j);
        }
        return left;
    }
}
