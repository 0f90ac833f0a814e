package org.vancetope.worktarget.core.internal.exec;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;

/**
 * One running or finished job: its process, its two captures and its end state. State changes are
 * guarded by the job's monitor; {@link #done} completes once, when the status leaves RUNNING.
 */
final class Job {
    final String id;
    final String scope;
    /** The shell command as given. */
    final String command;
    /** When the job started, on the engine's clock. */
    final Instant startedAt;
    final String cookie;
    final ConfinedRoot root;
    /** The job's {@code PATH}, or null: where its shell looked for programs. */
    final String pathVariable;
    /** The directory below the root the command runs in, or null for the root. */
    final String workingDirectory;
    /** The job's {@code HOME}, or null. */
    final String home;
    final Process process;
    final StreamCapture stdout;
    final StreamCapture stderr;
    final long startNanos;
    /** The job's process tree, with the shell's start time read right after it was spawned. */
    final ProcessTree.Target tree;
    final CompletableFuture<Void> done = new CompletableFuture<>();
    private final Clock clock;
    /** The out-of-memory killer's count when the job started ({@link ProcTable#oomKills}), -1 where unknown. */
    private final long oomKillsAtStart;
    /** How many kills of the out-of-memory killer the machine had while a job killed by SIGKILL ran. */
    private long oomKillsWhileRunning;
    /** How many of the job's forks its control group's process cap refused until the shell exited. */
    private long forkRefusals;
    /** How many of the job's processes were killed for its control group's memory cap until the shell exited. */
    private long memoryKills;
    /** How long the job's processes were held back at its control group's CPU cap until the shell exited. */
    private long throttledMicros;

    private JobStatus status = JobStatus.RUNNING;
    private JobStatus endReason;
    private Integer exitCode;
    private long endNanos;
    private ScheduledFuture<?> deadline;
    private long deadlineSeconds;
    /** Whether the deadline is the server's {@code maxJobDuration} rather than the caller's. */
    private boolean serverDeadline;
    private CompletableFuture<Void> pumps;
    private Instant finishedAt;
    private boolean outputExpired;

    Job(String id, String scope, String command, String cookie, ConfinedRoot root, Process process,
        StreamCapture stdout, StreamCapture stderr, long startNanos, Clock clock, JobControlGroups.Group group, String pathVariable,
        String workingDirectory, String home) {
        this.home = home;
        this.pathVariable = pathVariable;
        this.workingDirectory = workingDirectory;
        this.id = id;
        this.scope = scope;
        this.command = command;
        this.startedAt = clock.instant();
        this.cookie = cookie;
        this.root = root;
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
        this.startNanos = startNanos;
        this.tree = new ProcessTree.Target(process.toHandle(), cookie, ProcessTree.startTicksOf(process.pid()), group);
        this.clock = clock;
        this.oomKillsAtStart = ProcTable.oomKills();
    }

    synchronized JobStatus status() {
        return status;
    }

    synchronized Integer exitCode() {
        return exitCode;
    }

    synchronized long durationMs(long nowNanos) {
        long end = status.finished() || exitCode != null ? endNanos : nowNanos;
        return Math.max(0, (end - startNanos) / 1_000_000L);
    }

    /**
     * Sets the job's deadline.
     *
     * @param f the scheduled end
     * @param seconds the deadline, for the result's hint
     * @param server whether it is the server's limit ({@code maxJobDuration}) rather than the caller's
     */
    synchronized void deadline(ScheduledFuture<?> f, long seconds, boolean server) {
        this.deadline = f;
        this.deadlineSeconds = seconds;
        this.serverDeadline = server;
        if (status.finished()) {
            f.cancel(false);
        }
    }

    /**
     * Marks the job as being ended from outside, unless it already ended.
     *
     * @param reason KILLED or TIMED_OUT
     * @return true when this call set the reason (the job was still running)
     */
    synchronized boolean markEnding(JobStatus reason) {
        if (status.finished() || endReason != null) {
            return false;
        }
        endReason = reason;
        return true;
    }

    /**
     * Records the shell's exit.
     *
     * @return true for the first call
     */
    synchronized boolean exited(int code, long nanos) {
        if (exitCode != null) {
            return false;
        }
        exitCode = code;
        endNanos = nanos;
        if (code == KILLED_BY_SIGKILL && oomKillsAtStart >= 0) {
            oomKillsWhileRunning = Math.max(0, ProcTable.oomKills() - oomKillsAtStart);
        }
        if (tree.group() != null) {
            forkRefusals = tree.group().forkRefusals();
            memoryKills = tree.group().memoryKills();
            throttledMicros = tree.group().throttledMicros();
        }
        return true;
    }

    /**
     * How many forks of the job its process cap refused while its shell ran ({@code maxJobProcesses}); 0
     * while the shell runs, without a cap or where unknown.
     *
     * @return the count
     */
    synchronized long forkRefusals() {
        return forkRefusals;
    }

    /**
     * How many of the job's processes the kernel's out-of-memory killer ended at its memory cap
     * ({@code maxJobMemory}) while its shell ran; 0 while the shell runs, without a cap or where unknown.
     *
     * @return the count
     */
    synchronized long memoryKills() {
        return memoryKills;
    }

    /**
     * How long the job's processes were held back at its CPU cap ({@code maxJobCpus}) while its shell ran,
     * summed over the CPUs; 0 while the shell runs, without a cap or where unknown.
     *
     * @return microseconds
     */
    synchronized long throttledMicros() {
        return throttledMicros;
    }

    /** The exit code of a shell killed by SIGKILL, or of one whose last command was (128 + 9). */
    static final int KILLED_BY_SIGKILL = 137;

    /**
     * How many processes the out-of-memory killer ended on this machine while the job ran, counted only
     * for a job whose shell ended with {@link #KILLED_BY_SIGKILL}; 0 otherwise or where unknown.
     *
     * @return the count
     */
    synchronized long oomKillsWhileRunning() {
        return oomKillsWhileRunning;
    }

    /**
     * The deadline the caller gave.
     *
     * @return seconds, 0 for none
     */
    synchronized long deadlineSeconds() {
        return deadlineSeconds;
    }

    /**
     * Whether the job's deadline is the server's limit ({@code maxJobDuration}) rather than the caller's.
     *
     * @return true for the server's
     */
    synchronized boolean serverDeadline() {
        return serverDeadline;
    }

    synchronized void pumps(CompletableFuture<Void> f) {
        this.pumps = f;
    }

    synchronized CompletableFuture<Void> pumps() {
        return pumps;
    }

    /** Ends the job: the shell exited and its output was drained (or the drain time passed). */
    void finish() {
        synchronized (this) {
            if (status.finished()) {
                return;
            }
            if (endReason != null) {
                status = endReason;
            } else {
                status = exitCode != null && exitCode == 0 ? JobStatus.EXITED : JobStatus.FAILED;
            }
            finishedAt = clock.instant();
            if (deadline != null) {
                deadline.cancel(false);
            }
        }
        done.complete(null);
    }

    /**
     * When the job finished, on the engine's clock.
     *
     * @return the instant, or null while it runs
     */
    synchronized Instant finishedAt() {
        return finishedAt;
    }

    /**
     * Marks the output files as expired (deleted after the retention time), once.
     *
     * @return true for the first call
     */
    synchronized boolean expireOutput() {
        if (outputExpired) {
            return false;
        }
        outputExpired = true;
        return true;
    }

    /**
     * Whether the output files were deleted after the retention time.
     *
     * @return true once expired
     */
    synchronized boolean outputExpired() {
        return outputExpired;
    }
}
