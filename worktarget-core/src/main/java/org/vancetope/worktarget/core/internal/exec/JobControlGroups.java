package org.vancetope.worktarget.core.internal.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.path.Reserved;

/**
 * A Linux control group of its own for each job, below a directory the operator gave the server
 * ({@code jobControlGroup}): it caps the number of processes and threads a job may have at once
 * ({@code pids.max}, so that a fork bomb fails its forks instead of taking the machine's last process
 * numbers from the server), and it holds every process the job starts, whatever it does to its session or
 * environment, so that the tree kill finds all of them ({@link ProcessTree}).
 *
 * <p>The files used ({@code cgroup.procs}, {@code pids.max}, {@code pids.events}) are named the same in
 * cgroup v1 (a directory of the {@code pids} hierarchy) and v2 (a directory whose parent enables the
 * {@code pids} controller). A job's group is named {@code wt.<cookie>} after the job's cookie, which names
 * the JVM that made it, so that {@link #sweepStale} can tell the groups a killed JVM left. Thread-safe.
 */
final class JobControlGroups {
    private static final Logger LOG = LoggerFactory.getLogger(JobControlGroups.class);
    /** The start of the name of every job's group. */
    static final String PREFIX = "wt.";
    private static final Path PROC = ProcTable.PROC;
    /** How deep the walk of a freshly started job's processes goes: a wrapper and its shell are a few levels. */
    private static final int MAX_DEPTH = 16;

    /** Numbers the probes of {@link #open}. */
    private static final AtomicLong PROBES = new AtomicLong();

    private final Path parent;
    private final int maxProcesses;

    private JobControlGroups(Path parent, int maxProcesses) {
        this.parent = parent;
        this.maxProcesses = maxProcesses;
    }

    /**
     * Checks that jobs' groups can be made below a directory, by making one and removing it again.
     *
     * @param parent the directory
     * @param maxProcesses the most processes of one job, 0 for no cap
     * @return the groups
     * @throws IllegalArgumentException when the directory is not a control group, cannot be written, or
     *                                  lacks the {@code pids} controller a cap needs; saying what to do
     */
    static JobControlGroups open(Path parent, int maxProcesses) {
        Path dir = parent.toAbsolutePath().normalize();
        if (!Files.isRegularFile(dir.resolve("cgroup.procs"))) {
            throw new IllegalArgumentException("jobControlGroup " + dir + " is not a control group directory (it has no "
                    + "cgroup.procs). Name a directory below /sys/fs/cgroup that this server may write: with cgroup "
                    + "v2 one delegated to the server's user whose cgroup.subtree_control enables pids, with v1 one "
                    + "below /sys/fs/cgroup/pids.");
        }
        JobControlGroups groups = new JobControlGroups(dir, maxProcesses);
        // a name of its own for each probe: engines built at once must not remove each other's
        Path probe = dir.resolve(PREFIX + ProcessTree.COOKIE_OWNER + "probe" + PROBES.incrementAndGet());
        try {
            Files.createDirectory(probe);
        } catch (IOException e) {
            throw new IllegalArgumentException("jobControlGroup " + dir + ": this server cannot make a control group "
                    + "in it (" + e + "). Give the server's user write access to it (cgroup v2: delegate it, e.g. "
                    + "systemd's Delegate=yes) or run without jobControlGroup.", e);
        }
        try {
            if (maxProcesses > 0 && !Files.isRegularFile(probe.resolve("pids.max"))) {
                throw new IllegalArgumentException("jobControlGroup " + dir + " has no pids controller for its "
                        + "groups, so maxJobProcesses cannot be applied. With cgroup v2 enable it: echo +pids > "
                        + dir.resolve("cgroup.subtree_control") + " (the directory itself must hold no processes); "
                        + "with v1 use a directory below the pids hierarchy (/sys/fs/cgroup/pids).");
            }
            if (!Files.isWritable(probe.resolve("cgroup.procs"))) {
                throw new IllegalArgumentException("jobControlGroup " + dir + ": the server may not move processes "
                        + "into the groups it makes there (cgroup.procs is not writable). Give its user write access.");
            }
        } finally {
            remove(probe);
        }
        return groups;
    }

    /**
     * The directory the groups are made in.
     *
     * @return the directory
     */
    Path parent() {
        return parent;
    }

    /**
     * The cap on one job's processes and threads.
     *
     * @return the cap, 0 for none
     */
    int maxProcesses() {
        return maxProcesses;
    }

    /**
     * Makes the group of one job, with its cap.
     *
     * @param cookie the job's cookie
     * @return the group's directory
     * @throws IOException when it cannot be made or capped (then nothing is left)
     */
    Path create(String cookie) throws IOException {
        Path group = parent.resolve(PREFIX + cookie);
        Files.createDirectory(group);
        if (maxProcesses > 0) {
            try {
                Files.writeString(group.resolve("pids.max"), Integer.toString(maxProcesses), StandardCharsets.US_ASCII);
            } catch (IOException | RuntimeException e) {
                remove(group);
                throw e;
            }
        }
        return group;
    }

    /**
     * Moves a freshly started process and everything it started so far into a group: first the process, so
     * that what it forks from then on is born in the group, then its children (each moved before its own
     * children are listed, for the same reason). Called while the job's shell waits for its first input line,
     * when nothing of the job can exit and leave a child to another parent.
     *
     * @param group the group
     * @param pid the process
     * @throws IOException when the process cannot be moved (it ended, or the group is gone)
     */
    static void enter(Path group, long pid) throws IOException {
        Path procs = group.resolve("cgroup.procs");
        Files.writeString(procs, Long.toString(pid), StandardCharsets.US_ASCII);
        moveChildren(procs, pid, 0);
    }

    private static void moveChildren(Path procs, long pid, int depth) throws IOException {
        if (depth >= MAX_DEPTH) {
            return;
        }
        for (long child : children(pid)) {
            try {
                Files.writeString(procs, Long.toString(child), StandardCharsets.US_ASCII);
            } catch (IOException e) {
                if (ProcessHandle.of(child).isPresent()) {
                    throw e;
                }
                continue;   // it ended meanwhile: nothing of it to move
            }
            moveChildren(procs, child, depth + 1);
        }
    }

    /** The children of every thread of a process ({@code /proc/PID/task/TID/children}, or the JDK's list). */
    private static List<Long> children(long pid) {
        List<Long> out = new ArrayList<>();
        Path tasks = PROC.resolve(Long.toString(pid)).resolve("task");
        boolean listed = false;
        try (DirectoryStream<Path> ts = Files.newDirectoryStream(tasks)) {
            for (Path t : ts) {
                Path file = t.resolve("children");
                if (!Files.exists(file)) {
                    break;   // a kernel without the children files
                }
                listed = true;
                for (String s : Files.readString(file, StandardCharsets.US_ASCII).trim().split("\\s+")) {
                    if (!s.isEmpty()) {
                        out.add(Long.parseLong(s));
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            listed = false;
        }
        if (!listed) {
            out.clear();
            ProcessHandle.of(pid).ifPresent(p -> p.children().forEach(c -> out.add(c.pid())));
        }
        return out;
    }

    /**
     * The processes in a group now.
     *
     * @param group the group
     * @return their pids; empty when the group is gone
     */
    static List<Long> members(Path group) {
        List<Long> out = new ArrayList<>();
        try {
            for (String s : Files.readAllLines(group.resolve("cgroup.procs"), StandardCharsets.US_ASCII)) {
                if (!s.isBlank()) {
                    out.add(Long.parseLong(s.strip()));
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone (removed, or never made): no members
        }
        return out;
    }

    /**
     * Lets no process of a group fork any more ({@code pids.max} 0), so that one SIGKILL to its members is the
     * last: what they would fork meanwhile is refused. For the kill only: a job ending on SIGTERM may still need
     * to start its clean-up commands. Quiet where the group has no pids controller or is gone.
     *
     * @param group the group
     */
    static void stopForks(Path group) {
        try {
            Files.writeString(group.resolve("pids.max"), "0", StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            // no pids controller, or gone
        }
    }

    /**
     * How often a fork of the job failed because it had as many processes as its cap allows
     * ({@code pids.events}, line {@code max N}).
     *
     * @param group the group
     * @return the count; 0 when unknown
     */
    static long forkRefusals(Path group) {
        try {
            for (String line : Files.readAllLines(group.resolve("pids.events"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("max ")) {
                    return Long.parseLong(line.substring(4).strip());
                }
            }
        } catch (IOException | RuntimeException e) {
            // no pids controller, or the group is gone
        }
        return 0;
    }

    /**
     * Removes a group, which the kernel allows only once no process is left in it.
     *
     * @param group the group
     * @return true when it is gone
     */
    static boolean remove(Path group) {
        try {
            Files.delete(group);
            return true;
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException e) {
            LOG.debug("control group {} not removed yet: {}", group, e.toString());
            return false;
        }
    }

    /**
     * Kills what runs in the groups that JVMs of this host left when they ended without ending their jobs
     * (their cookie names a JVM that no longer runs, {@link Reserved#isStaleOwner}), and removes those groups.
     * Groups of other hosts or of running JVMs are left alone.
     *
     * @return how many groups were removed
     */
    int sweepStale() {
        int removed = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(parent, PREFIX + "*")) {
            for (Path g : ds) {
                String owner = ProcessTree.otherOwner(g.getFileName().toString().substring(PREFIX.length()));
                if (owner == null || !Reserved.isStaleOwner(owner)) {
                    continue;
                }
                for (int round = 0; round < 5; round++) {
                    List<Long> left = members(g);
                    if (left.isEmpty()) {
                        break;
                    }
                    left.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
                    LockSupport.parkNanos(50_000_000L);
                }
                if (remove(g)) {
                    removed++;
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("The control groups of ended JVMs in {} could not be listed: {}", parent, e.toString());
        }
        if (removed > 0) {
            LOG.warn("Removed {} control group(s) of jobs whose JVM ended without ending them, in {}", removed, parent);
        }
        return removed;
    }
}
