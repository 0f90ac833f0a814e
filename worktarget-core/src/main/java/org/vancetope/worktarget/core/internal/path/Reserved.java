package org.vancetope.worktarget.core.internal.path;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names of the library's own transient entries inside a root: staged files ({@code .part}) and
 * directories being made ({@code .dir}). A name carries its owner — a short hash of the host name, the
 * process id and the process start time — so a sweep can tell the leftovers of a dead process (a
 * {@code kill -9} in the middle of a transfer) from the entries of a live one, in this JVM or another.
 *
 * <pre>{@code
 * .wt-3f2a.48213.lx8k2c1-9c1e4b7d0a5f3e21.part
 *      host  pid   start   random          kind
 * }</pre>
 *
 * <p>Every listing of a root hides these names, and the gate refuses them as paths, so no tool result
 * ever shows one. Also reserved: {@code .wt-<16 hex>.tmp}, the temporary files of earlier versions. The
 * owner part alone ({@link #owner()}) names a process's job output directory in {@code .worktarget/exec}.
 */
public final class Reserved {
    /** The prefix of every reserved name. */
    public static final String PREFIX = ".wt-";
    /** The suffix of a staged file. */
    public static final String FILE = ".part";
    /** The suffix of a directory being made. */
    public static final String DIR = ".dir";

    private static final Pattern NAME = Pattern.compile(
            "\\.wt-([0-9a-f]{4})\\.([0-9]{1,10})\\.([0-9a-z]{1,13})-[0-9a-f]{16}\\.(part|dir)");
    private static final Pattern OWNER_NAME = Pattern.compile("([0-9a-f]{4})\\.([0-9]{1,10})\\.([0-9a-z]{1,13})");
    private static final Pattern LEGACY = Pattern.compile("\\.wt-[0-9a-f]{16}\\.tmp");
    /** The prefix of a resumable transfer's kept entries ({@code transfer.resume}). */
    private static final String RESUMABLE_PREFIX = PREFIX + "r-";
    private static final Pattern RESUMABLE = Pattern.compile("\\.wt-r-[0-9a-f]{32}\\.(part|resume|resume-new)");
    /** The suffix of a resumable transfer's sidecar, which says what the kept prefix is of. */
    public static final String SIDECAR = ".resume";
    /** The suffix of a sidecar being written (renamed over {@link #SIDECAR} when complete). */
    public static final String SIDECAR_NEW = ".resume-new";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String HOST = hostTag();
    private static final long PID = ProcessHandle.current().pid();
    private static final String START = startTag(ProcessHandle.current());
    private static final String OWNER = HOST + "." + PID + "." + START;

    private Reserved() {
    }

    /**
     * A new reserved name owned by this process.
     *
     * @param suffix {@link #FILE} or {@link #DIR}
     * @return the name
     */
    static String newName(String suffix) {
        return name(OWNER, suffix);
    }

    /**
     * The reserved name an entry of another process of this host would get (for tools that inspect or
     * prepare leftovers, and tests); its start time is unknown, so only the process id decides whether
     * it is stale.
     *
     * @param pid the process id
     * @param suffix {@link #FILE} or {@link #DIR}
     * @return the name
     */
    public static String nameOfProcess(long pid, String suffix) {
        return name(ownerOfProcess(pid), suffix);
    }

    /**
     * The owner name of another process of this host, as {@link #owner()} is this process's; its start
     * time is unknown, so only the process id decides whether it is stale.
     *
     * @param pid the process id
     * @return {@code <host>.<pid>.0}
     */
    public static String ownerOfProcess(long pid) {
        return HOST + "." + pid + ".0";
    }

    private static String name(String owner, String suffix) {
        byte[] b = new byte[8];
        RANDOM.nextBytes(b);
        return PREFIX + owner + "-" + HexFormat.of().formatHex(b) + suffix;
    }

    /**
     * Whether a name is one of the library's own transient entries.
     *
     * @param name an entry name
     * @return true for a reserved name
     */
    public static boolean isReserved(String name) {
        return name.startsWith(PREFIX) && (NAME.matcher(name).matches() || LEGACY.matcher(name).matches()
                || RESUMABLE.matcher(name).matches());
    }

    /**
     * The name of a resumable transfer's kept entry ({@code transfer.resume}): the same for every process,
     * so that a restarted receiver finds the staging file and sidecar of a transfer by its id. These
     * entries have no owner process: they are never stale by {@link #isStale}; their retention time
     * decides when they go.
     *
     * @param transferId the transfer id
     * @param suffix {@link #FILE}, {@link #SIDECAR} or {@link #SIDECAR_NEW}
     * @return {@code .wt-r-<32 hex of the id's SHA-256><suffix>}
     */
    public static String resumableName(String transferId, String suffix) {
        try {
            byte[] h = java.security.MessageDigest.getInstance("SHA-256").digest(transferId.getBytes(StandardCharsets.UTF_8));
            return RESUMABLE_PREFIX + HexFormat.of().formatHex(h, 0, 16) + suffix;
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    /**
     * Whether a name is a resumable transfer's kept entry ({@link #resumableName}).
     *
     * @param name an entry name
     * @return true for a staging file or sidecar of a resumable transfer
     */
    public static boolean isResumable(String name) {
        return name.startsWith(RESUMABLE_PREFIX) && RESUMABLE.matcher(name).matches();
    }

    /**
     * Whether a reserved name belongs to a process of this host that no longer runs (or is a legacy
     * temporary file). Names of other hosts are never stale: their owner cannot be checked from here.
     *
     * @param name an entry name
     * @return true when it may be deleted
     */
    static boolean isStale(String name) {
        if (LEGACY.matcher(name).matches()) {
            return true;
        }
        Matcher m = NAME.matcher(name);
        return m.matches() && isStale(m.group(1), m.group(2), m.group(3));
    }

    /**
     * This process as an owner: {@code <host>.<pid>.<start>}, the name of its job output directory.
     *
     * @return the owner
     */
    public static String owner() {
        return OWNER;
    }

    /**
     * Whether an owner ({@code <host>.<pid>.<start>}, see {@link #owner()}) is a process of this host
     * that no longer runs. Anything else (another host, not an owner at all) is not stale. The one test of
     * whether what a process left (staging entries, job output, its jobs, its RootDirs, a warm-up's
     * directory) outlived it.
     *
     * @param owner a name
     * @return true when what it owns may be deleted
     */
    public static boolean isStaleOwner(String owner) {
        Matcher m = OWNER_NAME.matcher(owner);
        return m.matches() && isStale(m.group(1), m.group(2), m.group(3));
    }

    private static boolean isStale(String host, String pidText, String startTag) {
        if (!host.equals(HOST)) {
            return false;
        }
        long pid;
        try {
            pid = Long.parseLong(pidText);
        } catch (NumberFormatException e) {
            return false;
        }
        if (pid == PID) {
            return !startTag.equals(START);
        }
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        if (p.isEmpty()) {
            return true;
        }
        String start = startTag(p.get());
        // A process of that id runs; it is the owner unless its start time proves otherwise.
        return !start.equals("0") && !startTag.equals("0") && !start.equals(startTag);
    }

    private static String startTag(ProcessHandle p) {
        return p.info().startInstant().map(Instant::toEpochMilli).map(ms -> Long.toString(ms / 1000, 36)).orElse("0");
    }

    private static String hostTag() {
        // The kernel's host name as the system keeps it, the same for every process of this machine (no name
        // lookup: it may stall where there is no DNS; no environment variable: not every process has it).
        String host = null;
        for (String file : new String[] {"/proc/sys/kernel/hostname", "/etc/hostname"}) {
            try {
                host = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
            } catch (IOException | RuntimeException e) {
                continue;
            }
            if (!host.isEmpty()) {
                break;
            }
        }
        if (host == null || host.isEmpty()) {
            host = System.getenv().getOrDefault("COMPUTERNAME", "localhost");
        }
        byte[] h = host.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8);
        int hash = 0x811c9dc5;
        for (byte x : h) {
            hash = (hash ^ (x & 0xff)) * 0x01000193;
        }
        return String.format("%04x", (hash ^ (hash >>> 16)) & 0xffff);
    }
}
