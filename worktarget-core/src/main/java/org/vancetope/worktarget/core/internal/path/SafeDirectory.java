package org.vancetope.worktarget.core.internal.path;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A directory inside a gate's root, opened so that operations on its entries cannot be redirected by
 * a component swapped for a symlink after the gate's check.
 *
 * <p>Where the file system offers {@link SecureDirectoryStream} (Linux, Jimfs), the directory is
 * reached from the root one component at a time with {@link LinkOption#NOFOLLOW_LINKS}, and every
 * entry operation is relative to that open directory ({@code openat}, {@code renameat},
 * {@code unlinkat}). Elsewhere it falls back to path operations with {@code NOFOLLOW_LINKS} on the
 * last component. It never follows a link in the last component.
 */
public final class SafeDirectory implements Closeable {
    private static final Set<OpenOption> READ_NOFOLLOW = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    private final Path path;
    private final SecureDirectoryStream<Path> sds;

    private SafeDirectory(Path path, SecureDirectoryStream<Path> sds) {
        this.path = path;
        this.sds = sds;
    }

    /**
     * Opens a validated directory.
     *
     * @param gate the gate that validated {@code dir}
     * @param dir a directory inside the gate's root (a path from the gate)
     * @return the open directory; close it
     * @throws IOException when a component is missing, not a directory, or a link
     */
    public static SafeDirectory open(PathGate gate, Path dir) throws IOException {
        Path root = gate.root();
        if (!dir.startsWith(root)) {
            throw new IllegalArgumentException("not inside the root");
        }
        DirectoryStream<Path> ds = Files.newDirectoryStream(root);
        if (!(ds instanceof SecureDirectoryStream<Path> current)) {
            ds.close();
            BasicFileAttributes a = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!a.isDirectory()) {
                throw new java.nio.file.NotDirectoryException(dir.getFileName().toString());
            }
            return new SafeDirectory(dir, null);
        }
        Path rel = root.relativize(dir);
        try {
            if (!rel.toString().isEmpty()) {
                for (int i = 0; i < rel.getNameCount(); i++) {
                    SecureDirectoryStream<Path> next = current.newDirectoryStream(rel.getName(i), LinkOption.NOFOLLOW_LINKS);
                    current.close();
                    current = next;
                }
            }
        } catch (IOException | RuntimeException e) {
            current.close();
            throw e;
        }
        return new SafeDirectory(dir, current);
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
        Path child = path.resolve(name);
        if (sds != null) {
            return new SafeDirectory(child, sds.newDirectoryStream(name(name), LinkOption.NOFOLLOW_LINKS));
        }
        BasicFileAttributes a = Files.readAttributes(child, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isDirectory()) {
            throw new java.nio.file.NotDirectoryException(name);
        }
        return new SafeDirectory(child, null);
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
     * Attributes of an entry, not following a link.
     *
     * @param name the entry name
     * @return the attributes
     * @throws IOException {@link java.nio.file.NoSuchFileException} when missing
     */
    public BasicFileAttributes attributes(String name) throws IOException {
        if (sds != null) {
            return sds.getFileAttributeView(name(name), BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes();
        }
        return Files.readAttributes(path.resolve(name), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
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
        if (sds != null) {
            return sds.newByteChannel(name(name), opts);
        }
        return Files.newByteChannel(path.resolve(name), opts);
    }

    /**
     * Opens an entry for reading.
     *
     * @param name the entry name
     * @return the channel
     * @throws IOException on failure
     */
    public SeekableByteChannel openRead(String name) throws IOException {
        if (sds != null) {
            return sds.newByteChannel(name(name), READ_NOFOLLOW);
        }
        return Files.newByteChannel(path.resolve(name), READ_NOFOLLOW);
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
     * Renames an entry over another in this directory, atomically, replacing the target.
     *
     * @param from the source name
     * @param to the target name
     * @throws IOException on failure
     */
    public void replace(String from, String to) throws IOException {
        if (sds != null) {
            try {
                sds.move(name(from), sds, name(to));
                return;
            } catch (FileAlreadyExistsException e) {
                // Some providers (Jimfs) do not replace in SecureDirectoryStream.move; fall through.
            }
        }
        Files.move(path.resolve(from), path.resolve(to), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * Deletes a non-directory entry (a link is deleted itself, never its target).
     *
     * @param name the entry name
     * @throws IOException {@link java.nio.file.NoSuchFileException} when missing
     */
    public void deleteFile(String name) throws IOException {
        if (sds != null) {
            sds.deleteFile(name(name));
            return;
        }
        BasicFileAttributes a = attributes(name);
        if (a.isDirectory()) {
            throw new java.nio.file.FileSystemException(name, null, "is a directory");
        }
        Files.delete(path.resolve(name));
    }

    /**
     * The names of the entries, unsorted.
     *
     * @return the names
     * @throws IOException on failure
     */
    public List<String> names() throws IOException {
        List<String> out = new ArrayList<>();
        if (sds != null) {
            for (Path p : sds) {
                out.add(p.getFileName().toString());
            }
            return out;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(path)) {
            for (Path p : ds) {
                out.add(p.getFileName().toString());
            }
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        if (sds != null) {
            sds.close();
        }
    }
}
