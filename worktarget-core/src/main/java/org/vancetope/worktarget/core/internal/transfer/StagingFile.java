package org.vancetope.worktarget.core.internal.transfer;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributeView;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The staging file of one incoming transfer, beside its target. Where the platform offers a
 * {@link SecureDirectoryStream} (Linux, macOS, Jimfs) every operation — create, attributes, rename,
 * delete — runs relative to the already opened parent directory, so swapping a parent for a link
 * after the path check cannot redirect the write; elsewhere it falls back to path operations with
 * {@link LinkOption#NOFOLLOW_LINKS}.
 */
final class StagingFile implements Closeable {
    private final Path parent;
    private final Path stagingName;
    private final Path targetName;
    private final SecureDirectoryStream<Path> dir;
    private SeekableByteChannel out;
    private boolean present;

    private StagingFile(Path parent, Path stagingName, Path targetName, SecureDirectoryStream<Path> dir) {
        this.parent = parent;
        this.stagingName = stagingName;
        this.targetName = targetName;
        this.dir = dir;
    }

    /**
     * Creates an empty staging file beside {@code target}.
     *
     * @param target the validated target path (its parent exists)
     * @return the open staging file
     * @throws IOException when it cannot be created, or the parent is not the directory that was checked
     */
    static StagingFile create(Path target) throws IOException {
        Path parent = Objects.requireNonNull(target.getParent(), "target has no parent");
        Path targetName = parent.getFileSystem().getPath(target.getFileName().toString());
        String suffix = Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
        Path stagingName = parent.getFileSystem().getPath("." + targetName + "." + suffix + ".part");
        SecureDirectoryStream<Path> secure = null;
        DirectoryStream<Path> stream = Files.newDirectoryStream(parent);
        if (stream instanceof SecureDirectoryStream<Path> s) {
            secure = s;
            Object opened = s.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey();
            Object checked = Files.readAttributes(parent, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
            if (opened == null || !opened.equals(checked)) {
                stream.close();
                throw new IOException("the target directory changed while it was opened");
            }
        } else {
            stream.close();
        }
        StagingFile f = new StagingFile(parent, stagingName, targetName, secure);
        try {
            if (secure != null) {
                f.out = secure.newByteChannel(stagingName, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                        LinkOption.NOFOLLOW_LINKS));
            } else {
                f.out = Files.newByteChannel(parent.resolve(stagingName), Set.of(StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS));
            }
            f.present = true;
        } catch (IOException | RuntimeException e) {
            f.close();
            throw e;
        }
        return f;
    }

    /**
     * The staging file's path, for messages and tests.
     *
     * @return the path
     */
    Path path() {
        return parent.resolve(stagingName);
    }

    /**
     * Appends bytes.
     *
     * @param bytes the bytes
     * @throws IOException when writing fails (e.g. the disk is full)
     */
    void write(byte[] bytes) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
            out.write(buf);
        }
    }

    /**
     * Closes the channel, first forcing the data to the device when asked to.
     *
     * @param sync whether to force the data to the device before closing
     * @throws IOException when flushing or closing fails
     */
    void finishWriting(boolean sync) throws IOException {
        if (sync && out instanceof FileChannel fc) {
            fc.force(false);
        }
        out.close();
        out = null;
    }

    /**
     * Applies permission bits and the modification time to the staging file.
     *
     * @param mode permission bits, or null
     * @param mtime the modification time, or null
     * @throws IOException when an attribute cannot be set
     */
    void applyAttributes(Integer mode, Instant mtime) throws IOException {
        if (mode != null) {
            PosixFileAttributeView posix = dir != null
                    ? dir.getFileAttributeView(stagingName, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    : Files.getFileAttributeView(path(), PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
            if (posix != null) {
                posix.setPermissions(TransferEngine.Modes.fromBits(mode));
            }
        }
        if (mtime != null) {
            BasicFileAttributeView basic = dir != null
                    ? dir.getFileAttributeView(stagingName, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    : Files.getFileAttributeView(path(), BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
            basic.setTimes(FileTime.from(mtime), null, null);
        }
    }

    /**
     * Renames the staging file onto the target, atomically where the file system can, replacing an
     * existing target.
     *
     * @throws IOException when the rename fails; the staging file then still exists
     */
    void commit() throws IOException {
        if (dir == null || !moveInsideDirectory()) {
            try {
                Files.move(path(), parent.resolve(targetName), StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(path(), parent.resolve(targetName), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        present = false;
    }

    /**
     * The directory-relative rename; false when the file system refuses to replace an existing
     * target that way (Jimfs), so the caller falls back to the path rename.
     */
    private boolean moveInsideDirectory() throws IOException {
        try {
            dir.move(stagingName, dir, targetName);
            return true;
        } catch (FileAlreadyExistsException e) {
            return false;
        }
    }

    /**
     * Closes the channel and deletes the staging file if it still exists; closes the directory.
     *
     * @throws IOException when deleting fails
     */
    @Override
    public void close() throws IOException {
        IOException failure = null;
        if (out != null) {
            try {
                out.close();
            } catch (IOException e) {
                failure = e;
            }
            out = null;
        }
        if (present) {
            try {
                if (dir != null) {
                    dir.deleteFile(stagingName);
                } else {
                    Files.deleteIfExists(path());
                }
                present = false;
            } catch (java.nio.file.NoSuchFileException e) {
                present = false;
            } catch (IOException e) {
                failure = e;
            }
        }
        if (dir != null) {
            try {
                dir.close();
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
