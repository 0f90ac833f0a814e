package org.vancetope.worktarget.core.internal.path;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The new content of one file inside a {@link ConfinedRoot}, written under a {@linkplain Reserved
 * reserved name} and renamed over its target only when complete: readers see the old file or the
 * whole new one, never a part, and no tool ever lists the staging name.
 *
 * <p>The staging file lives at the top of the root, so a crashed writer's leftover is found by
 * {@link ConfinedRoot#sweep()} without walking the tree; it is renamed into the target's directory by
 * handle ({@code renameat}), so a parent swapped for a link after the check cannot redirect it. When
 * the top of the root is not writable, or the target directory is on another file system (a mount
 * point inside the root), the staging file goes beside the target instead, under the same kind of
 * name. Made by {@link ConfinedRoot#stage}; not thread-safe.
 */
public final class StagedFile implements Closeable {
    private static final Logger LOG = LoggerFactory.getLogger(StagedFile.class);

    private final SafeDirectory target;
    private final String targetName;
    private SafeDirectory staging;
    private String stagingName;
    private SeekableByteChannel out;
    private long written;
    private boolean present;

    private StagedFile(SafeDirectory target, String targetName) {
        this.target = target;
        this.targetName = targetName;
    }

    /**
     * Creates the staging file; takes ownership of {@code target}.
     */
    static StagedFile create(ConfinedRoot root, SafeDirectory target, String targetName) throws IOException {
        StagedFile f = new StagedFile(target, targetName);
        try {
            if (target.isRoot()) {
                f.staging = target;
            } else {
                f.staging = root.openRoot();
            }
            f.stagingName = Reserved.newName(Reserved.FILE);
            try {
                f.out = f.staging.createFile(f.stagingName);
            } catch (AccessDeniedException e) {
                if (f.staging == target) {
                    throw e;
                }
                // The top of the root is read-only: stage beside the target.
                ConfinedRoot.closeQuietly(f.staging);
                f.staging = target;
                f.out = target.createFile(f.stagingName);
            }
            f.present = true;
        } catch (IOException | RuntimeException e) {
            f.close();
            throw e;
        }
        return f;
    }

    /**
     * Creates the staging file of a resumable transfer under a fixed name at the top of the root (never
     * beside the target, so a restarted receiver finds it there); takes ownership of {@code target}.
     *
     * @throws IOException when the top of the root is not writable or the name is taken
     */
    static StagedFile createNamed(ConfinedRoot root, SafeDirectory target, String targetName, String stagingName)
            throws IOException {
        StagedFile f = new StagedFile(target, targetName);
        try {
            f.staging = target.isRoot() ? target : root.openRoot();
            f.stagingName = stagingName;
            f.out = f.staging.createFile(stagingName);
            f.present = true;
        } catch (IOException | RuntimeException e) {
            f.close();
            throw e;
        }
        return f;
    }

    /**
     * Opens the kept staging file of a resumable transfer again for appending, cut to {@code keep} bytes;
     * takes ownership of {@code target}.
     *
     * @throws IOException when it is gone or shorter than {@code keep}
     */
    static StagedFile reopen(ConfinedRoot root, SafeDirectory target, String targetName, String stagingName, long keep)
            throws IOException {
        StagedFile f = new StagedFile(target, targetName);
        try {
            f.staging = target.isRoot() ? target : root.openRoot();
            f.stagingName = stagingName;
            f.out = f.staging.newByteChannel(stagingName, Set.of(java.nio.file.StandardOpenOption.WRITE));
            f.present = true;
            if (f.out.size() < keep) {
                throw new IOException("the kept staging file has " + f.out.size() + " bytes, fewer than " + keep);
            }
            f.out.truncate(keep);
            f.out.position(keep);
            f.written = keep;
        } catch (IOException | RuntimeException e) {
            f.present = false;      // not ours to delete on a failed reopen: the caller decides
            f.close();
            throw e;
        }
        return f;
    }

    /**
     * Closes the channel and directory handles and keeps the staged file where it is (a resumable
     * transfer whose connection ended); {@link #close()} afterwards deletes nothing.
     *
     * @throws IOException when closing the channel fails
     */
    public void detach() throws IOException {
        present = false;
        close();
    }

    /**
     * The staging file's reserved name.
     *
     * @return the name
     */
    public String stagingName() {
        return stagingName;
    }

    /**
     * The open target directory (for attribute reads of the existing target).
     *
     * @return the directory
     */
    public SafeDirectory directory() {
        return target;
    }

    /**
     * The target's name in {@link #directory()}.
     *
     * @return the name
     */
    public String targetName() {
        return targetName;
    }

    /**
     * How many bytes were written.
     *
     * @return the count
     */
    public long size() {
        return written;
    }

    /**
     * Appends bytes.
     *
     * @param bytes the bytes
     * @throws IOException when writing fails (e.g. the disk is full)
     */
    public void write(byte[] bytes) throws IOException {
        write(ByteBuffer.wrap(bytes));
    }

    /**
     * Appends the remaining bytes of a buffer.
     *
     * @param buf the bytes
     * @throws IOException when writing fails (e.g. the disk is full)
     */
    public void write(ByteBuffer buf) throws IOException {
        requireWriting();
        while (buf.hasRemaining()) {
            written += out.write(buf);
        }
    }

    private void requireWriting() {
        if (out == null) {
            throw new IllegalStateException("the staged file is no longer open for writing");
        }
    }

    /**
     * Closes the channel, first forcing the data to the device when asked to.
     *
     * @param sync whether to force the data to the device before closing
     * @throws IOException when flushing or closing fails
     */
    public void finishWriting(boolean sync) throws IOException {
        requireWriting();
        if (sync && out instanceof FileChannel fc) {
            fc.force(false);
        }
        out.close();
        out = null;
    }

    /**
     * Applies attributes to the staged file and renames it over the target, atomically, replacing an
     * existing target file. Closes the writing channel first when still open (without forcing).
     *
     * @param permissions POSIX permissions, or null to keep the default
     * @param mtime the modification time, or null
     * @throws IOException when the rename fails; the staged file then still exists until {@link #close()}
     */
    public void commit(Set<PosixFilePermission> permissions, FileTime mtime) throws IOException {
        if (!present) {
            throw new IllegalStateException("nothing staged");
        }
        if (out != null) {
            finishWriting(false);
        }
        apply(staging, stagingName, permissions, mtime);
        try {
            staging.moveTo(stagingName, target, targetName);
        } catch (AtomicMoveNotSupportedException crossDevice) {
            copyBesideTarget();
            apply(staging, stagingName, permissions, mtime);
            staging.moveTo(stagingName, target, targetName);
        }
        present = false;
    }

    private static void apply(SafeDirectory dir, String name, Set<PosixFilePermission> permissions, FileTime mtime)
            throws IOException {
        if (permissions != null) {
            dir.setPosixPermissions(name, permissions);
        }
        if (mtime != null) {
            dir.setLastModifiedTime(name, mtime);
        }
    }

    /** The target directory is on another file system than the staging file: copy it next to the target first. */
    private void copyBesideTarget() throws IOException {
        String besideName = Reserved.newName(Reserved.FILE);
        try (SeekableByteChannel in = staging.openRead(stagingName);
             SeekableByteChannel copy = target.createFile(besideName)) {
            ByteBuffer buf = ByteBuffer.allocateDirect(256 * 1024);
            while (in.read(buf) >= 0) {
                buf.flip();
                while (buf.hasRemaining()) {
                    copy.write(buf);
                }
                buf.clear();
            }
            if (copy instanceof FileChannel fc) {
                fc.force(false);
            }
        } catch (IOException | RuntimeException e) {
            try {
                target.deleteFile(besideName);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        deleteStaging();
        if (staging != target) {
            ConfinedRoot.closeQuietly(staging);
        }
        staging = target;
        stagingName = besideName;
        present = true;
    }

    private void deleteStaging() throws IOException {
        try {
            staging.deleteFile(stagingName);
        } catch (NoSuchFileException e) {
            // already gone
        }
        present = false;
    }

    /**
     * Closes the channel, deletes the staged file unless it was committed, and closes the directory
     * handles.
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
                deleteStaging();
            } catch (IOException e) {
                failure = failure == null ? e : failure;
                LOG.warn("Cannot delete staging file {}: {}", stagingName, e.toString());
            }
        }
        if (staging != null && staging != target) {
            ConfinedRoot.closeQuietly(staging);
        }
        staging = null;
        ConfinedRoot.closeQuietly(Objects.requireNonNull(target));
        if (failure != null) {
            throw failure;
        }
    }
}
