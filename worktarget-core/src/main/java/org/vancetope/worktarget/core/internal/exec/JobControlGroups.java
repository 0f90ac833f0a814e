package org.vancetope.worktarget.core.internal.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.internal.path.Reserved;

/**
 * A Linux control group of its own for each job, below the directories the operator gave the server
 * ({@code jobControlGroups}: one with cgroup v2, one per hierarchy with v1): it caps the number of processes
 * and threads a job may have at once ({@code pids.max}, so that a fork bomb fails its forks instead of taking
 * the machine's last process numbers from the server), the memory it may use ({@code memory.max}, v1
 * {@code memory.limit_in_bytes}, with no swap beyond it: the kernel's out-of-memory killer ends a process of
 * that job instead of the server or a job beside it) and the CPU time it may have ({@code cpu.max}, v1
 * {@code cpu.cfs_quota_us}: a job that would take every core is held back instead), and it holds every
 * process the job starts, whatever it does to its session or environment, so that the tree kill finds all
 * of them ({@link ProcessTree}).
 *
 * <p>The files of the {@code pids} controller ({@code cgroup.procs}, {@code pids.max}, {@code pids.events})
 * are named the same in cgroup v1 (a directory of the {@code pids} hierarchy) and v2 (a directory whose
 * parent enables the controller); those of the memory and cpu controllers are not, and both forms are handled. A
 * job's group is named {@code wt.<cookie>} after the job's cookie, which names the JVM that made it, so that
 * {@link #sweepStale} can tell the groups a killed JVM left. Thread-safe.
 */
final class JobControlGroups {
    private static final Logger LOG = LoggerFactory.getLogger(JobControlGroups.class);
    /** The start of the name of every job's group. */
    static final String PREFIX = "wt.";
    private static final Path PROC = ProcTable.PROC;
    /** How deep the walk of a freshly started job's processes goes: a wrapper and its shell are a few levels. */
    private static final int MAX_DEPTH = 16;

    /** The period of the CPU cap: the kernel's default, 100 ms. */
    private static final long CPU_PERIOD_MICROS = 100_000;
    /** Numbers the probes of {@link #open}. */
    private static final AtomicLong PROBES = new AtomicLong();

    private final List<Path> parents;
    /** The directory whose groups have the pids controller, or null. */
    private final Path pidsParent;
    /** The directory whose groups have the memory controller, or null. */
    private final Path memoryParent;
    /** Whether that memory controller is cgroup v1's ({@code memory.limit_in_bytes}). */
    private final boolean memoryV1;
    /** The directory whose groups have the cpu controller, or null. */
    private final Path cpuParent;
    /** Whether that cpu controller is cgroup v1's ({@code cpu.cfs_quota_us}). */
    private final boolean cpuV1;
    private final int maxProcesses;
    private final long maxMemory;
    private final double maxCpus;

    private JobControlGroups(List<Path> parents, Found found, ExecSettings s) {
        this.parents = List.copyOf(parents);
        this.pidsParent = found.pids;
        this.memoryParent = found.memory;
        this.memoryV1 = found.memoryV1;
        this.cpuParent = found.cpu;
        this.cpuV1 = found.cpuV1;
        this.maxProcesses = s.maxJobProcesses();
        this.maxMemory = s.maxJobMemory();
        this.maxCpus = s.maxJobCpus();
    }

    /** The directory of each controller, as the probes found them. */
    private static final class Found {
        private Path pids;
        private Path memory;
        private boolean memoryV1;
        private Path cpu;
        private boolean cpuV1;
    }

    /**
     * Checks that jobs' groups can be made below each directory of the settings' {@code jobControlGroups}, by
     * making one in each and removing it again, and finds the directory of each controller a cap needs.
     *
     * @param s the settings: the directories (one per hierarchy; with cgroup v2 one is enough) and the caps
     * @return the groups
     * @throws IllegalArgumentException when a directory is not a control group or cannot be written, when two
     *                                  are in the same hierarchy, or when none has the controller a cap needs;
     *                                  saying what to do
     */
    static JobControlGroups open(ExecSettings s) {
        List<Path> parents = new ArrayList<>();
        Map<Object, Path> hierarchies = new HashMap<>();
        Found found = new Found();
        for (Path d : s.jobControlGroups()) {
            Path dir = d.toAbsolutePath().normalize();
            Probe probe = probe(dir);
            Object hierarchy = hierarchy(dir);
            if (hierarchy != null && hierarchies.containsKey(hierarchy)) {
                throw sameHierarchy(hierarchies.get(hierarchy), dir);
            }
            hierarchies.put(hierarchy, dir);
            // one directory per hierarchy, and a controller is in one hierarchy: each is found once at most
            if (probe.pids()) {
                found.pids = dir;
            }
            if (probe.memory()) {
                found.memory = dir;
                found.memoryV1 = probe.memoryV1();
            }
            if (probe.cpu()) {
                found.cpu = dir;
                found.cpuV1 = probe.cpuV1();
            }
            parents.add(dir);
        }
        String named = names(parents);
        String subtree = parents.get(0).resolve("cgroup.subtree_control").toString();
        if (s.maxJobProcesses() > 0 && found.pids == null) {
            throw missing(named, "pids", "maxJobProcesses", subtree);
        }
        if (s.maxJobMemory() > 0 && found.memory == null) {
            throw missing(named, "memory", "maxJobMemory", subtree);
        }
        if (s.maxJobCpus() > 0 && found.cpu == null) {
            throw missing(named, "cpu", "maxJobCpus", subtree);
        }
        return new JobControlGroups(parents, found, s);
    }

    private static IllegalArgumentException missing(String named, String controller, String setting, String subtree) {
        return new IllegalArgumentException("jobControlGroups " + named + ": no " + controller + " controller for the "
                + "jobs' groups, so " + setting + " cannot be applied. With cgroup v2 enable it: echo +" + controller
                + " > " + subtree + " (the directory itself must hold no processes); with v1 "
                + ("pids".equals(controller) ? "use" : "add") + " a directory below the " + controller + " hierarchy "
                + "(/sys/fs/cgroup/" + controller + ")" + ("pids".equals(controller) ? "." : " to jobControlGroups."));
    }

    /** The controllers the groups made in a directory have. */
    private record Probe(boolean pids, boolean memory, boolean memoryV1, boolean cpu, boolean cpuV1) {
    }

    /** Makes a group below a directory and removes it again, to learn whether it can and what its groups have. */
    private static Probe probe(Path dir) {
        if (!Files.isRegularFile(dir.resolve("cgroup.procs"))) {
            throw new IllegalArgumentException("jobControlGroups " + dir + " is not a control group directory (it has "
                    + "no cgroup.procs). Name a directory below /sys/fs/cgroup that this server may write: with cgroup "
                    + "v2 one delegated to the server's user whose cgroup.subtree_control enables pids (and memory, "
                    + "cpu for those caps), with v1 one below /sys/fs/cgroup/pids (and one below "
                    + "/sys/fs/cgroup/memory, /sys/fs/cgroup/cpu for those caps).");
        }
        // a name of its own for each probe: engines built at once must not remove each other's
        Path probe = dir.resolve(PREFIX + ProcessTree.COOKIE_OWNER + "probe" + PROBES.incrementAndGet());
        try {
            Files.createDirectory(probe);
        } catch (IOException e) {
            throw new IllegalArgumentException("jobControlGroups " + dir + ": this server cannot make a control group "
                    + "in it (" + e + "). Give the server's user write access to it (cgroup v2: delegate it, e.g. "
                    + "systemd's Delegate=yes) or run without jobControlGroups.", e);
        }
        try {
            if (!Files.isWritable(probe.resolve("cgroup.procs"))) {
                throw new IllegalArgumentException("jobControlGroups " + dir + ": the server may not move processes "
                        + "into the groups it makes there (cgroup.procs is not writable). Give its user write access.");
            }
            boolean memoryV2 = Files.isRegularFile(probe.resolve("memory.max"));
            boolean memoryV1 = Files.isRegularFile(probe.resolve("memory.limit_in_bytes"));
            boolean cpuV2 = Files.isRegularFile(probe.resolve("cpu.max"));
            boolean cpuV1 = Files.isRegularFile(probe.resolve("cpu.cfs_quota_us"));
            return new Probe(Files.isRegularFile(probe.resolve("pids.max")), memoryV1 || memoryV2,
                    memoryV1 && !memoryV2, cpuV1 || cpuV2, cpuV1 && !cpuV2);
        } finally {
            remove(probe);
        }
    }

    /** The one directory of a controller: refuses a second. */
    /** The mount a directory is in (its device), which is one hierarchy; null where it cannot be read. */
    private static Object hierarchy(Path dir) {
        try {
            return Files.getAttribute(dir, "unix:dev");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static IllegalArgumentException sameHierarchy(Path one, Path other) {
        return new IllegalArgumentException("jobControlGroups " + one + " and " + other + " are in the same control "
                + "group hierarchy: a process is in one group of a hierarchy only. Give one directory per hierarchy "
                + "(with cgroup v2 one directory in all).");
    }

    private static String names(List<Path> dirs) {
        return String.join(", ", dirs.stream().map(Path::toString).toList());
    }

    /**
     * The directories the groups are made in, for messages.
     *
     * @return the directories, joined by ", "
     */
    String parents() {
        return names(parents);
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
     * The cap on one job's memory.
     *
     * @return the cap in bytes, 0 for none
     */
    long maxMemory() {
        return maxMemory;
    }

    /**
     * The cap on one job's CPU time.
     *
     * @return CPUs, 0 for none
     */
    double maxCpus() {
        return maxCpus;
    }

    /**
     * The groups of one job: one in each directory, the same name in each.
     *
     * @param dirs the job's groups, one per directory
     * @param pids the one of them with the pids controller, or null
     * @param oomKills where the memory controller counts the job's processes killed at its cap, or null
     * @param throttled where the cpu controller counts the time the job was held back at its cap, or null
     */
    record Group(List<Path> dirs, Path pids, Counter oomKills, Counter throttled) {
        /**
         * Moves a freshly started process and what it started so far into every group of the job
         * ({@link JobControlGroups#enter}).
         *
         * @param pid the process
         * @throws IOException when it cannot be moved (it ended, or a group is gone)
         */
        void enter(long pid) throws IOException {
            for (Path d : dirs) {
                JobControlGroups.enter(d, pid);
            }
        }

        /**
         * The processes in the job's groups now.
         *
         * @return their pids, each once; empty when the groups are gone
         */
        List<Long> members() {
            if (dirs.size() == 1) {
                return JobControlGroups.members(dirs.get(0));
            }
            Set<Long> all = new LinkedHashSet<>();
            dirs.forEach(d -> all.addAll(JobControlGroups.members(d)));
            return new ArrayList<>(all);
        }

        /** Lets no process of the job fork any more ({@link JobControlGroups#stopForks}); quiet without pids. */
        void stopForks() {
            if (pids != null) {
                JobControlGroups.stopForks(pids);
            }
        }

        /**
         * How often a fork of the job failed at its process cap.
         *
         * @return the count; 0 when unknown or without the pids controller
         */
        long forkRefusals() {
            return pids == null ? 0 : JobControlGroups.forkRefusals(pids);
        }

        /**
         * How many of the job's processes the kernel's out-of-memory killer ended because the job had used its
         * memory cap ({@code oom_kill} in v2 {@code memory.events}, v1 {@code memory.oom_control}).
         *
         * @return the count; 0 when unknown or without the memory controller
         */
        long memoryKills() {
            return oomKills == null ? 0 : oomKills.read();
        }

        /**
         * How long the job's processes were held back at its CPU cap, summed over the CPUs
         * ({@code throttled_usec} in v2 {@code cpu.stat}, v1 {@code throttled_time} in nanoseconds).
         *
         * @return microseconds; 0 when unknown or without the cpu controller
         */
        long throttledMicros() {
            return throttled == null ? 0 : throttled.read();
        }

        /**
         * Removes the job's groups, which the kernel allows only once no process is left in them.
         *
         * @return true when all are gone
         */
        boolean remove() {
            boolean gone = true;
            for (Path d : dirs) {
                gone &= JobControlGroups.remove(d);
            }
            return gone;
        }
    }

    /**
     * A number a controller keeps for a group: the line of a flat-keyed file that starts with a key.
     *
     * @param file the file
     * @param key the key, with its blank
     * @param per what the number is divided by (1000 for nanoseconds read as microseconds)
     */
    record Counter(Path file, String key, long per) {
        /**
         * Reads the number.
         *
         * @return it, divided; 0 when absent or unreadable (no such controller, the group is gone)
         */
        long read() {
            return counter(file, key) / per;
        }
    }

    /**
     * Makes the groups of one job, with their caps.
     *
     * @param cookie the job's cookie
     * @return the groups
     * @throws IOException when they cannot be made or capped (then nothing is left)
     */
    Group create(String cookie) throws IOException {
        List<Path> made = new ArrayList<>();
        try {
            for (Path parent : parents) {
                Path g = parent.resolve(PREFIX + cookie);
                Files.createDirectory(g);
                made.add(g);
            }
            String name = PREFIX + cookie;
            Path memory = memoryParent == null ? null : memoryParent.resolve(name);
            Path cpu = cpuParent == null ? null : cpuParent.resolve(name);
            Group group = new Group(made, pidsParent == null ? null : pidsParent.resolve(name),
                    memory == null ? null : new Counter(memory.resolve(memoryV1 ? "memory.oom_control"
                            : "memory.events"), "oom_kill ", 1),
                    cpu == null ? null : cpuV1 ? new Counter(cpu.resolve("cpu.stat"), "throttled_time ", 1000)
                            : new Counter(cpu.resolve("cpu.stat"), "throttled_usec ", 1));
            if (maxProcesses > 0) {
                write(group.pids().resolve("pids.max"), Integer.toString(maxProcesses));
            }
            if (maxMemory > 0) {
                capMemory(memory);
            }
            if (maxCpus > 0) {
                capCpu(cpu);
            }
            return group;
        } catch (IOException | RuntimeException e) {
            made.forEach(JobControlGroups::remove);
            throw e;
        }
    }

    /** Writes the memory cap, and no swap beyond it where the kernel accounts swap. */
    private void capMemory(Path g) throws IOException {
        String bytes = Long.toString(maxMemory);
        if (memoryV1) {
            write(g.resolve("memory.limit_in_bytes"), bytes);
            Path memsw = g.resolve("memory.memsw.limit_in_bytes");   // memory and swap together: no more than memory
            if (Files.exists(memsw)) {
                write(memsw, bytes);
            }
        } else {
            write(g.resolve("memory.max"), bytes);
            Path swap = g.resolve("memory.swap.max");
            if (Files.exists(swap)) {
                write(swap, "0");
            }
        }
    }

    /** Writes the CPU cap: so many microseconds of CPU time in every period of {@link #CPU_PERIOD_MICROS}. */
    private void capCpu(Path g) throws IOException {
        long quota = Math.max(1000, Math.round(maxCpus * CPU_PERIOD_MICROS));
        if (cpuV1) {
            write(g.resolve("cpu.cfs_period_us"), Long.toString(CPU_PERIOD_MICROS));
            write(g.resolve("cpu.cfs_quota_us"), Long.toString(quota));
        } else {
            write(g.resolve("cpu.max"), quota + " " + CPU_PERIOD_MICROS);
        }
    }

    private static void write(Path file, String value) throws IOException {
        Files.writeString(file, value, StandardCharsets.US_ASCII);
    }

    /** The number on the line of a flat-keyed file that starts with a key; 0 when absent or unreadable. */
    private static long counter(Path file, String key) {
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
                if (line.startsWith(key)) {
                    return Long.parseLong(line.substring(key.length()).strip());
                }
            }
        } catch (IOException | RuntimeException e) {
            // no such controller, or the group is gone
        }
        return 0;
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
        return counter(group.resolve("pids.events"), "max ");
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
        for (Path parent : parents) {
            removed += sweepStale(parent);
        }
        if (removed > 0) {
            LOG.warn("Removed {} control group(s) of jobs whose JVM ended without ending them, in {}", removed,
                    parents());
        }
        return removed;
    }

    private static int sweepStale(Path parent) {
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
        return removed;
    }
}
