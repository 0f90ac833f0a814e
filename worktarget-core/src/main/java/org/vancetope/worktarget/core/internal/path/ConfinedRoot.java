package org.vancetope.worktarget.core.internal.path;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.Utf8;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A directory that every consumer in the library opens, creates, renames, lists and deletes through:
 * the file tools, exec (working directory and output files), both transfer directions, staged files,
 * RootDir disposal and the per-scope homes. It is the one place that turns a caller's path into a
 * validated path inside the root, and the one factory of the handles ({@link SafeDirectory},
 * {@link StagedFile}) that act on it without following links.
 *
 * <p>A caller path is checked in this order:
 * <ol>
 *   <li>syntax: not empty, no NUL or other control characters, no backslash, not absolute, no leading
 *       {@code ~}, no {@code ':'} (drive letters, alternate streams), bounded path and component
 *       length;</li>
 *   <li>containment, component-wise: {@code .} and empty components are dropped, {@code ..} pops a
 *       component and may never pop the root; the result must satisfy {@link Path#startsWith(Path)}
 *       on the root (never a string prefix, so {@code /ws_evil} is not inside {@code /ws});</li>
 *   <li>links: the deepest existing ancestor is resolved with {@link Path#toRealPath} and must stay
 *       inside the real root (a link from one place in the root to another is followed); dangling
 *       links and loops are refused;</li>
 *   <li>the library's own entries: {@value #INTERNAL_DIR} at the top of the root and the
 *       {@linkplain Reserved reserved names} of staged files are refused, except that the job output
 *       files {@code .worktarget/exec/<owner>/<file>} may be read ({@link #resolveForRead});</li>
 *   <li>special files: an existing FIFO, socket or device is refused before anything opens it.</li>
 * </ol>
 * The returned path is the real path of the deepest existing ancestor plus the remaining components,
 * so what follows never re-interprets the raw input; {@code ..} is applied lexically, so
 * {@code link/../x} means {@code x} inside the root, never the parent of the link's target.
 *
 * <p>Then every operation goes through handles: {@link #open} reaches a directory from the root one
 * component at a time without following links ({@code openat}), {@link #openOrCreate} creates missing
 * components the same way (see {@link SafeDirectory#mkdir}), {@link #stage} writes a file under a
 * reserved name and renames it into its directory by handle ({@code renameat}), {@link #deleteTree}
 * deletes by handle ({@code unlinkat}). Where the platform has no {@link java.nio.file.SecureDirectoryStream}
 * (Windows), path operations with {@link LinkOption#NOFOLLOW_LINKS} on the last component are used.
 *
 * <p>Every containment refusal reads the same whatever exists outside the root, and no message
 * contains a host path: only the caller's own input is quoted.
 *
 * <pre>{@code
 * ConfinedRoot root = ConfinedRoot.of(workDir);
 * Path file = root.resolve("src/Main.java");       // throws ToolException(PATH_ESCAPE) for "../x"
 * try (StagedFile out = root.stage(file)) { out.write(bytes); out.commit(true, null, null); }
 * String shown = root.relative(file);              // "src/Main.java"
 * }</pre>
 *
 * <p>The root directory itself (and the path to it) is trusted: it is canonicalised once, when the
 * confined root is made, and must not be replaced while it is in use.
 */
public final class ConfinedRoot {
    /** Default longest accepted path, in bytes of UTF-8 (Linux's {@code PATH_MAX}). */
    public static final int DEFAULT_MAX_PATH_LENGTH = 4096;
    /** Default longest accepted path component, in bytes of UTF-8 (most file systems' {@code NAME_MAX}). */
    public static final int DEFAULT_MAX_COMPONENT_LENGTH = 255;
    /** The library's own directory at the top of every root (job output); hidden from every listing. */
    public static final String INTERNAL_DIR = ".worktarget";
    /** The directory of job output files, inside {@link #INTERNAL_DIR}. */
    public static final String EXEC_DIR = "exec";

    private static final Logger LOG = LoggerFactory.getLogger(ConfinedRoot.class);
    private static final int MAX_QUOTED = 120;
    /** A first path component that reads as an unexpanded variable: {@code $HOME}, {@code ${HOME}}, {@code %USERPROFILE%}. */
    private static final Pattern VARIABLE = Pattern.compile("\\$(\\{[^}]*\\}?|[A-Z_][A-Z0-9_]*)|%[A-Za-z_][A-Za-z0-9_]*%");

    private final Path root;
    private final int maxPathLength;
    private final int maxComponentLength;

    private ConfinedRoot(Path root, int maxPathLength, int maxComponentLength) {
        this.root = root;
        this.maxPathLength = maxPathLength;
        this.maxComponentLength = maxComponentLength;
    }

    /**
     * A confined root on an existing directory with the default limits.
     *
     * @param root the root; may be given through a symlink or with a trailing separator
     * @return the confined root
     * @throws IOException when the root does not exist or is not a directory
     */
    public static ConfinedRoot of(Path root) throws IOException {
        return of(root, DEFAULT_MAX_PATH_LENGTH, DEFAULT_MAX_COMPONENT_LENGTH);
    }

    /**
     * A confined root on an existing directory.
     *
     * @param root the root; it is canonicalised once, here ({@link Path#toRealPath})
     * @param maxPathLength the longest accepted caller path, in bytes of UTF-8
     * @param maxComponentLength the longest accepted component, in bytes of UTF-8
     * @return the confined root
     * @throws IOException when the root does not exist or is not a directory
     */
    public static ConfinedRoot of(Path root, int maxPathLength, int maxComponentLength) throws IOException {
        Objects.requireNonNull(root, "root");
        if (maxPathLength < 1 || maxComponentLength < 1) {
            throw new IllegalArgumentException("path limits must be positive");
        }
        Path real = root.toAbsolutePath().toRealPath();
        if (!Files.isDirectory(real)) {
            throw new NotDirectoryException(root.toString());
        }
        if (real.getFileSystem() == java.nio.file.FileSystems.getDefault() && !FILE_NAMES_UTF8 && !warnedEncoding) {
            warnedEncoding = true;
            LOG.warn("File names outside ASCII cannot be read or written, and are listed garbled: this JVM encodes "
                    + "file names as {} (from its locale, fixed when Java starts). Start Java with a UTF-8 locale, "
                    + "e.g. LC_ALL=C.UTF-8 in its environment", FILE_NAME_ENCODING);
        }
        return new ConfinedRoot(real, maxPathLength, maxComponentLength);
    }

    /** How this JVM encodes file names on the default file system (its locale's charset, fixed at start). */
    private static final String FILE_NAME_ENCODING = System.getProperty("sun.jnu.encoding", "UTF-8");
    /** Whether every name a caller can give can be a file name on the default file system. */
    private static final boolean FILE_NAMES_UTF8 = isUtf8(FILE_NAME_ENCODING);

    /**
     * Whether a JVM's file name encoding ({@code sun.jnu.encoding}) can name every file a caller may give.
     *
     * @param fileNameEncoding the encoding's name, or null (not set: UTF-8 is assumed)
     * @return true for UTF-8
     */
    public static boolean isUtf8(String fileNameEncoding) {
        return fileNameEncoding == null || fileNameEncoding.equalsIgnoreCase("UTF-8")
                || fileNameEncoding.equalsIgnoreCase("UTF8");
    }
    private static volatile boolean warnedEncoding;

    /**
     * The canonical root, for what needs a path of the root itself: a job's working directory, an
     * isolation wrapper's bind mount.
     *
     * @return the real path of the root
     */
    public Path root() {
        return root;
    }

    // ================================================================================ validation

    /**
     * Resolves a caller's path to a validated path inside the root, following links that stay inside.
     *
     * @param userPath the caller's path, relative, with {@code '/'} separators; {@code "."} is the root
     * @return the validated absolute path (it may not exist yet)
     * @throws ToolException {@code path_escape} for anything outside the root, syntactically refused or
     *         internal to the library; {@code invalid_params} for an existing special file
     */
    public Path resolve(String userPath) throws ToolException {
        Path validated = checkLinks(userPath, lexical(userPath));
        refuseInternal(userPath, validated, false);
        refuseSpecial(userPath, validated);
        return validated;
    }

    /**
     * Like {@link #resolve}, but also accepts a job output file (a file below {@code .worktarget/exec}), the
     * {@code stdoutPath} and {@code stderrPath} that {@code exec_run} returns. For tools that only read.
     *
     * @param userPath the caller's path
     * @return the validated path
     * @throws ToolException as for {@link #resolve}
     */
    public Path resolveForRead(String userPath) throws ToolException {
        Path validated = checkLinks(userPath, lexical(userPath));
        refuseInternal(userPath, validated, true);
        refuseSpecial(userPath, validated);
        return validated;
    }

    /**
     * Resolves a caller's path without following its last component: the parent is validated like
     * {@link #resolve(String)}, the last name is kept as is. Used to delete a link itself rather than its
     * target.
     *
     * @param userPath the caller's path; must not denote the root
     * @return the validated path of the entry
     * @throws ToolException {@code path_escape} as for {@link #resolve(String)}, also for the root itself
     */
    public Path resolveEntry(String userPath) throws ToolException {
        Path entry = resolveEntryToRemove(userPath);
        refuseSpecial(userPath, entry);
        return entry;
    }

    /**
     * Like {@link #resolveEntry}, but an existing special file (FIFO, socket, device) is accepted: for
     * {@code file_delete}, whose unlink by handle opens nothing, so that a stale socket or FIFO can be removed.
     *
     * @param userPath the caller's path; must not denote the root
     * @return the validated path of the entry
     * @throws ToolException {@code path_escape} as for {@link #resolveEntry(String)}
     */
    public Path resolveEntryToRemove(String userPath) throws ToolException {
        Path lexical = lexical(userPath);
        if (lexical.equals(root)) {
            throw escape(userPath);
        }
        Path parent = checkLinks(userPath, lexical.getParent());
        Path entry = parent.resolve(lexical.getFileName().toString());
        refuseInternal(userPath, entry, false);
        return entry;
    }

    /**
     * Renders a validated path relative to the root with {@code '/'} separators; the root is {@code "."}.
     *
     * @param validated a path returned by this root (or below one)
     * @return the relative form
     * @throws IllegalArgumentException when the path is not inside the root
     */
    public String relative(Path validated) {
        if (!validated.startsWith(root)) {
            throw new IllegalArgumentException("not inside the root");
        }
        if (validated.equals(root)) {
            return ".";
        }
        return join(root.relativize(validated));
    }

    /**
     * Joins the names of a relative path with {@code '/'}.
     *
     * @param relative a relative path on any file system
     * @return the names joined by {@code '/'}; {@code "."} when empty
     */
    public static String join(Path relative) {
        int n = relative.getNameCount();
        if (n == 0 || relative.toString().isEmpty()) {
            return ".";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sb.append('/');
            }
            sb.append(relative.getName(i));
        }
        return sb.toString();
    }

    /**
     * Quotes a caller's path for a message: clipped, control characters shown as {@code '?'}.
     *
     * @param userPath the caller's input
     * @return a safe rendering
     */
    public static String quote(String userPath) {
        if (userPath == null) {
            return "''";
        }
        StringBuilder sb = new StringBuilder("'");
        int n = Math.min(userPath.length(), MAX_QUOTED);
        for (int i = 0; i < n; i++) {
            char c = userPath.charAt(i);
            sb.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        if (userPath.length() > MAX_QUOTED) {
            sb.append("...");
        }
        return sb.append('\'').toString();
    }

    // ================================================================================ handles

    /**
     * Opens a validated directory, reached from the root without following links.
     *
     * @param dir a directory inside the root (a path from this root)
     * @return the open directory; close it
     * @throws IOException when a component is missing, not a directory, or a link
     */
    public SafeDirectory open(Path dir) throws IOException {
        return SafeDirectory.open(this, dir);
    }

    /**
     * Opens a validated directory, creating every missing component race-free on the way: a component
     * is never created by a path a concurrent change could redirect (see {@link SafeDirectory#mkdir}).
     *
     * @param dir a directory inside the root (a path from this root)
     * @return the open directory; close it
     * @throws IOException when a component is a file or link, or cannot be created
     */
    public SafeDirectory openOrCreate(Path dir) throws IOException {
        return SafeDirectory.openOrCreate(this, dir);
    }

    /**
     * Opens a validated directory like {@link #openOrCreate}, creating each missing component with mode 0700
     * (where the file system has POSIX permissions): for the directories that hold one tenant's data (its
     * HOMEs, its projects' RootDirs), which no other user of the machine may enter, so that neither their
     * files nor a set-user-id program a job planted there can be reached. Existing components keep their mode.
     *
     * @param dir a directory inside the root (a path from this root)
     * @return the open directory; close it
     * @throws IOException when a component is a file or link, or cannot be created
     */
    public SafeDirectory openOrCreatePrivate(Path dir) throws IOException {
        return SafeDirectory.openOrCreatePrivate(this, dir);
    }

    /**
     * Opens the root itself.
     *
     * @return the open root directory; close it
     * @throws IOException when it cannot be opened
     */
    public SafeDirectory openRoot() throws IOException {
        return SafeDirectory.open(this, root);
    }

    /**
     * An open regular file and what was checked about it.
     *
     * @param channel the channel, opened relative to its directory without following a link; close it
     * @param attributes the file's attributes, read through the same directory handle
     * @param permissions its POSIX permissions, or null where the file system has none
     * @param path the validated path
     */
    public record OpenFile(SeekableByteChannel channel, BasicFileAttributes attributes,
                           Set<PosixFilePermission> permissions, Path path) {
    }

    /**
     * Opens a caller's file for reading: validated with {@link #resolveForRead}, opened relative to its
     * directory handle without following a link; directories, links and special files are refused.
     *
     * @param userPath the caller's path
     * @return the open file
     * @throws ToolException {@code path_escape}, {@code not_found}, {@code invalid_params} for a
     *         directory or special file, {@code internal} for other failures
     */
    public OpenFile openFile(String userPath) throws ToolException {
        return openFile(userPath, resolveForRead(userPath));
    }

    /**
     * Opens a file already validated by this root for reading, as {@link #openFile(String)} does.
     *
     * @param userPath the caller's path, for messages
     * @param file the validated path
     * @return the open file
     * @throws ToolException as for {@link #openFile(String)}
     */
    public OpenFile openFile(String userPath, Path file) throws ToolException {
        if (file.equals(root)) {
            throw isDirectory(userPath);
        }
        try (SafeDirectory d = open(file.getParent())) {
            String name = file.getFileName().toString();
            BasicFileAttributes a = d.attributes(name);
            if (a.isDirectory()) {
                throw isDirectory(userPath);
            }
            if (a.isSymbolicLink()) {
                throw escape(userPath);
            }
            if (a.isOther()) {
                throw special(userPath);
            }
            Set<PosixFilePermission> perms = d.posixPermissions(name);
            return new OpenFile(d.openRead(name), a, perms, file);
        } catch (IOException e) {
            throw io(e, userPath, "read");
        }
    }

    /**
     * Stages a new content for a validated file: missing parent directories are created race-free, the
     * bytes go to a file under a {@linkplain Reserved reserved name} (hidden from every tool), and
     * {@link StagedFile#commit} renames it over the target by directory handle, atomically.
     *
     * @param target the validated target (not the root, not an existing directory)
     * @return the staged file; close it (an uncommitted one is deleted)
     * @throws IOException when a parent is a file or link, or the file cannot be created
     */
    public StagedFile stage(Path target) throws IOException {
        if (target.equals(root) || !target.startsWith(root)) {
            throw new IllegalArgumentException("not a file inside the root");
        }
        SafeDirectory dir = openOrCreate(target.getParent());
        try {
            return StagedFile.create(this, dir, target.getFileName().toString());
        } catch (IOException | RuntimeException e) {
            closeQuietly(dir);
            throw e;
        }
    }

    /**
     * Stages a new content like {@link #stage}, under a fixed reserved name at the top of the root
     * (a resumable transfer's staging file, {@link Reserved#resumableName}).
     *
     * @param target the validated target
     * @param stagingName the reserved name
     * @return the staged file
     * @throws IOException when the top of the root is not writable, the name is taken, or a parent is in the way
     */
    public StagedFile stageNamed(Path target, String stagingName) throws IOException {
        if (target.equals(root) || !target.startsWith(root)) {
            throw new IllegalArgumentException("not a file inside the root");
        }
        SafeDirectory dir = openOrCreate(target.getParent());
        try {
            return StagedFile.createNamed(this, dir, target.getFileName().toString(), stagingName);
        } catch (IOException | RuntimeException e) {
            closeQuietly(dir);
            throw e;
        }
    }

    /**
     * Opens the kept staging file of a resumable transfer again, cut to {@code keep} bytes, to append.
     *
     * @param target the validated target
     * @param stagingName the reserved name it was staged under
     * @param keep the bytes to keep
     * @return the staged file, positioned at {@code keep}
     * @throws IOException when it is gone, shorter than {@code keep}, or a parent is in the way
     */
    public StagedFile reopenStaged(Path target, String stagingName, long keep) throws IOException {
        if (target.equals(root) || !target.startsWith(root)) {
            throw new IllegalArgumentException("not a file inside the root");
        }
        SafeDirectory dir = openOrCreate(target.getParent());
        try {
            return StagedFile.reopen(this, dir, target.getFileName().toString(), stagingName, keep);
        } catch (IOException | RuntimeException e) {
            closeQuietly(dir);
            throw e;
        }
    }

    /**
     * What a staged write replaces.
     *
     * @param exists whether a file of that name exists
     * @param permissions its permissions, or null (new file, or no POSIX permissions on this file system)
     */
    public record TargetState(boolean exists, Set<PosixFilePermission> permissions) {
    }

    /**
     * Checks the target of a staged write through its directory handle: it may be missing or a regular
     * file; a directory, a link (swapped in after the check) or a special file is refused.
     *
     * @param staged the staged file
     * @param userPath the caller's path, for messages
     * @return what the write replaces
     * @throws ToolException {@code invalid_params} for a directory or special file, {@code path_escape}
     *         for a link
     * @throws IOException when the target cannot be inspected
     */
    public TargetState checkTarget(StagedFile staged, String userPath) throws ToolException, IOException {
        SafeDirectory dir = staged.directory();
        String name = staged.targetName();
        BasicFileAttributes a;
        try {
            a = dir.attributes(name);
        } catch (NoSuchFileException e) {
            return new TargetState(false, null);
        }
        if (a.isDirectory()) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, "Path " + quote(userPath) + " is a directory; pass a "
                    + "file path.");
        }
        if (a.isSymbolicLink()) {
            throw escape(userPath);
        }
        if (a.isOther()) {
            throw special(userPath);
        }
        Set<PosixFilePermission> mode;
        try {
            mode = dir.posixPermissions(name);
        } catch (NoSuchFileException e) {
            return new TargetState(false, null);     // removed or renamed meanwhile: the write makes a new file
        }
        if (!Files.isWritable(dir.path().resolve(name))) {
            if (!exists(dir.path().resolve(name))) {
                return new TargetState(false, null);     // not read-only: gone meanwhile
            }
            // the new file is renamed over the old one, which the directory allows: refused as a write would be
            throw new ToolException(ErrorCode.INVALID_PARAMS, "File " + quote(userPath) + " is read-only for this user"
                    + (mode == null ? "" : " (mode " + PosixFilePermissions.toString(mode) + ")") + "; nothing was "
                    + "written. If it is meant to change, make it writable first with exec_run (chmod u+w FILE).");
        }
        return new TargetState(true, mode);
    }

    /**
     * Deletes a validated entry and, when it is a directory, everything below it, by directory handle:
     * links are deleted themselves, never followed, and a directory swapped for a link during the
     * deletion is not entered.
     *
     * @param entry a validated entry (from {@link #resolveEntry} or below the root), not the root
     * @return true when something was deleted
     * @throws IOException when an entry cannot be deleted
     */
    public boolean deleteTree(Path entry) throws IOException {
        if (entry.equals(root) || !entry.startsWith(root)) {
            throw new IllegalArgumentException("not an entry inside the root");
        }
        try (SafeDirectory parent = open(entry.getParent())) {
            return parent.deleteTree(entry.getFileName().toString());
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    /**
     * Deletes the content of the root, keeping the root itself.
     *
     * @throws IOException when an entry cannot be deleted
     */
    public void clear() throws IOException {
        try (SafeDirectory dir = openRoot()) {
            for (String name : dir.allNames()) {
                dir.deleteTree(name);
            }
        }
    }

    // ================================================================================ internal area

    /**
     * Opens this process's job output directory, {@code .worktarget/exec/<owner>} (the owner names this
     * process, as in {@linkplain Reserved reserved names}, so the outputs of a process that crashed are
     * found by {@link #sweep}), creating each level race-free when missing. An entry in the way that is
     * a link is removed (it was planted: the library never makes one there), so a job cannot redirect the
     * library through it; a regular file named {@value #INTERNAL_DIR} at the top of the root is left
     * alone and refused.
     *
     * @return the open directory; close it
     * @throws IOException when it cannot be made, e.g. because a file of the user's is in the way
     */
    public SafeDirectory jobOutputDirectory() throws IOException {
        try (SafeDirectory top = openRoot();
             SafeDirectory internal = ensureDirectory(top, INTERNAL_DIR, false);
             SafeDirectory exec = ensureDirectory(internal, EXEC_DIR, true)) {
            return ensureDirectory(exec, Reserved.owner(), true);
        }
    }

    /**
     * The relative path, inside the root, of one of this process's job output files: what
     * {@code exec_run} returns as {@code stdoutPath} and the file tools read.
     *
     * @param name the file's name in {@link #jobOutputDirectory()}
     * @return {@code .worktarget/exec/<owner>/<name>}
     */
    public static String jobOutputPath(String name) {
        return INTERNAL_DIR + "/" + EXEC_DIR + "/" + Reserved.owner() + "/" + name;
    }

    private static SafeDirectory ensureDirectory(SafeDirectory parent, String name, boolean ours) throws IOException {
        for (int attempt = 0; ; attempt++) {
            BasicFileAttributes a;
            try {
                a = parent.attributes(name);
            } catch (NoSuchFileException e) {
                a = null;
            }
            if (a == null) {
                return parent.mkdir(name);
            }
            if (a.isDirectory()) {
                try {
                    return parent.openChild(name);
                } catch (IOException e) {
                    if (attempt > 2) {
                        throw e;
                    }
                    continue; // swapped between the look and the open: look again
                }
            }
            if ((a.isSymbolicLink() || ours) && attempt < 3) {
                LOG.warn("Removing {} in the place of the library's directory {} (it is not a directory)",
                        a.isSymbolicLink() ? "a link" : "an entry", name);
                try {
                    parent.deleteFile(name);
                } catch (NoSuchFileException gone) {
                    // removed meanwhile
                }
                continue;
            }
            throw new FileSystemException(name, null, "is not a directory; WorkTarget keeps its own files in the "
                    + "directory " + INTERNAL_DIR + ". Move that file away");
        }
    }

    /** Opens this process's job output directory without creating or repairing anything. */
    private SafeDirectory openJobOutputDirectory(SafeDirectory top) throws IOException {
        try (SafeDirectory internal = top.openChild(INTERNAL_DIR); SafeDirectory exec = internal.openChild(EXEC_DIR)) {
            return exec.openChild(Reserved.owner());
        }
    }

    /**
     * Opens one of this process's job output files for reading, by handle, without following a link.
     *
     * @param name the file's name in {@link #jobOutputDirectory()}
     * @return the channel
     * @throws IOException when missing or redirected
     */
    public SeekableByteChannel openJobOutput(String name) throws IOException {
        try (SafeDirectory top = openRoot(); SafeDirectory d = openJobOutputDirectory(top)) {
            return d.openRead(name);
        }
    }

    /**
     * Deletes one of this process's job output files, by handle; a missing one is fine, and a directory
     * that was replaced by a link is not entered.
     *
     * @param name the file's name in {@link #jobOutputDirectory()}
     * @return true when it was deleted
     * @throws IOException when it exists and cannot be deleted
     */
    public boolean deleteJobOutput(String name) throws IOException {
        try (SafeDirectory top = openRoot(); SafeDirectory d = openJobOutputDirectory(top)) {
            d.deleteFile(name);
            return true;
        } catch (NoSuchFileException e) {
            return false;
        } catch (FileSystemException e) {
            if (e instanceof AccessDeniedException) {
                throw e;
            }
            // A component is not a directory any more (a link or a file in its place): nothing of ours to delete.
            LOG.debug("Not deleting job output {}: {}", name, e.toString());
            return false;
        }
    }

    /**
     * Deletes the leftovers of dead processes: staged files and directories at the top of the root
     * under a {@linkplain Reserved reserved name} whose owner no longer runs (a receiver killed in the
     * middle of a transfer), and the job output directories of such processes in
     * {@code .worktarget/exec}. Entries of live processes, in this JVM or another, are kept.
     *
     * @return how many entries were deleted
     */
    public int sweep() {
        int deleted = 0;
        try (SafeDirectory top = openRoot()) {
            for (String name : top.allNames()) {
                if (Reserved.isReserved(name) && Reserved.isStale(name)) {
                    deleted += deleteStale(top, name);
                }
            }
            try (SafeDirectory internal = top.openChild(INTERNAL_DIR); SafeDirectory exec = internal.openChild(EXEC_DIR)) {
                for (String owner : exec.allNames()) {
                    if (Reserved.isStaleOwner(owner)) {
                        deleted += deleteStale(exec, owner);
                    }
                }
            } catch (FileSystemException noJobOutput) {
                // no job ran here (or the directory is not one of ours): nothing to sweep
            }
        } catch (IOException e) {
            LOG.warn("Cannot sweep stale staging entries: {}", e.toString());
        }
        if (deleted > 0) {
            LOG.info("Deleted {} staging entr{} and job outputs left by processes that no longer run", deleted,
                    deleted == 1 ? "y" : "ies");
        }
        return deleted;
    }

    private static int deleteStale(SafeDirectory dir, String name) {
        try {
            return dir.deleteTree(name) ? 1 : 0;
        } catch (IOException e) {
            LOG.warn("Cannot delete the stale entry {}: {}", name, e.toString());
            return 0;
        }
    }

    /**
     * Whether a validated path is, or is below, the library's internal directory.
     *
     * @param validated a path from this root
     * @return true when internal
     */
    public boolean isInternal(Path validated) {
        return validated.getNameCount() > root.getNameCount()
                && validated.getName(root.getNameCount()).toString().equalsIgnoreCase(INTERNAL_DIR);
    }

    // ================================================================================ messages

    /**
     * Maps a failed file operation to a tool error, never quoting a host path.
     *
     * @param e the failure
     * @param userPath the caller's input
     * @param what the operation, e.g. {@code "read"}
     * @return the error
     */
    public static ToolException io(IOException e, String userPath, String what) {
        if (e instanceof NoSuchFileException || e instanceof NotDirectoryException) {
            return notFound(userPath);
        }
        if (e instanceof SpecialFileException) {
            return special(userPath);
        }
        if (e instanceof AccessDeniedException) {
            return new ToolException(ErrorCode.INVALID_PARAMS, "Permission denied: cannot " + what + " "
                    + quote(userPath) + ". Its mode (or a directory's above it) does not allow this user to; see it "
                    + "with file_stat, and change it with exec_run (chmod) if that is meant.", e);
        }
        if (e instanceof DirectoryNotEmptyException) {
            return new ToolException(ErrorCode.INVALID_PARAMS, "Cannot " + what + " " + quote(userPath)
                    + ": a directory is in the way.", e);
        }
        String reason = e instanceof FileSystemException fse ? fse.getReason() : null;
        String lower = reason == null ? "" : reason.toLowerCase(Locale.ROOT);
        if (lower.contains("symbolic link")) {
            // a component was swapped for a link after the check: refused like an escape
            return escape(userPath);
        }
        if (isDiskFull(e)) {
            return new ToolException(ErrorCode.DISK_FULL, "The disk is full; could not " + what + " "
                    + quote(userPath) + ". Free space and retry.", e);
        }
        if (lower.contains("name too long")) {
            // ENAMETOOLONG past the checks: a file system that stores shorter names (eCryptfs: 143 bytes), or
            // a whole path beyond what the kernel resolves in one go
            return new ToolException(ErrorCode.INVALID_PARAMS, "Could not " + what + " " + quote(userPath)
                    + ": the file system here refuses a name or a path this long (" + reason + "). Use shorter "
                    + "names or fewer directory levels.", e);
        }
        return new ToolException(ErrorCode.INTERNAL, "Could not " + what + " " + quote(userPath)
                + (reason == null ? "" : " (" + reason + ")") + ".", e);
    }

    /**
     * Whether a failed write failed because the disk (or the user's quota) is full. Channel writes report
     * it as a plain {@link IOException} ({@code "No space left on device"}), path operations as a
     * {@link FileSystemException} with that reason; a size-limited in-memory file system says
     * {@code "out of disk space"}.
     *
     * @param e the failure, or one that caused it
     * @return true for a full disk
     */
    public static boolean isDiskFull(IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String text = t instanceof FileSystemException fse && fse.getReason() != null ? fse.getReason() : t.getMessage();
            String lower = text == null ? "" : text.toLowerCase(Locale.ROOT);
            if (lower.contains("no space left") || lower.contains("quota exceeded") || lower.contains("out of disk space")
                    || lower.contains("not enough space")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The refusal of a missing file.
     *
     * @param userPath the caller's input
     * @return the exception
     */
    public static ToolException notFound(String userPath) {
        return new ToolException(ErrorCode.NOT_FOUND, "File " + quote(userPath) + " does not exist. Call "
                + "file_list or file_find to see what is there." + undecodableHint(userPath));
    }

    /**
     * Refuses a path that would create a name with U+FFFD: the listings show a name that is not UTF-8 with
     * U+FFFD for its bytes that are not, so a caller writing to such a listed name would make a second
     * entry beside the one it meant, under a name that looks the same.
     *
     * @param userPath the caller's input
     * @param param the parameter it came from, for the message
     * @throws ToolException {@code invalid_params} when the path holds U+FFFD
     */
    public static void refuseReplacementCharacter(String userPath, String param) throws ToolException {
        if (userPath != null && userPath.indexOf('\uFFFD') >= 0) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, "Parameter '" + param + "' " + quote(userPath)
                    + " contains U+FFFD ('\uFFFD'), which stands in a listed name for bytes that are not UTF-8; writing "
                    + "there would make a second entry beside that one, under a name that looks the same. Nothing "
                    + "was written. Rename the existing entry with exec_run (a shell glob reaches its real name), or "
                    + "choose a name without U+FFFD.");
        }
    }

    /**
     * What to do about a name with U+FFFD in it, or nothing: the listings show a name that is not valid
     * UTF-8 with U+FFFD for the bytes that are not, and such a text names no file, so the file tools cannot
     * reach it; a command can.
     *
     * @param userPath the caller's input
     * @return the hint, starting with a blank, or an empty string
     */
    public static String undecodableHint(String userPath) {
        if (userPath == null || userPath.indexOf('\uFFFD') < 0) {
            return "";
        }
        return " A '\uFFFD' in a listed name stands for bytes that are not UTF-8 (a name written in another encoding); "
                + "the file tools cannot name such a file or directory. Rename it with exec_run, for example "
                + "mv with a glob that matches it ('?' for each such byte), then use the new name.";
    }

    /**
     * The refusal of a directory where a file is needed.
     *
     * @param userPath the caller's input
     * @return the exception
     */
    public static ToolException isDirectory(String userPath) {
        return new ToolException(ErrorCode.INVALID_PARAMS, "Path " + quote(userPath) + " is a directory. Use "
                + "file_list to see what is in it.");
    }

    /**
     * The nearest existing path at or above {@code dir}, refused when it is not a directory: a path through a
     * file can be neither created nor written, and saying which file is in the way beats "does not exist".
     * The check is by path (an early, clear refusal); creating the way there stays race-free by handle.
     *
     * @param dir a validated path of this root (the directory a target goes into)
     * @param action what could not be done, e.g. {@code "Cannot write 'a/b.txt'"}
     * @return the nearest existing path at or above {@code dir}
     * @throws ToolException {@code invalid_params} naming the file in the way
     */
    public Path requireNoFileOnTheWay(Path dir, String action) throws ToolException {
        Path existing = dir;
        BasicFileAttributes a;
        while ((a = attributesOrNull(existing)) == null && !existing.equals(root) && existing.getParent() != null) {
            existing = existing.getParent();
        }
        if (a != null && !a.isDirectory()) {
            throw new ToolException(ErrorCode.INVALID_PARAMS, action + ": " + quote(relative(existing)) + " is a file, "
                    + "not a directory.");
        }
        return existing;
    }

    /**
     * An entry's own attributes (a link's, not its target's), or null when there is none or it cannot be read.
     *
     * @param p the path
     * @return the attributes, or null
     */
    public static BasicFileAttributes attributesOrNull(Path p) {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    /**
     * The refusal of the root itself where a file is to be written.
     *
     * @param userPath the caller's input
     * @return the exception
     */
    public static ToolException isTheRoot(String userPath) {
        return new ToolException(ErrorCode.INVALID_PARAMS, "Path " + quote(userPath) + " is the work directory itself; "
                + "pass a file path.");
    }

    /**
     * How a caller's path says by its form that it names a directory: its last component is empty, '.'
     * or '..' (it ends with '/', '/.' or '/..'), as for POSIX, where {@code a/} is {@code a} only when
     * that is a directory. Tools that write, edit or delete a file refuse such a path instead of acting
     * on the file its other components name.
     *
     * @param userPath the caller's path
     * @return the ending ({@code "/"}, {@code "/."}, {@code "/.."}, or {@code "."} / {@code ".."} for the
     *         whole path), or null when the path names an entry by its name
     */
    public static String directoryEnding(String userPath) {
        if (userPath == null || userPath.isEmpty()) {
            return null;
        }
        int slash = userPath.lastIndexOf('/');
        String last = userPath.substring(slash + 1);
        if (!last.isEmpty() && !last.equals(".") && !last.equals("..")) {
            return null;
        }
        return slash < 0 ? last : "/" + last;
    }

    /**
     * The refusal of a file path that names a directory by its form (see {@link #directoryEnding}).
     *
     * @param userPath the caller's path
     * @param param the parameter that holds it
     * @param ending its ending, from {@link #directoryEnding}
     * @param refusal what the tool does instead and what to pass, e.g. {@code "file_write writes a file. ..."}
     * @return the exception, {@code invalid_params}
     */
    public static ToolException namesADirectory(String userPath, String param, String ending, String refusal) {
        return new ToolException(ErrorCode.INVALID_PARAMS, "Parameter '" + param + "' " + quote(userPath)
                + " names a directory (it ends with '" + ending + "'); " + refusal);
    }

    /**
     * Refuses a path that names a directory by its form (see {@link #directoryEnding}) where a tool acts on
     * a file (edits, deletes or moves it).
     *
     * @param userPath the caller's path
     * @param param the parameter that holds it
     * @param refusal what the tool does instead, what did not happen and what to pass
     * @throws ToolException {@code invalid_params}
     */
    public static void refuseDirectoryForm(String userPath, String param, String refusal) throws ToolException {
        String ending = directoryEnding(userPath);
        if (ending != null) {
            throw namesADirectory(userPath, param, ending, refusal);
        }
    }

    /**
     * The validated path of a file the caller is to write, or a transfer to receive, at {@code userPath}.
     * One set of refusals for every writer of a file: a name with U+FFFD (see
     * {@link #refuseReplacementCharacter}), the root itself, a path that names a directory by its form (so
     * that {@code newdir/} never becomes a file called {@code newdir}), and a file on the way to it.
     *
     * @param userPath the caller's path
     * @param param the parameter that holds it
     * @param writer what writes the file, for the message, e.g. {@code "file_write"}
     * @param nothing what did not happen, e.g. {@code "written"}
     * @return the validated path
     * @throws ToolException {@code invalid_params} for those, saying what to pass; else as {@link #resolve}
     */
    public Path resolveFileToWrite(String userPath, String param, String writer, String nothing)
            throws ToolException {
        refuseReplacementCharacter(userPath, param);
        Path target = resolve(userPath);
        if (target.equals(root)) {
            throw isTheRoot(userPath);
        }
        refuseDirectoryAsFile(userPath, param, writer, nothing);
        requireNoFileOnTheWay(target.getParent(), "Cannot write " + quote(userPath));
        return target;
    }

    private static void refuseDirectoryAsFile(String userPath, String param, String writer, String nothing)
            throws ToolException {
        String ending = directoryEnding(userPath);
        if (ending != null) {
            String dir = withoutDirectoryEnding(userPath);
            throw namesADirectory(userPath, param, ending, writer + " writes a file. Nothing was " + nothing
                    + ". Pass the file's own path" + (dir == null ? "" : ", e.g. '" + dir + "/notes.txt'")
                    + " (file_mkdir makes a directory).");
        }
    }

    /**
     * The directory a path that ends with {@code "/"} or {@code "/."} names, written without that ending
     * (for suggestions), or null for another path.
     *
     * @param userPath the caller's path
     * @return e.g. {@code "docs"} for {@code "docs/"}
     */
    public static String withoutDirectoryEnding(String userPath) {
        String ending = directoryEnding(userPath);
        if (!"/".equals(ending) && !"/.".equals(ending)) {
            return null;
        }
        String dir = userPath.substring(0, userPath.length() - ending.length());
        while (dir.endsWith("/")) {
            dir = dir.substring(0, dir.length() - 1);
        }
        return dir.isEmpty() ? null : dir;
    }

    /**
     * The refusal of any path when the root itself is gone (deleted or moved away while in use): not an
     * escape, and nothing the caller's path can fix.
     *
     * @param userPath the caller's input
     * @return the exception
     */
    public static ToolException rootMissing(String userPath) {
        return new ToolException(ErrorCode.NOT_FOUND, "The work directory itself does not exist any more (it was "
                + "deleted or moved away while in use), so nothing was done for " + quote(userPath) + ". Check the "
                + "target with work_target_get; whoever runs this backend has to create the directory again (or "
                + "switch to another target with work_target_set).");
    }

    /**
     * The one refusal for anything that leads outside the root (the same text whether or not the
     * outside target exists).
     *
     * @param userPath the caller's input
     * @return the exception
     */
    public static ToolException escape(String userPath) {
        return new ToolException(ErrorCode.PATH_ESCAPE, "Path " + quote(userPath) + " leads outside the work "
                + "directory (through '..', or a link that points outside, dangles or loops). Use a path inside the "
                + "work directory.");
    }

    /**
     * The refusal of a special file (FIFO, socket, device), which is never opened.
     *
     * @param userPath the caller's input
     * @return the exception
     */
    public static ToolException special(String userPath) {
        return new ToolException(ErrorCode.INVALID_PARAMS, "Path " + quote(userPath) + " is a special file (FIFO, "
                + "socket or device); the file tools only work on regular files and directories. To remove it, use "
                + "file_delete; to rename it, exec_run (mv).");
    }

    /**
     * The refusal of a path into the library's own files.
     *
     * @param userPath the caller's input
     * @return the exception
     */
    public static ToolException internal(String userPath) {
        return new ToolException(ErrorCode.PATH_ESCAPE, "Path " + quote(userPath) + " is inside WorkTarget's own "
                + "directory '" + INTERNAL_DIR + "' (or is one of its staging files). Only job output files, the "
                + "stdoutPath and stderrPath that exec_run returns, can be read there; use another path.");
    }

    private static ToolException syntax(String userPath, String what) {
        return new ToolException(ErrorCode.PATH_ESCAPE, "Path " + quote(userPath) + " " + what + ". Pass a path "
                + "relative to the work directory with '/' separators, e.g. 'src/Main.java'.");
    }

    // ================================================================================ checks

    private Path lexical(String userPath) throws ToolException {
        if (userPath == null || userPath.isEmpty()) {
            throw new ToolException(ErrorCode.PATH_ESCAPE,
                    "The path is empty. Pass a path relative to the work directory, or '.' for the work directory itself.");
        }
        // file systems count bytes: a name of 255 holds 255 ASCII letters but only 127 letters such as 'é'
        long pathBytes = Utf8.length(userPath, maxPathLength);
        if (pathBytes > maxPathLength) {
            throw new ToolException(ErrorCode.PATH_ESCAPE, "The path is longer than " + maxPathLength
                    + " bytes (as UTF-8" + (userPath.length() > maxPathLength ? ""
                    : ", where it has " + pathBytes + "; a letter such as 'é' takes 2, a CJK character 3")
                    + "). Use a shorter path relative to the work directory; a file that deep (a search can list "
                    + "one) is reached with exec_run, for example cd into a directory on its way, then the rest.");
        }
        for (int i = 0; i < userPath.length(); i++) {
            char c = userPath.charAt(i);
            if (c == 0) {
                throw syntax(userPath, "contains a NUL character");
            }
            if (c < 0x20 || c == 0x7f) {
                // a listing shows such a name (a newline in it is legal on disk): say how to reach it after all
                throw new ToolException(ErrorCode.PATH_ESCAPE, "Path " + quote(userPath) + " contains a control "
                        + "character (U+" + String.format(Locale.ROOT, "%04X", (int) c) + ", shown as '?'), which the "
                        + "file tools do not take in a path. A file whose name holds one can only be reached with "
                        + "exec_run: rename it there, e.g. mv with a shell glob that matches it, such as "
                        + quote(userPath).replaceAll("[^\\w./'-]", "?") + ".");
            }
            if (c == '\\') {
                throw syntax(userPath, "contains a backslash; use '/' as the separator");
            }
            if (c == ':') {
                throw syntax(userPath, "contains ':' (drive letters and stream names are not allowed)");
            }
        }
        if (userPath.charAt(0) == '/') {
            throw syntax(userPath, "is absolute; paths are relative to the work directory");
        }
        if (userPath.charAt(0) == '~') {
            throw syntax(userPath, "starts with '~'; home directories are not reachable, use a path relative to the "
                    + "work directory");
        }
        String first = userPath.split("/", 2)[0];
        if (VARIABLE.matcher(first).matches()) {
            // "$HOME/notes.txt" would quietly make a directory named "$HOME" in the work directory
            throw syntax(userPath, "starts with " + quote(first) + ", which reads as an environment variable; the "
                    + "file tools do not expand variables, and the HOME of jobs is not reachable through them (an "
                    + "entry literally named so can be reached with exec_run, quoting the name)");
        }
        List<String> names = new ArrayList<>();
        for (String part : userPath.split("/", -1)) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            long partBytes = Utf8.length(part, maxComponentLength);
            if (partBytes > maxComponentLength) {
                throw new ToolException(ErrorCode.PATH_ESCAPE, "A component of the path is longer than "
                        + maxComponentLength + " bytes (as UTF-8" + (part.length() > maxComponentLength ? ""
                        : ", where " + quote(part) + " has " + partBytes + "; a letter such as 'é' takes 2, a CJK "
                        + "character 3") + "). Use shorter names.");
            }
            if (part.equals("..")) {
                if (names.isEmpty()) {
                    throw escape(userPath);
                }
                names.remove(names.size() - 1);
                continue;
            }
            names.add(part);
        }
        Path p = root;
        try {
            for (String name : names) {
                p = p.resolve(name);
            }
        } catch (java.nio.file.InvalidPathException e) {
            if (root.getFileSystem() == java.nio.file.FileSystems.getDefault() && !FILE_NAMES_UTF8) {
                throw new ToolException(ErrorCode.PATH_ESCAPE, "Path " + quote(userPath) + " contains characters "
                        + "this server cannot put in file names: its Java process encodes file names as "
                        + FILE_NAME_ENCODING + " (its locale). Only ASCII names work until it is started with a UTF-8 "
                        + "locale (LC_ALL=C.UTF-8 in its environment); tell the user or operator.");
            }
            throw syntax(userPath, "contains characters this file system does not accept in names");
        }
        // Component-wise containment; also catches a name the file system itself interprets specially.
        Path normal = p.normalize();
        if (!normal.startsWith(root) || normal.getNameCount() != root.getNameCount() + names.size()) {
            throw escape(userPath);
        }
        return normal;
    }

    private Path checkLinks(String userPath, Path lexical) throws ToolException {
        for (int attempt = 1; ; attempt++) {
            Path existing = lexical;
            while (!existing.equals(root) && !exists(existing)) {
                existing = existing.getParent();
                if (existing == null || !existing.startsWith(root)) {
                    throw escape(userPath);
                }
            }
            Path real;
            try {
                real = existing.toRealPath();
            } catch (IOException | SecurityException e) {
                if (existing.equals(root) && !exists(root)) {
                    throw rootMissing(userPath);
                }
                if (e instanceof NoSuchFileException && !isLink(existing) && attempt < 100) {
                    // not a dangling link: something on the way was removed or renamed between the two looks
                    // (and maybe put back); look again at what is there now
                    continue;
                }
                // a dangling link, a loop, or a link into a place we may not look at: refused like an escape
                throw escape(userPath);
            }
            return resolvedBelow(userPath, lexical, existing, real);
        }
    }

    private Path resolvedBelow(String userPath, Path lexical, Path existing, Path real) throws ToolException {
        if (!real.startsWith(root)) {
            throw escape(userPath);
        }
        if (existing.equals(lexical)) {
            return real;
        }
        Path rest = existing.relativize(lexical);
        Path out = real;
        for (int i = 0; i < rest.getNameCount(); i++) {
            out = out.resolve(rest.getName(i).toString());
        }
        return out;
    }

    private static boolean isLink(Path p) {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isSymbolicLink();
        } catch (IOException | SecurityException e) {
            return false;
        }
    }

    private static boolean exists(Path p) {
        try {
            Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return true;
        } catch (IOException | SecurityException e) {
            return false;
        }
    }

    private void refuseInternal(String userPath, Path validated, boolean read) throws ToolException {
        int depth = validated.getNameCount() - root.getNameCount();
        if (depth <= 0) {
            return;
        }
        if (Reserved.isReserved(validated.getFileName().toString())) {
            throw internal(userPath);
        }
        if (!isInternal(validated)) {
            return;
        }
        boolean belowExec = depth >= 3 && validated.getName(root.getNameCount() + 1).toString().equals(EXEC_DIR);
        if (!read || !belowExec || Files.isDirectory(validated, LinkOption.NOFOLLOW_LINKS)) {
            throw internal(userPath);
        }
    }

    private static void refuseSpecial(String userPath, Path validated) throws ToolException {
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(validated, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | SecurityException e) {
            return;
        }
        if (attrs.isOther()) {
            throw special(userPath);
        }
    }

    static void closeQuietly(SafeDirectory d) {
        try {
            d.close();
        } catch (IOException e) {
            LOG.debug("Closing a directory handle failed: {}", e.toString());
        }
    }

    @Override
    public String toString() {
        return "ConfinedRoot[" + root + "]";
    }
}
