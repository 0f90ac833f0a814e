package org.vancetope.worktarget.core.internal.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;

/**
 * Ends jobs and clears away what they leave. {@link #end} tells one running job's tree to end (SIGTERM
 * now, SIGKILL to survivors after the grace period, without blocking); {@link #dispose} does that for
 * jobs taken out of their scope and also ends what finished ones left running in the background, then
 * forgets their ids and deletes their output files; {@link #forget} does the same for an evicted job
 * off the caller's thread; {@link #closeAll} waits for the trees to end, for when the engine closes.
 *
 * <p>It does not decide which jobs go (that is {@link JobTable}) and does not take them out of their
 * scope: the jobs it is given are already out. Thread-safe.
 */
final class JobReaper {
    private final ProcessTree tree;
    private final JobTable table;
    private final ExecutorService io;

    JobReaper(ProcessTree tree, JobTable table, ExecutorService io) {
        this.tree = tree;
        this.table = table;
        this.io = io;
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
     * Forgets an evicted job off the caller's path: ends what it left running and removes its files.
     *
     * @param j the evicted job
     */
    void forget(Job j) {
        table.release(j);
        Runnable cleanup = () -> {
            tree.terminateAll(List.of(j.tree));
            JobOutputs.delete(j);
        };
        try {
            io.execute(cleanup);
        } catch (RejectedExecutionException e) {
            cleanup.run();
        }
    }

    /**
     * Ends all jobs and waits: SIGTERM to every tree, up to the grace period for them to end, then SIGKILL
     * to whatever still runs, in this call; then forgets the jobs and deletes their files.
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
        int left = tree.terminateAndWait(trees);
        for (Job j : jobs) {
            table.release(j);
            JobOutputs.delete(j);
        }
        return left;
    }
}
