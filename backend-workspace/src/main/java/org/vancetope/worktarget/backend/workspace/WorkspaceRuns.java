package org.vancetope.worktarget.backend.workspace;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runs of backends on one workspace: each backend built with {@code processesEndWithJvm} holds an
 * exclusive lock on its own file {@code <workspace>/.runs/<run>.lock} for as long as it is open. The
 * operating system drops that lock when the JVM ends, however it ends (SIGKILL, out of memory), so a later
 * backend can tell a run that ended from one that is still open in another JVM, and remove what the
 * ended run's processes left.
 *
 * <p>A lock file is created under a temporary name, locked, and only then renamed into place: a visible
 * {@code <run>.lock} is always locked while its run is open, and a missing one means the run ended. The
 * runs of this JVM are known without touching their files: on Linux, closing any channel of a file
 * releases every lock this JVM holds on it, so a file locked by this JVM is never opened a second time.
 *
 * <p>Only on the default file system: a workspace on an in-memory file system (Jimfs) ends with its JVM,
 * and file locks there prove nothing.
 */
final class WorkspaceRuns implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkspaceRuns.class);
    /** The directory, in the workspace root, that holds the runs' lock files (no tenant may start with '.'). */
    static final String DIR = ".runs";
    private static final String SUFFIX = ".lock";
    private static final Set<String> OPEN_IN_THIS_JVM = ConcurrentHashMap.newKeySet();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String run;
    private final Path file;
    private final FileChannel channel;

    private WorkspaceRuns(String run, Path file, FileChannel channel) {
        this.run = run;
        this.file = file;
        this.channel = channel;
    }

    /**
     * Starts a run on a workspace: its lock file is created and locked.
     *
     * @param root the canonical workspace root
     * @return the run, or null when the workspace is not on the default file system or its {@code .runs}
     *     directory cannot be used (logged: then nothing is marked, and nothing is removed)
     */
    static WorkspaceRuns start(Path root) {
        if (root.getFileSystem() != FileSystems.getDefault()) {
            return null;
        }
        String run = HexFormat.of().formatHex(bytes());
        Path dir = root.resolve(DIR);
        Path staged = dir.resolve("." + run + ".tmp");
        FileChannel channel = null;
        try {
            directory(dir);
            channel = FileChannel.open(staged, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS);
            FileLock lock = channel.tryLock();
            if (lock == null) {
                throw new IOException("the new lock file " + staged + " is locked by another process");
            }
            String who = "pid " + ProcessHandle.current().pid() + " on " + hostName() + ", started " + Instant.now()
                    + "\n";
            channel.write(ByteBuffer.wrap(who.getBytes(StandardCharsets.UTF_8)));
            Path file = dir.resolve(run + SUFFIX);
            Files.move(staged, file, StandardCopyOption.ATOMIC_MOVE);
            OPEN_IN_THIS_JVM.add(run);
            return new WorkspaceRuns(run, file, channel);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Cannot record this run in {} ({}): the temporary RootDirs of its processes will not be removed "
                    + "by a later run should this one end without ending them (killed); delete them by hand then.",
                    dir, e.toString());
            if (channel != null) {
                try {
                    channel.close();
                    Files.deleteIfExists(staged);
                } catch (IOException suppressed) {
                    LOG.debug("Cleaning up {} failed", staged, suppressed);
                }
            }
            return null;
        }
    }

    private static byte[] bytes() {
        byte[] b = new byte[8];
        RANDOM.nextBytes(b);
        return b;
    }

    private static void directory(Path dir) throws IOException {
        try {
            Files.createDirectory(dir);
        } catch (java.nio.file.FileAlreadyExistsException e) {
            BasicFileAttributes a = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isDirectory()) {
                throw new IOException(dir + " is not a directory (a link or a file)", e);
            }
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException | SecurityException e) {
            return "an unnamed host";
        }
    }

    /** This run's id, written into the descriptors of the RootDirs that go with their creator. */
    String run() {
        return run;
    }

    /**
     * Whether another run has ended: it is not open in this JVM, and its lock file is missing or no
     * process holds its lock. A run that cannot be judged (the file cannot be opened) has not ended.
     *
     * @param root the canonical workspace root
     * @param other the other run's id, from a descriptor
     * @return true when it has ended
     */
    static boolean ended(Path root, String other) {
        if (OPEN_IN_THIS_JVM.contains(other) || !isRunId(other)) {
            return false;
        }
        Path f = root.resolve(DIR).resolve(other + SUFFIX);
        try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            FileLock lock = c.tryLock();
            if (lock == null) {
                return false;
            }
            lock.release();
            return true;
        } catch (NoSuchFileException e) {
            return true;
        } catch (IOException | OverlappingFileLockException e) {
            LOG.debug("Cannot tell whether run {} of the workspace ended: {}", other, e.toString());
            return false;
        }
    }

    /**
     * Deletes the lock files of runs that ended (after their RootDirs were removed) and the temporary files
     * of runs that ended while starting.
     *
     * @param root the canonical workspace root
     */
    static void forgetEnded(Path root) {
        Path dir = root.resolve(DIR);
        if (root.getFileSystem() != FileSystems.getDefault() || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                String id = name.startsWith(".") && name.endsWith(".tmp") ? name.substring(1, name.length() - 4)
                        : name.endsWith(SUFFIX) ? name.substring(0, name.length() - SUFFIX.length()) : null;
                // a run that is starting creates its temporary file and then locks it: one younger than a
                // minute may be in between
                boolean young = name.endsWith(".tmp") && Files.getLastModifiedTime(f, LinkOption.NOFOLLOW_LINKS)
                        .toInstant().isAfter(Instant.now().minusSeconds(60));
                if (id != null && isRunId(id) && !young && !OPEN_IN_THIS_JVM.contains(id) && unlocked(f)) {
                    Files.deleteIfExists(f);
                }
            }
        } catch (IOException e) {
            LOG.debug("Cleaning up {} failed: {}", dir, e.toString());
        }
    }

    /** No process holds the file's lock (it is locked for the check, and released). */
    private static boolean unlocked(Path f) {
        try (FileChannel c = FileChannel.open(f, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            FileLock lock = c.tryLock();
            if (lock != null) {
                lock.release();
                return true;
            }
            return false;
        } catch (IOException | OverlappingFileLockException e) {
            return false;
        }
    }

    private static boolean isRunId(String s) {
        return s.length() == 16 && s.chars().allMatch(ch -> ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f');
    }

    /** Ends this run: its lock file is deleted and its lock released. */
    @Override
    public void close() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.debug("Deleting {} failed: {}", file, e.toString());
        }
        try {
            channel.close();
        } catch (IOException e) {
            LOG.debug("Closing {} failed: {}", file, e.toString());
        }
        OPEN_IN_THIS_JVM.remove(run);
    }
}
