package org.vancetope.worktarget.core.internal.path;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * An open directory inside a {@link ConfinedRoot}, so that operations on its entries cannot be
 * redirected by a component swapped for a symlink after the root's check. Only a confined root opens
 * one.
 *
 * <p>Where the file system offers {@link SecureDirectoryStream} (Linux, Jimfs), the directory is
 * reached from the root one component at a time with {@link LinkOption#NOFOLLOW_LINKS}, and every
 * entry operation is relative to that open directory ({@code openat}, {@code renameat},
 * {@code unlinkat}). Elsewhere it falls back to path operations with {@code NOFOLLOW_LINKS} on the
 * last component. It never follows a link in the last component.
 *
 * <p>{@link #names()} hides the library's own entries (the {@value ConfinedRoot#INTERNAL_DIR}
 * directory at the top of the root and {@linkplain Reserved reserved} staging names everywhere);
 * {@link #allNames()} is for the library's own maintenance.
 */
public final class SafeDirectory implements Closeable {
    private static final Set<OpenOption> READ_NOFOLLOW = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    private static final Set<OpenOption> CREATE_NOFOLLOW = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
            LinkOption.NOFOLLOW_LINKS);
    /**
     * The most levels {@link #deleteTree} descends in one pass (one open handle per level); deeper parts are
     * moved up and deleted by later passes. Small, since the JDK's work per level grows with its path's length.
     */
    static final int MAX_DELETE_DEPTH = 512;
    /** The deepest level {@link #treeSize} counts (one open handle per level). */
    static final int MAX_WALK_OPEN = 4096;
    /** What the owner of a directory needs to empty it. */
    private static final Set<PosixFilePermission> OWNER_RWX = EnumSet.of(PosixFilePermission.OWNER_READ,
            PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);
    /** Mode 0700, for directories no other user of the machine may enter (tenants' HOMEs and RootDirs). */
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
    /** Serialises "is the name free? then rename into it" between threads of this JVM (renameat replaces an empty directory). */
    private static final Object[] NAME_LOCKS = new Object[64];

    static {
        for (int i = 0; i < NAME_LOCKS.length; i++) {
            NAME_LOCKS[i] = new Object();
        }
    }

    private final ConfinedRoot owner;
    private final Path path;
    private final SecureDirectoryStream<Path> sds;
    private final boolean isRoot;
    private boolean listed;

    private SafeDirectory(ConfinedRoot owner, Path path, SecureDirectoryStream<Path> sds) {
        this.owner = owner;
        this.path = path;
        this.sds = sds;
        this.isRoot = path.equals(owner.root());
    }

    static SafeDirectory open(ConfinedRoot owner, Path dir) throws IOException {
        return walk(owner, dir, false);
    }

    static SafeDirectory openOrCreate(ConfinedRoot owner, Path dir) throws IOException {
        return walk(owner, dir, true, false);
    }

    static SafeDirectory openOrCreatePrivate(ConfinedRoot owner, Path dir) throws IOException {
        return walk(owner, dir, true, true);
    }

    private static SafeDirectory walk(ConfinedRoot owner, Path dir, boolean create) throws IOException {
        return walk(owner, dir, create, false);
    }

    /**
     * Reaches {@code dir} from the root one component at a time, never following a link; creates missing ones
     * when asked (with {@code ownerOnly}, readable, writable and searchable by this user alone).
     */
    private static SafeDirectory walk(ConfinedRoot owner, Path dir, boolean create, boolean ownerOnly)
            throws IOException {
        Path root = owner.root();
        if (!dir.startsWith(root)) {
            throw new IllegalArgumentException("not inside the root");
        }
        SafeDirectory current = openRootHandle(owner);
        try {
            Path rel = root.relativize(dir);
            if (!rel.toString().isEmpty()) {
                for (int i = 0; i < rel.getNameCount(); i++) {
                    String name = rel.getName(i).toString();
                    SafeDirectory next;
                    try {
                        next = current.openChild(name);
                    } catch (NoSuchFileException e) {
                        if (!create) {
                            throw e;
                        }
                        next = current.mkdir(name, ownerOnly);
                    }
                    current.close();
                    current = next;
                }
            }
        } catch (IOException | RuntimeException e) {
            current.close();
            throw e;
        }
        return current;
    }

    private static SafeDirectory openRootHandle(ConfinedRoot owner) throws IOException {
        Path root = owner.root();
        DirectoryStream<Path> ds = Files.newDirectoryStream(root);
        if (ds instanceof SecureDirectoryStream<Path> s) {
            return new SafeDirectory(owner, root, s);
        }
        ds.close();
        return new SafeDirectory(owner, root, null);
    }

    /**
     * Opens a subdirectory of this directory without following a link (used by walks, so that a
     * component swapped for a link while walking cannot redirect the walk).
     *
     * @param name the entry name
     * @return the open subdirectory; close it
     * @throws IOException when the entry is missing, not a directory, or a link
     */
    public SafeDirectory openChild(String name) throws IOException {
        return openChild(name(name));
    }

    /**
     * {@link #openChild(String)} for a name from {@link #entries()}.
     *
     * @param name the entry name as a one-component relative path
     * @return the open subdirectory; close it
     * @throws IOException when the entry is missing, not a directory, or a link
     */
    public SafeDirectory openChild(Path name) throws IOException {
        Path child = path.resolve(checkName(name));
        if (sds != null) {
            return new SafeDirectory(owner, child, sds.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS));
        }
        BasicFileAttributes a = Files.readAttributes(child, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isDirectory()) {
            throw new NotDirectoryException(name.toString());
        }
        return new SafeDirectory(owner, child, null);
    }

    /**
     * Creates a subdirectory and opens it, without ever creating it by a path that a concurrent change
     * could redirect. The JDK has no {@code mkdirat}, so the directory is made at the top of the root
     * under a {@linkplain Reserved reserved name} — the root's own path is trusted and only its last
     * component is new — and then renamed into this directory by handle ({@code renameat}). An
     * existing entry of that name is never replaced; an existing directory is opened instead.
     * When this directory is on another file system than the root (a mount point inside the root), the
     * top of the root is not writable, or the platform has no directory handles, it falls back to
     * creating it by path.
     *
     * @param name the new directory's name
     * @return the open directory; close it
     * @throws IOException when an entry of that name is not a directory, or it cannot be created
     */
    public SafeDirectory mkdir(String name) throws IOException {
        return mkdir(name, false);
    }

    /**
     * Creates a subdirectory as {@link #mkdir(String)} does; with {@code ownerOnly} a new one gets mode 0700
     * where the file system has POSIX permissions (an existing one is opened as it is).
     *
     * @param name the new directory's name
     * @param ownerOnly whether only this user may enter and read it
     * @return the open directory; close it
     * @throws IOException when an entry of that name is not a directory, or it cannot be created
     */
    public SafeDirectory mkdir(String name, boolean ownerOnly) throws IOException {
        FileAttribute<?>[] attrs = ownerOnly && path.getFileSystem().supportedFileAttributeViews().contains("posix")
                ? new FileAttribute<?>[] {OWNER_ONLY} : new FileAttribute<?>[0];
        if (sds == null || isRoot) {
            // At the top of the root (trusted path, only the last component is new) a path mkdir is race-free.
            try {
                Files.createDirectory(path.resolve(name), attrs);
            } catch (FileAlreadyExistsException e) {
                // made meanwhile: open what is there (not following a link)
            }
            return openChild(name);
        }
        String made = Reserved.newName(Reserved.DIR);
        try {
            Files.createDirectory(owner.root().resolve(made), attrs);
        } catch (AccessDeniedException readOnlyTop) {
            // The top of the root is not writable: create it by path here (the weaker fallback, as across a mount).
            try {
                Files.createDirectory(path.resolve(name), attrs);
            } catch (FileAlreadyExistsException e) {
                // made meanwhile
            }
            return openChild(name);
        }
        try (SafeDirectory top = openRootHandle(owner)) {
            try {
                if (!top.attributes(made).isDirectory()) {
                    throw new FileSystemException(made, null, "the new directory was replaced while it was made");
                }
                synchronized (NAME_LOCKS[Math.floorMod(path.hashCode() * 31 + name.hashCode(), NAME_LOCKS.length)]) {
                    if (!exists(name)) {
                        try {
                            top.sds.move(name(made), sds, name(name));
                        } catch (AtomicMoveNotSupportedException crossDevice) {
                            Files.createDirectory(path.resolve(name), attrs);
                        } catch (FileAlreadyExistsException lost) {
                            // made meanwhile by someone else: open theirs
                        }
                    }
                }
            } finally {
                try {
                    top.sds.deleteDirectory(name(made));
                } catch (NoSuchFileException moved) {
                    // renamed into place, as intended
                }
            }
        }
        return openChild(name);
    }

    private boolean exists(String name) throws IOException {
        try {
            attributes(name);
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    /**
     * The directory's validated path.
     *
     * @return the path
     */
    public Path path() {
        return path;
    }

    /**
     * Whether entry operations are relative to an open directory handle (no path re-resolution).
     *
     * @return true with {@link SecureDirectoryStream}
     */
    public boolean secure() {
        return sds != null;
    }

    private Path name(String name) {
        return path.getFileSystem().getPath(name);
    }

    /**
     * A name given as a path must be one component of this directory: relative, of this file system, not
     * {@code "."} or {@code ".."} (an absolute path would make the directory handle irrelevant).
     */
    private Path checkName(Path name) {
        String s = name.toString();
        if (name.getFileSystem() != path.getFileSystem() || name.isAbsolute() || s.isEmpty() || s.equals(".")
                || s.equals("..") || s.indexOf('/') >= 0 || s.contains(path.getFileSystem().getSeparator())) {
            throw new IllegalArgumentException("not an entry name: " + name);
        }
        return name;
    }

    /**
     * Attributes of an entry, not following a link.
     *
     * @param name the entry name
     * @return the attributes
     * @throws IOException {@link NoSuchFileException} when missing
     */
    public BasicFileAttributes attributes(String name) throws IOException {
        return attributes(name(name));
    }

    /**
     * {@link #attributes(String)} for a name from {@link #entries()}.
     *
     * @param name the entry name as a one-component relative path
     * @return the attributes
     * @throws IOException {@link NoSuchFileException} when missing
     */
    public BasicFileAttributes attributes(Path name) throws IOException {
        checkName(name);
        if (sds != null) {
            return sds.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes();
        }
        return Files.readAttributes(path.resolve(name), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Attributes of this directory itself.
     *
     * @return the attributes
     * @throws IOException on failure
     */
    public BasicFileAttributes attributes() throws IOException {
        if (sds != null) {
            return sds.getFileAttributeView(BasicFileAttributeView.class).readAttributes();
        }
        return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Opens an entry as a byte channel, never following a link.
     *
     * @param name the entry name
     * @param options open options; {@link LinkOption#NOFOLLOW_LINKS} is added
     * @return the channel
     * @throws IOException on failure
     */
    public SeekableByteChannel newByteChannel(String name, Set<? extends OpenOption> options) throws IOException {
        Set<OpenOption> opts = new HashSet<>(options);
        opts.add(LinkOption.NOFOLLOW_LINKS);
        return watchedOpen(name(name), opts);
    }

    /**
     * Opens an entry (options include {@link LinkOption#NOFOLLOW_LINKS}) while {@link OpenWatch} frees
     * the open should it wait on a FIFO, and refuses what cannot seek: a FIFO put in place of the file
     * after it was checked (a job can swap entries at any time) is never read from or written to, since
     * that could wait forever too.
     */
    private SeekableByteChannel watchedOpen(Path name, Set<? extends OpenOption> opts) throws IOException {
        SeekableByteChannel ch;
        OpenWatch.Slot slot = OpenWatch.begin(this, name);
        try {
            ch = openUnwatched(name, opts);
        } finally {
            slot.end();
        }
        try {
            ch.position();      // lseek: a pipe cannot seek (ESPIPE), a regular file always can
        } catch (ClosedChannelException interrupted) {
            throw interrupted;  // the thread was interrupted (the call cancelled): the channel is closed
        } catch (IOException notAFile) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // refused anyway
            }
            throw new SpecialFileException(path.resolve(name).toString());
        }
        return ch;
    }

    /**
     * Opens an entry without the watch (the watcher's own open of a FIFO's other end).
     *
     * @param name the entry name as a one-component relative path
     * @param opts the options, {@link LinkOption#NOFOLLOW_LINKS} among them
     * @return the channel
     * @throws IOException on failure
     */
    SeekableByteChannel openUnwatched(Path name, Set<? extends OpenOption> opts) throws IOException {
        try {
            if (sds != null) {
                return sds.newByteChannel(name, opts);
            }
            return Files.newByteChannel(path.resolve(name), opts);
        } catch (FileSystemException e) {
            throw e;
        } catch (IOException e) {
            // the JDK reports O_NOFOLLOW's ELOOP (the entry is a link) as a plain IOException: say what it is
            if (opts.contains(LinkOption.NOFOLLOW_LINKS) && isLink(name)) {
                throw new FileSystemException(path.resolve(name).toString(), null, "a symbolic link, not followed");
            }
            throw e;
        }
    }

    private boolean isLink(Path name) {
        try {
            BasicFileAttributeView v = sds != null
                    ? sds.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    : Files.getFileAttributeView(path.resolve(name), BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
            return v != null && v.readAttributes().isSymbolicLink();
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Creates a new file for writing; fails when the name exists (also as a link).
     *
     * @param name the entry name
     * @return the channel
     * @throws IOException {@link FileAlreadyExistsException} when it exists
     */
    public SeekableByteChannel createFile(String name) throws IOException {
        if (sds != null) {
            return sds.newByteChannel(name(name), CREATE_NOFOLLOW);
        }
        return Files.newByteChannel(path.resolve(name), CREATE_NOFOLLOW);
    }

    /**
     * Opens an entry for reading.
     *
     * @param name the entry name
     * @return the channel
     * @throws IOException on failure
     */
    public SeekableByteChannel openRead(String name) throws IOException {
        return openRead(name(name));
    }

    /**
     * {@link #openRead(String)} for a name from {@link #entries()}.
     *
     * @param name the entry name as a one-component relative path
     * @return the channel
     * @throws IOException on failure
     */
    public SeekableByteChannel openRead(Path name) throws IOException {
        checkName(name);
        return watchedOpen(name, READ_NOFOLLOW);
    }

    /**
     * The POSIX permissions of an entry, when the file system has them.
     *
     * @param name the entry name
     * @return the permissions, or null when not supported
     * @throws IOException on failure
     */
    public Set<PosixFilePermission> posixPermissions(String name) throws IOException {
        PosixFileAttributeView v = posixView(name);
        return v == null ? null : v.readAttributes().permissions();
    }

    /**
     * Sets the POSIX permissions of an entry, when the file system has them.
     *
     * @param name the entry name
     * @param perms the permissions
     * @throws IOException on failure
     */
    public void setPosixPermissions(String name, Set<PosixFilePermission> perms) throws IOException {
        PosixFileAttributeView v = posixView(name);
        if (v != null) {
            v.setPermissions(perms);
        }
    }

    /**
     * Sets the modification time of an entry.
     *
     * @param name the entry name
     * @param mtime the time
     * @throws IOException on failure
     */
    public void setLastModifiedTime(String name, FileTime mtime) throws IOException {
        BasicFileAttributeView v = sds != null
                ? sds.getFileAttributeView(name(name), BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                : Files.getFileAttributeView(path.resolve(name), BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        v.setTimes(mtime, null, null);
    }

    private PosixFileAttributeView posixView(String name) {
        if (!path.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            return null;
        }
        if (sds != null) {
            return sds.getFileAttributeView(name(name), PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        }
        return Files.getFileAttributeView(path.resolve(name), PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Renames an entry of this directory into another open directory (or this one), atomically,
     * replacing an existing file of the target name ({@code renameat}).
     *
     * @param from the source name here
     * @param target the target directory (of the same root's file system)
     * @param to the target name
     * @throws AtomicMoveNotSupportedException when the two directories are on different file systems
     * @throws IOException on failure
     */
    public void moveTo(String from, SafeDirectory target, String to) throws IOException {
        if (sds != null && target.sds != null) {
            try {
                sds.move(name(from), target.sds, name(to));
                return;
            } catch (FileAlreadyExistsException e) {
                // Some providers (Jimfs) do not replace in SecureDirectoryStream.move; fall through.
            }
        }
        Files.move(path.resolve(from), target.path.resolve(to), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Moves an entry of this directory into another open directory of the same root (or this one) for
     * {@code file_move}: atomically by directory handle ({@code renameat}) where the platform has
     * handles, else by {@link Files#move} with {@link StandardCopyOption#ATOMIC_MOVE}; only when the file
     * system cannot rename atomically (the two directories are on different file systems) by a plain
     * {@link Files#move}. Without {@code replace} an existing target name is never replaced, also not an
     * empty directory (checked and renamed under the same lock as {@link #renameNoReplace}); with it, the
     * caller has checked that the target is a regular file.
     *
     * @param from the source name here
     * @param target the target directory
     * @param to the target name there
     * @param replace whether an existing regular file {@code to} is replaced
     * @return true when the move was atomic, false when the fallback copied and deleted
     * @throws FileAlreadyExistsException when {@code to} exists and {@code replace} is false
     * @throws IOException on failure
     */
    public boolean move(String from, SafeDirectory target, String to, boolean replace) throws IOException {
        Path source = path.resolve(from);
        Path dest = target.path.resolve(to);
        synchronized (NAME_LOCKS[Math.floorMod(target.path.hashCode() * 31 + to.hashCode(), NAME_LOCKS.length)]) {
            if (!replace && target.exists(to)) {
                throw new FileAlreadyExistsException(to);
            }
            try {
                // A link is moved by path (the link itself, never its target): Jimfs's SecureDirectoryStream.move
                // fails half-way on a link as its source.
                if (sds != null && target.sds != null && !attributes(from).isSymbolicLink()) {
                    try {
                        sds.move(name(from), target.sds, name(to));
                        return true;
                    } catch (FileAlreadyExistsException e) {
                        if (!replace) {
                            throw e;
                        }
                        // Some providers (Jimfs) do not replace in SecureDirectoryStream.move; fall through.
                    }
                }
                if (replace) {
                    Files.move(source, dest, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } else {
                    Files.move(source, dest, StandardCopyOption.ATOMIC_MOVE);
                }
                return true;
            } catch (AtomicMoveNotSupportedException e) {
                if (replace) {
                    Files.move(source, dest, StandardCopyOption.REPLACE_EXISTING, LinkOption.NOFOLLOW_LINKS);
                } else {
                    Files.move(source, dest, LinkOption.NOFOLLOW_LINKS);
                }
                return false;
            }
        }
    }

    /**
     * Renames an entry over another in this directory, atomically, replacing the target.
     *
     * @param from the source name
     * @param to the target name
     * @throws IOException on failure
     */
    public void replace(String from, String to) throws IOException {
        moveTo(from, this, to);
    }

    /**
     * Renames an entry to a name that must be free: never replaces anything, also not an empty
     * directory (serialised against other renames of this JVM into the same name).
     *
     * @param from the source name here
     * @param to the new name here
     * @throws FileAlreadyExistsException when {@code to} exists
     * @throws IOException on failure
     */
    public void renameNoReplace(String from, String to) throws IOException {
        synchronized (NAME_LOCKS[Math.floorMod(path.hashCode() * 31 + to.hashCode(), NAME_LOCKS.length)]) {
            if (exists(to)) {
                throw new FileAlreadyExistsException(to);
            }
            if (sds != null) {
                sds.move(name(from), sds, name(to));
            } else {
                Files.move(path.resolve(from), path.resolve(to), StandardCopyOption.ATOMIC_MOVE);
            }
        }
    }

    /**
     * Deletes a non-directory entry (a link is deleted itself, never its target).
     *
     * @param name the entry name
     * @throws IOException {@link NoSuchFileException} when missing
     */
    public void deleteFile(String name) throws IOException {
        if (sds != null) {
            sds.deleteFile(name(name));
            return;
        }
        BasicFileAttributes a = attributes(name);
        if (a.isDirectory()) {
            throw new FileSystemException(name, null, "is a directory");
        }
        Files.delete(path.resolve(name));
    }

    /**
     * Deletes an empty directory entry.
     *
     * @param name the entry name
     * @throws IOException {@link java.nio.file.DirectoryNotEmptyException} when not empty
     */
    public void deleteDirectory(String name) throws IOException {
        if (sds != null) {
            sds.deleteDirectory(name(name));
            return;
        }
        BasicFileAttributes a = attributes(name);
        if (!a.isDirectory()) {
            throw new NotDirectoryException(name);
        }
        Files.delete(path.resolve(name));
    }

    /**
     * Deletes an entry and, when it is a directory, everything below it, one open directory handle per
     * level: links are deleted themselves, and a directory swapped for a link meanwhile is not entered
     * (its removal then fails instead). Iterative, so a deep tree cannot overflow the stack; a tree deeper
     * than {@value #MAX_DELETE_DEPTH} levels is deleted in passes (what lies deeper is moved up into its top).
     *
     * @param name the entry name
     * @return true when something was deleted, false when it was missing
     * @throws IOException when an entry cannot be deleted
     */
    public boolean deleteTree(String name) throws IOException {
        BasicFileAttributes a;
        try {
            a = entryAttributes(this, name);
        } catch (NoSuchFileException e) {
            return false;
        }
        if (!a.isDirectory()) {
            deleteFile(name);
            return true;
        }
        Deque<Level> stack = new ArrayDeque<>();
        try {
            letOwnerEmpty(this, name, a);
            boolean again = true;
            while (again) {
                again = false;
                SafeDirectory top = openChild(name);
                stack.push(new Level(top, top.allNames().iterator()));
                again = deletePass(stack);
            }
        } finally {
            for (Level l : stack) {
                ConfinedRoot.closeQuietly(l.dir());
            }
        }
        return true;
    }

    /** One level of {@link #deleteTree}'s walk: an open directory and the names of it still to delete. */
    private record Level(SafeDirectory dir, Iterator<String> names) {
    }

    /**
     * One pass of {@link #deleteTree} over the tree whose top is the only level on the stack. A directory
     * at {@value #MAX_DELETE_DEPTH} levels (as deep as handles are held open) is moved up into the top under
     * a reserved name instead; then the top stays and the pass says so, for another pass to delete it.
     *
     * @return true when the top stays for another pass
     */
    private boolean deletePass(Deque<Level> stack) throws IOException {
        boolean movedUp = false;
        while (!stack.isEmpty()) {
            Level level = stack.peek();
            if (!level.names().hasNext()) {
                stack.pop();
                level.dir().close();
                if (stack.isEmpty() && movedUp) {
                    return true;    // the top holds what was moved up into it
                }
                SafeDirectory parent = stack.isEmpty() ? this : stack.peek().dir();
                try {
                    parent.deleteDirectory(level.dir().path().getFileName().toString());
                } catch (NoSuchFileException gone) {
                    // removed meanwhile
                }
                continue;
            }
            String child = level.names().next();
            BasicFileAttributes ca;
            try {
                ca = entryAttributes(level.dir(), child);
            } catch (NoSuchFileException gone) {
                continue;
            }
            if (ca.isDirectory()) {
                if (stack.size() >= MAX_DELETE_DEPTH) {
                    // deeper than handles are held open: up into the top, where the next pass takes it
                    level.dir().moveTo(child, stack.peekLast().dir(), Reserved.newName(Reserved.DIR));
                    movedUp = true;
                    continue;
                }
                SafeDirectory sub;
                try {
                    letOwnerEmpty(level.dir(), child, ca);
                    sub = level.dir().openChild(child);
                } catch (NoSuchFileException gone) {
                    continue;
                }
                try {
                    stack.push(new Level(sub, sub.allNames().iterator()));
                } catch (IOException | RuntimeException e) {
                    sub.close();
                    throw e;
                }
            } else {
                try {
                    level.dir().deleteFile(child);
                } catch (NoSuchFileException gone) {
                    // removed meanwhile
                }
            }
        }
        return false;
    }

    /**
     * Makes a directory that its owner made read-only (a Go module cache, {@code chmod -R a-w}) readable,
     * writable and searchable by its owner, by handle, so that {@link #deleteTree} can empty it as
     * {@code rm -rf} cannot. A directory of another user, or one this process cannot change, stays as it
     * is, and the deletion then says what it could not delete.
     */
    private static void letOwnerEmpty(SafeDirectory parent, String dir, BasicFileAttributes attrs) {
        if (!(attrs instanceof PosixFileAttributes posix) || posix.permissions().containsAll(OWNER_RWX)) {
            return;
        }
        Set<PosixFilePermission> more = EnumSet.noneOf(PosixFilePermission.class);
        more.addAll(posix.permissions());
        more.addAll(OWNER_RWX);
        try {
            parent.setPosixPermissions(dir, more);
        } catch (IOException | UnsupportedOperationException e) {
            // not ours to change: deleting what is inside fails next, and says so
        }
    }

    /** An entry's attributes for {@link #deleteTree}, with its permissions where the file system has them. */
    private static BasicFileAttributes entryAttributes(SafeDirectory dir, String name) throws IOException {
        dir.checkName(dir.name(name));
        PosixFileAttributeView posix = dir.posixView(name);
        return posix != null ? posix.readAttributes() : dir.attributes(name);
    }

    /**
     * The bytes of the regular files in a subtree, walked by handle without following links, depth first
     * with one open handle per level (so any number of directories side by side is counted); what lies
     * deeper than {@value #MAX_WALK_OPEN} levels is not.
     *
     * @param name the entry name of a directory
     * @return the total size; unreadable parts are skipped
     * @throws IOException when the entry cannot be opened
     */
    public long treeSize(String name) throws IOException {
        long total = 0;
        Deque<Level> stack = new ArrayDeque<>();
        SafeDirectory top = openChild(name);
        try {
            stack.push(new Level(top, top.allNames().iterator()));
        } catch (IOException | RuntimeException e) {
            ConfinedRoot.closeQuietly(top);
            throw e;
        }
        try {
            while (!stack.isEmpty()) {
                Level level = stack.peek();
                if (!level.names().hasNext()) {
                    stack.pop().dir().close();
                    continue;
                }
                String n = level.names().next();
                BasicFileAttributes a;
                try {
                    a = level.dir().attributes(n);
                } catch (IOException e) {
                    continue;
                }
                if (a.isDirectory()) {
                    if (stack.size() < MAX_WALK_OPEN) {
                        SafeDirectory sub = null;
                        try {
                            sub = level.dir().openChild(n);
                            stack.push(new Level(sub, sub.allNames().iterator()));
                        } catch (IOException e) {
                            if (sub != null) {
                                ConfinedRoot.closeQuietly(sub);     // swapped or unreadable: not counted
                            }
                        }
                    }
                } else if (a.isRegularFile()) {
                    total += a.size();
                }
            }
        } finally {
            for (Level l : stack) {
                ConfinedRoot.closeQuietly(l.dir());
            }
        }
        return total;
    }

    /**
     * The names of the entries a tool may see, unsorted: without the library's internal directory at the
     * top of the root and without reserved staging names.
     *
     * @return the names
     * @throws IOException on failure
     */
    public List<String> names() throws IOException {
        return names(Integer.MAX_VALUE);
    }

    /**
     * Like {@link #names()}, but reads at most {@code limit} entries of the directory (hidden ones count),
     * for a look at a directory that may be huge.
     *
     * @param limit the most entries to read
     * @return the names, unsorted
     * @throws IOException on failure
     */
    public List<String> names(int limit) throws IOException {
        List<String> all = allNames(limit);
        all.removeIf(this::hidden);
        return all;
    }

    private boolean hidden(String name) {
        return (isRoot && name.equalsIgnoreCase(ConfinedRoot.INTERNAL_DIR)) || Reserved.isReserved(name);
    }

    /**
     * The entries {@link #names()} lists, each as a one-component relative path of this directory's file
     * system (the form in which the platform hands them out, so that a walk can pass them on to
     * {@link #attributes(Path)}, {@link #openRead(Path)} and {@link #openChild(Path)} without
     * converting each name twice); {@link Path#toString()} is the name.
     *
     * @return the entry names, unsorted
     * @throws IOException on failure
     */
    public List<Path> entries() throws IOException {
        List<Path> out = new ArrayList<>();
        if (sds != null && !listed) {
            listed = true;
            for (Path p : sds) {
                Path n = p.getFileName();
                if (!hidden(n.toString())) {
                    out.add(n);
                }
            }
            return out;
        }
        for (String n : names()) {
            out.add(name(n));
        }
        return out;
    }

    /**
     * The names of all entries, unsorted, the library's own included.
     *
     * @return the names
     * @throws IOException on failure
     */
    public List<String> allNames() throws IOException {
        return allNames(Integer.MAX_VALUE);
    }

    private List<String> allNames(int limit) throws IOException {
        List<String> out = new ArrayList<>();
        if (sds != null) {
            if (!listed) {
                listed = true;
                return addNames(sds, out, limit);
            }
            // A directory stream iterates once: list again through a new handle on the same directory.
            try (SecureDirectoryStream<Path> again = sds.newDirectoryStream(name("."), LinkOption.NOFOLLOW_LINKS)) {
                return addNames(again, out, limit);
            }
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(path)) {
            return addNames(ds, out, limit);
        }
    }

    private static List<String> addNames(Iterable<Path> stream, List<String> out, int limit) {
        for (Path p : stream) {
            if (out.size() >= limit) {
                break;
            }
            out.add(p.getFileName().toString());
        }
        return out;
    }

    /**
     * Whether this is the root of its confined root.
     *
     * @return true for the root
     */
    public boolean isRoot() {
        return isRoot;
    }

    @Override
    public void close() throws IOException {
        if (sds != null) {
            sds.close();
        }
    }
}
