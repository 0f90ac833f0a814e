package org.vancetope.worktarget.core.internal.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.path.Reserved;

/**
 * Ends the whole process tree of a job: a snapshot of the job's shell,
 * its descendants and — on Linux — every process of the job's session or process group and every
 * process that still carries the job's environment cookie (which finds children that re-parented
 * themselves by double-forking, with or without their own {@code setsid}), then
 * SIGTERM to all of them, then after the grace period SIGKILL to whatever is left, scheduled on the
 * watchdog scheduler so the caller never blocks — or, when the engine closes, waited for in the
 * caller ({@link #terminateAndWait}).
 *
 * <p>A job with a control group of its own ({@link JobControlGroups}) has every process it started in the
 * snapshot too, and the group is removed once a pass finds the tree ended. Without one, it does not follow a
 * process that cleared its own environment, left the job's session and escaped its parent all at once; a
 * control group or the isolation wrapper's PID namespace is the answer to that. Reading
 * {@code /proc} is {@link ProcTable}'s part; this class decides whom to signal when.
 */
final class ProcessTree {
    /** The environment variable that marks every process of a job. */
    static final String COOKIE_VAR = "WORKTARGET_EXEC_JOB";

    private static final Logger LOG = LoggerFactory.getLogger(ProcessTree.class);
    private static final Path PROC = ProcTable.PROC;
    private static final int KILL_ROUNDS = 5;
    /** How long one SIGKILL round waits for the processes it signalled to die. */
    static final Duration SETTLE = Duration.ofSeconds(1);
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    /**
     * The start of this JVM's job cookies: its PID namespace and its owner name ({@code ns.host.pid.start.},
     * {@link Reserved#owner()}), so that a later JVM can tell that a job outlived the JVM that started it;
     * empty when the namespace cannot be read (no {@code /proc}), and then no job of this JVM is ever taken
     * for an orphan.
     */
    static final String COOKIE_OWNER = owner();
    private static final AtomicBoolean ORPHANS_KILLED = new AtomicBoolean();

    private final ScheduledExecutorService scheduler;
    private final Duration grace;
    private final boolean procAvailable;
    private final Set<Batch> pending = ConcurrentHashMap.newKeySet();

    ProcessTree(ScheduledExecutorService scheduler, Duration grace) {
        this.scheduler = scheduler;
        this.grace = grace;
        this.procAvailable = Files.isDirectory(PROC.resolve("self"));
    }

    /**
     * One job's tree: its top process, its environment cookie and the start time of the top process in
     * clock ticks since boot ({@code /proc/<pid>/stat} field 22; 0 when unknown). Every process of the tree
     * started no earlier than its top process, so a /proc scan skips older processes after reading their
     * {@code stat}, without opening their {@code environ}.
     *
     * @param root the top process
     * @param cookie the cookie, or null
     * @param startTicks the root's start time, or 0 when unknown
     * @param group the job's control group ({@link JobControlGroups}), whose every process belongs to the tree
     *              and which is removed once a pass finds the tree ended; null without one
     */
    record Target(ProcessHandle root, String cookie, long startTicks, JobControlGroups.Group group) {
        /** A tree whose root's start time is not known: every process of /proc is looked at. */
        Target(ProcessHandle root, String cookie) {
            this(root, cookie, 0, null);
        }

        /** A tree without a control group. */
        Target(ProcessHandle root, String cookie, long startTicks) {
            this(root, cookie, startTicks, null);
        }
    }

    /**
     * The start time of a process in clock ticks since boot, for {@link Target#startTicks}.
     *
     * @param pid the process
     * @return the start time, or 0 when it cannot be read (gone, no /proc)
     */
    static long startTicksOf(long pid) {
        ProcTable.Stat s = ProcTable.Stat.read(PROC.resolve(Long.toString(pid)).resolve("stat"));
        return s == null ? 0 : s.startTicks();
    }

    private static String owner() {
        String ns = pidNamespace();
        return ns == null ? "" : ns + "." + Reserved.owner() + ".";
    }

    /** The inode number of this process's PID namespace ({@code /proc/self/ns/pid -> pid:[4026531836]}), or null. */
    private static String pidNamespace() {
        try {
            String link = Files.readSymbolicLink(PROC.resolve("self/ns/pid")).toString();
            int open = link.indexOf('[');
            int close = link.indexOf(']', open + 1);
            String inode = open < 0 || close < 0 ? "" : link.substring(open + 1, close);
            return !inode.isEmpty() && inode.chars().allMatch(Character::isDigit) ? inode : null;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    /**
     * Once per JVM, when its first engine starts: {@link #killJobsOfEndedJvms}.
     */
    static void killJobsOfEndedJvmsOnce() {
        if (!COOKIE_OWNER.isEmpty() && ORPHANS_KILLED.compareAndSet(false, true)) {
            killJobsOfEndedJvms();
        }
    }

    /**
     * Kills (SIGKILL) the processes of jobs whose JVM ended without ending them (killed, out of memory): their
     * cookie names a JVM of this PID namespace and host that no longer runs ({@link Reserved#isStaleOwner}).
     * Nothing could end them, wait for them or read their output any more; a JVM that closes its engines ends
     * its jobs itself. Processes of other PID namespaces (a container's, whose pids mean nothing here), of
     * other users (whose environment is not readable) and with a cookie of another form are left alone.
     *
     * @return the pids signalled
     */
    static List<Long> killJobsOfEndedJvms() {
        if (COOKIE_OWNER.isEmpty()) {
            return List.of();
        }
        Map<String, Boolean> ended = new HashMap<>();
        List<Long> killed = new ArrayList<>();
        Set<String> owners = new TreeSet<>();
        for (Map.Entry<Long, String> e : ProcTable.cookieCarriers(ProcessHandle.current().pid()).entrySet()) {
            String owner = otherOwner(e.getValue());
            if (owner != null && ended.computeIfAbsent(owner, Reserved::isStaleOwner)) {
                ProcessHandle.of(e.getKey()).ifPresent(ProcessHandle::destroyForcibly);
                killed.add(e.getKey());
                owners.add(owner);
            }
        }
        if (!killed.isEmpty()) {
            LOG.warn("Killed {} process(es) of jobs whose JVM ended without ending them (owner {}): {}",
                    killed.size(), String.join(", ", owners), killed);
        }
        return killed;
    }

    /**
     * The owner a job cookie names ({@code <host>.<pid>.<start>}) when that is another JVM of this PID namespace,
     * for {@link Reserved#isStaleOwner}; null for a cookie of this JVM, of another namespace or of another form.
     *
     * @param cookie the cookie
     * @return the owner, or null
     */
    static String otherOwner(String cookie) {
        if (COOKIE_OWNER.isEmpty()) {
            return null;
        }
        String ns = COOKIE_OWNER.substring(0, COOKIE_OWNER.indexOf('.') + 1);
        int random = cookie.lastIndexOf('.');
        if (!cookie.startsWith(ns) || cookie.startsWith(COOKIE_OWNER) || random <= ns.length()) {
            return null;
        }
        return cookie.substring(ns.length(), random);
    }

    /**
     * Sends SIGTERM to the tree now and schedules SIGKILL for survivors after the grace period.
     *
     * @param root the job's top process
     * @param cookie the job's environment cookie
     */
    void terminate(ProcessHandle root, String cookie) {
        terminateAll(List.of(new Target(root, cookie)));
    }

    /**
     * Like {@link #terminate(ProcessHandle, String)} with the root's start time known.
     *
     * @param target the tree
     */
    void terminate(Target target) {
        terminateAll(List.of(target));
    }

    /**
     * Like {@link #terminate} for many trees at once, with one pass over {@code /proc} per round.
     *
     * @param targets the trees
     * @return how many processes were sent SIGTERM
     */
    int terminateAll(List<Target> targets) {
        if (targets.isEmpty()) {
            return 0;
        }
        Map<Long, ProcessHandle> all = snapshotAll(targets);
        if (all.isEmpty()) {
            // Nothing of these trees runs (the usual case for a finished job): with no process left, nothing
            // can fork a survivor either, so there is no SIGKILL round to schedule and no second /proc scan.
            removeGroups(targets);
            return 0;
        }
        LOG.debug("SIGTERM to {} processes of {} job trees", all.size(), targets.size());
        all.values().forEach(ProcessHandle::destroy);
        Batch batch = new Batch(List.copyOf(targets));
        pending.add(batch);
        Runnable kill = () -> {
            try {
                killSurvivors(batch.targets);
            } catch (RuntimeException e) {
                LOG.warn("SIGKILL round for {} job trees failed: {}", batch.targets.size(), e.toString());
            } finally {
                pending.remove(batch);
            }
        };
        try {
            scheduler.schedule(kill, grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // The scheduler is gone (engine closed): do not leave the trees behind.
            kill.run();
        }
        return all.size();
    }

    /**
     * Ends trees for good before it returns, for when the engine closes (a JVM that exits next would never
     * run a scheduled SIGKILL): SIGTERM to the given trees now, then a wait of up to the grace period for
     * them — and for every tree whose scheduled SIGKILL has not run yet — to end, then the SIGKILL rounds
     * for whatever still runs. Returns as soon as everything has ended.
     *
     * @param targets the trees to end now
     * @return how many processes still ran after the SIGKILL rounds (0 normally)
     */
    int terminateAndWait(List<Target> targets) {
        List<Target> all = new ArrayList<>(targets);
        Map<Long, ProcessHandle> now = snapshotAll(targets);
        LOG.debug("SIGTERM to {} processes of {} job trees, waiting up to {} ms", now.size(), targets.size(),
                grace.toMillis());
        now.values().forEach(ProcessHandle::destroy);
        for (Batch b : pending) {
            all.addAll(b.targets);
        }
        if (all.isEmpty()) {
            return 0;
        }
        long deadline = System.nanoTime() + grace.toNanos();
        while (true) {
            Map<Long, ProcessHandle> live = running(snapshotAll(all));
            if (live.isEmpty()) {
                removeGroups(all);
                return 0; // everything ended on SIGTERM; nothing can fork any more
            }
            if (!awaitDeath(live.values(), deadline) || System.nanoTime() - deadline >= 0) {
                break;
            }
            // those ended; look again for children they forked meanwhile
        }
        return killSurvivors(all);
    }

    /** Trees whose SIGKILL round is scheduled; identity matters, not content. */
    private static final class Batch {
        final List<Target> targets;

        Batch(List<Target> targets) {
            this.targets = targets;
        }
    }

    /**
     * Sends SIGKILL to everything of the trees that is still alive, in rounds until none is found, so
     * that children forked between the snapshot and the signal are caught too. Each round waits (up to
     * {@link #SETTLE}) for the processes it signalled to die, and a process that has died but is not
     * yet reaped by its parent (a zombie) counts as dead: only processes that are still running after
     * every round are reported, in a warning and in the return value.
     *
     * @param targets the trees
     * @return how many processes still ran after every round (0 normally)
     */
    int killSurvivors(List<Target> targets) {
        for (int round = 0; round < KILL_ROUNDS; round++) {
            Map<Long, ProcessHandle> tree = running(snapshotAll(targets));
            if (tree.isEmpty()) {
                removeGroups(targets);
                return 0;
            }
            LOG.debug("SIGKILL to {} surviving processes of {} job trees", tree.size(), targets.size());
            for (Target t : targets) {
                if (t.group() != null) {
                    t.group().stopForks();
                }
            }
            tree.values().forEach(ProcessHandle::destroyForcibly);
            awaitDeath(tree.values(), System.nanoTime() + SETTLE.toNanos());
        }
        Map<Long, ProcessHandle> left = running(snapshotAll(targets));
        if (!left.isEmpty()) {
            LOG.warn("{} processes of {} job trees still run after {} SIGKILL rounds (a process in uninterruptible "
                    + "sleep, e.g. on a hung file system, dies only when its I/O ends): {}", left.size(), targets.size(),
                    KILL_ROUNDS, left.keySet());
        }
        removeGroups(targets);     // the kernel keeps a group that still holds a process; a later pass tries again
        return left.size();
    }

    /** Removes the control groups of trees a pass found ended (a group with a process left stays). */
    private static void removeGroups(List<Target> targets) {
        for (Target t : targets) {
            if (t.group() != null) {
                t.group().remove();
            }
        }
    }

    /**
     * Waits until none of the processes runs any more (dead or zombie), or until the deadline.
     *
     * @param processes the processes
     * @param deadlineNanos the {@link System#nanoTime()} to give up at
     * @return true when none runs
     */
    boolean awaitDeath(Collection<ProcessHandle> processes, long deadlineNanos) {
        List<ProcessHandle> left = new ArrayList<>(processes);
        while (true) {
            left.removeIf(p -> !running(p));
            if (left.isEmpty()) {
                return true;
            }
            if (System.nanoTime() - deadlineNanos >= 0) {
                return false;
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
    }

    /** The processes of a snapshot that still run: alive and not zombies. */
    private Map<Long, ProcessHandle> running(Map<Long, ProcessHandle> snapshot) {
        snapshot.values().removeIf(p -> !running(p));
        return snapshot;
    }

    /**
     * Whether a process still runs. {@link ProcessHandle#isAlive()} is also true for a zombie (dead, not yet
     * reaped by its parent); such a process cannot run or be killed any more, so it does not count.
     */
    private boolean running(ProcessHandle p) {
        if (!p.isAlive()) {
            return false;
        }
        if (!procAvailable) {
            return true;
        }
        try {
            String line = Files.readString(PROC.resolve(Long.toString(p.pid())).resolve("stat"), StandardCharsets.US_ASCII);
            int close = line.lastIndexOf(')');
            return close < 0 || close + 2 >= line.length() || line.charAt(close + 2) != 'Z' && line.charAt(close + 2) != 'X';
        } catch (IOException | RuntimeException e) {
            return p.isAlive(); // gone between the two checks, or unreadable
        }
    }

    /**
     * The live processes of one tree: the root, its descendants and every process carrying the cookie.
     *
     * @param root the job's top process
     * @param cookie the cookie
     * @return processes by pid
     */
    Map<Long, ProcessHandle> snapshot(ProcessHandle root, String cookie) {
        return snapshot(new Target(root, cookie));
    }

    /**
     * The live processes of one tree, skipping processes older than its root when the root's start time is known.
     *
     * @param target the tree
     * @return processes by pid
     */
    Map<Long, ProcessHandle> snapshot(Target target) {
        return snapshotAll(List.of(target));
    }

    /** Whether a process or thread of this pid exists ({@code /proc/PID}, threads included); false without /proc. */
    private boolean pidInUse(long pid) {
        return procAvailable && Files.exists(PROC.resolve(Long.toString(pid)));
    }

    private Map<Long, ProcessHandle> snapshotAll(List<Target> targets) {
        Map<Long, ProcessHandle> out = new LinkedHashMap<>();
        long self = ProcessHandle.current().pid();
        Set<String> cookies = new HashSet<>();
        Set<Long> leaders = new HashSet<>();
        long floor = Long.MAX_VALUE;
        for (Target t : targets) {
            floor = Math.min(floor, t.startTicks());
            long pid = t.root().pid();
            if (t.root().isAlive() || !pidInUse(pid)) {
                // a dead root's session and group live on in what it left running, which keeps its pid from
                // being given to another process; a pid in use again (the root is dead, so by someone else:
                // ProcessHandle.isAlive compares start times) tells that nothing of them is left, and the
                // session or group of that number is the new process's
                leaders.add(pid);
            }
            if (t.root().isAlive()) {
                out.put(t.root().pid(), t.root());
                // (a dead root has no descendants any more: its children were re-parented; the scan below finds
                // them by session, group or cookie — and the JDK would list every process of the machine to say so)
                t.root().descendants().forEach(p -> out.put(p.pid(), p));
            }
            if (t.cookie() != null) {
                cookies.add(t.cookie());
            }
            if (t.group() != null) {
                // everything the job started, also what left its session and cleared its environment
                for (long member : t.group().members()) {
                    ProcessHandle.of(member).ifPresent(p -> out.put(member, p));
                }
            }
        }
        if (procAvailable) {
            for (int attempt = 0; attempt < 3 && !ProcTable.scan(out, self, cookies, leaders, floor); attempt++) {
                LOG.debug("listing /proc was cut short; listing again");
            }
        }
        out.remove(self);
        return out;
    }
}
