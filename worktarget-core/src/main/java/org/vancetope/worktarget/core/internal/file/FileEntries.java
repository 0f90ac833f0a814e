package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Entries as a whole, never their content: {@code file_move} (rename or move inside the root),
 * {@code file_mkdir} and {@code file_stat}. Every path goes through the {@link ConfinedRoot}; entries
 * are examined and renamed through {@link SafeDirectory} handles, never following a link in the last
 * component. Every check runs before anything changes, so a refused call changes nothing.
 */
final class FileEntries {
    private static final String NON_ATOMIC_HINT = "The source and the target are on different file systems, so the "
            + "entry was copied and then deleted instead of renamed atomically; another process may have seen it "
            + "half-moved.";

    private final FileCounting counting;

    FileEntries(FileCounting counting) {
        this.counting = counting;
    }

    /**
     * {@code file_move}: renames or moves a file, directory or link (the link itself) inside the root.
     *
     * @param gate the gate
     * @param params from, to, overwrite (default false), createParents (default false)
     * @return from, to, type, overwritten, atomic
     * @throws ToolException {@code not_found} for a missing source or target parent, {@code exists} for an
     *         existing target, {@code invalid_params} for the root, a move into itself, {@code path_escape}
     */
    MoveResult move(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String from = Params.requireString(params, "from");
        String to = Params.requireString(params, "to");
        ConfinedRoot.refuseReplacementCharacter(to, "to");
        boolean overwrite = Params.optBoolean(params, "overwrite", false);
        boolean createParents = Params.optBoolean(params, "createParents", false);
        Path src = entry(gate, from, "file_move", "move");
        Path dst = entry(gate, to, "file_move", "replace");
        String srcName = src.getFileName().toString();
        String dstName = dst.getFileName().toString();
        try (SafeDirectory sd = gate.open(src.getParent())) {
            BasicFileAttributes sa;
            try {
                sa = sd.attributes(srcName);
            } catch (NoSuchFileException e) {
                throw new ToolException(ErrorCode.NOT_FOUND, "Nothing to move: " + ConfinedRoot.quote(from)
                        + " does not exist. Call file_list on its directory to see what is there."
                        + ConfinedRoot.undecodableHint(from));
            }
            if (sa.isOther()) {
                throw ConfinedRoot.special(from);
            }
            if (!sa.isDirectory()) {
                ConfinedRoot.refuseDirectoryForm(from, "from", "what it names is a file. Nothing was moved. To move "
                        + "the file, pass its own path.");
            }
            String ending = ConfinedRoot.directoryEnding(to);
            if (ending != null && !sa.isDirectory()) {
                String dir = ConfinedRoot.withoutDirectoryEnding(to);
                throw ConfinedRoot.namesADirectory(to, "to", ending, ConfinedRoot.quote(from) + " is not a directory, "
                        + "and file_move moves it to exactly the path given. Nothing was moved. "
                        + (dir == null ? "Pass the new path with its name." : "To move it into directory '" + dir
                        + "', pass '" + dir + "/" + srcName + "'; to rename it, pass '" + dir + "'."));
            }
            if (sa.isDirectory()) {
                Path real = gate.resolve(from);
                boolean same = dst.equals(src) || dst.equals(real);    // refused below as the same entry
                if (!same && (dst.startsWith(src) || dst.startsWith(real))) {
                    throw Params.invalid("Cannot move directory " + ConfinedRoot.quote(from) + " into itself ("
                            + ConfinedRoot.quote(to) + " is inside it). Choose a target outside it.");
                }
            }
            requireParent(gate, dst, to, createParents);
            String beside = createParents ? NearNames.createdBeside(gate, dst, false) : null;
            try (SafeDirectory td = createParents ? gate.openOrCreate(dst.getParent()) : gate.open(dst.getParent())) {
                BasicFileAttributes ta = null;
                try {
                    ta = td.attributes(dstName);
                } catch (NoSuchFileException e) {
                    // free: the usual case
                }
                if (ta != null) {
                    refuseTarget(sa, ta, src, dst, from, to, overwrite);
                }
                boolean atomic;
                try {
                    atomic = sd.move(srcName, td, dstName, ta != null);
                } catch (FileAlreadyExistsException e) {
                    throw exists(to, "was created meanwhile. Call file_stat on it, then pass overwrite: true to "
                            + "replace a file, or choose another name.");
                } catch (NoSuchFileException e) {
                    throw new ToolException(ErrorCode.NOT_FOUND, ConfinedRoot.quote(from) + " was removed meanwhile; "
                            + "nothing was moved.");
                }
                return new MoveResult(gate.relative(src), gate.relative(dst), type(sa), ta != null, atomic,
                        FileErrors.moreHint(atomic ? null : NON_ATOMIC_HINT, beside));
            }
        } catch (IOException e) {
            throw FileErrors.io(e, from, "move");
        }
    }

    private static void refuseTarget(BasicFileAttributes sa, BasicFileAttributes ta, Path src, Path dst, String from,
                                     String to, boolean overwrite) throws ToolException {
        // Compared without following a link: a link to the target is another entry than the target.
        if (src.equals(dst) || sa.fileKey() != null && sa.fileKey().equals(ta.fileKey())) {
            throw Params.invalid(ConfinedRoot.quote(from) + " and " + ConfinedRoot.quote(to) + " are the same entry; "
                    + "nothing was moved. To change only the letter case of a name, move it to a temporary name "
                    + "first.");
        }
        if (ta.isDirectory()) {
            throw exists(to, "is an existing directory; file_move never replaces a directory (also not with "
                    + "overwrite). To move into it, pass its path plus the name, e.g. '" + to + "/name'.");
        }
        if (!ta.isRegularFile()) {
            throw exists(to, "is an existing link or special file; file_move never replaces one. Choose another "
                    + "name, or file_delete it first.");
        }
        if (!sa.isRegularFile()) {
            throw exists(to, "is an existing file; file_move never replaces a file by a directory or link. Choose "
                    + "another name, or file_delete the file first.");
        }
        if (!overwrite) {
            throw exists(to, "already exists. Pass overwrite: true to replace it, or choose another name.");
        }
    }

    private static ToolException exists(String userPath, String what) {
        return new ToolException(ErrorCode.EXISTS, "Target " + ConfinedRoot.quote(userPath) + " " + what);
    }

    /** Without createParents the target's directory must exist; with it no component may be a file. */
    private static void requireParent(ConfinedRoot gate, Path dst, String to, boolean createParents)
            throws ToolException {
        Path existing = gate.requireNoFileOnTheWay(dst.getParent(), "Cannot move to " + ConfinedRoot.quote(to));
        if (!createParents && !existing.equals(dst.getParent())) {
            throw new ToolException(ErrorCode.NOT_FOUND, "The directory of the target " + ConfinedRoot.quote(to)
                    + " does not exist (" + ConfinedRoot.quote(gate.relative(dst.getParent())) + "). Pass "
                    + "createParents: true to create it, or create it first with file_mkdir.");
        }
    }

    /**
     * A caller's entry (its last name not followed) that must not be the root: the root gets a message of its
     * own, {@code invalid_params}, not the escape.
     *
     * @param gate the gate
     * @param userPath the caller's path
     * @param tool the tool, for the message
     * @param what what the tool would do to it, e.g. {@code "move"}
     * @return the validated entry
     * @throws ToolException {@code invalid_params} for the root, else as {@link ConfinedRoot#resolveEntry}
     */
    static Path entry(ConfinedRoot gate, String userPath, String tool, String what) throws ToolException {
        return entry(gate, userPath, tool, what, false);
    }

    /**
     * {@link #entry(ConfinedRoot, String, String, String)}, which with {@code specialToo} also accepts an existing
     * special file ({@link ConfinedRoot#resolveEntryToRemove}).
     *
     * @param gate the gate
     * @param userPath the caller's path
     * @param tool the tool, for the message
     * @param what what the tool would do to it
     * @param specialToo whether a FIFO, socket or device is accepted (to remove it: nothing opens it)
     * @return the validated entry
     * @throws ToolException as {@link #entry(ConfinedRoot, String, String, String)}
     */
    static Path entry(ConfinedRoot gate, String userPath, String tool, String what, boolean specialToo)
            throws ToolException {
        try {
            return specialToo ? gate.resolveEntryToRemove(userPath) : gate.resolveEntry(userPath);
        } catch (ToolException e) {
            if (e.code() == ErrorCode.PATH_ESCAPE && isRoot(gate, userPath)) {
                throw Params.invalid("Path " + ConfinedRoot.quote(userPath) + " is the work directory itself; "
                        + tool + " cannot " + what + " it. Pass a path of a file or directory inside it.");
            }
            throw e;
        }
    }

    private static boolean isRoot(ConfinedRoot gate, String userPath) {
        try {
            return gate.resolve(userPath).equals(gate.root());
        } catch (ToolException e) {
            return false;
        }
    }

    /**
     * {@code file_mkdir}: creates a directory and its missing parents, race-free.
     *
     * @param gate the gate
     * @param params path
     * @return path, created (false when it existed)
     * @throws ToolException {@code exists} when a file is there, {@code invalid_params} when a parent is a file
     */
    MkdirResult mkdir(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.requireString(params, "path");
        ConfinedRoot.refuseReplacementCharacter(userPath, "path");
        Path dir = gate.resolve(userPath);
        BasicFileAttributes here = ConfinedRoot.attributesOrNull(dir);
        if (here != null) {
            if (here.isDirectory()) {
                return new MkdirResult(gate.relative(dir), false, null);
            }
            throw new ToolException(ErrorCode.EXISTS, "Cannot create directory " + ConfinedRoot.quote(userPath)
                    + ": a file of that name exists. Choose another name, or file_delete the file first.");
        }
        gate.requireNoFileOnTheWay(dir.getParent(), "Cannot create directory " + ConfinedRoot.quote(userPath));
        String beside = NearNames.createdBeside(gate, dir, true);
        try (SafeDirectory d = gate.openOrCreate(dir)) {
            return new MkdirResult(gate.relative(d.path()), true, beside);
        } catch (IOException e) {
            throw FileErrors.io(e, userPath, "create directory");
        }
    }

    /**
     * {@code file_stat}: what an entry is, without opening it (unless lines are asked for).
     *
     * @param gate the gate
     * @param params path (default {@code "."}), countLines (default false)
     * @return path, type, size, mode, modified, lines (only with countLines)
     * @throws ToolException {@code not_found}, {@code path_escape}; as file_count for countLines
     */
    StatResult stat(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.optString(params, "path", ".");
        boolean countLines = Params.optBoolean(params, "countLines", false);
        Path p;
        try {
            p = gate.resolveEntry(userPath);
        } catch (ToolException e) {
            if (e.code() != ErrorCode.PATH_ESCAPE || !isRoot(gate, userPath)) {
                throw e;
            }
            p = gate.root();
        }
        BasicFileAttributes a;
        Set<PosixFilePermission> perms;
        try {
            if (p.equals(gate.root())) {
                a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                PosixFileAttributeView v = p.getFileSystem().supportedFileAttributeViews().contains("posix")
                        ? Files.getFileAttributeView(p, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS) : null;
                perms = v == null ? null : v.readAttributes().permissions();
            } else {
                try (SafeDirectory d = gate.open(p.getParent())) {
                    String name = p.getFileName().toString();
                    try {
                        a = d.attributes(name);
                    } catch (NoSuchFileException e) {
                        throw ConfinedRoot.notFound(userPath);
                    }
                    perms = d.posixPermissions(name);
                }
            }
        } catch (IOException e) {
            throw FileErrors.io(e, userPath, "stat");
        }
        Long lines = null;
        String hint = null;
        if (countLines) {
            if (a.isRegularFile()) {
                lines = counting.count(gate, Map.of("path", userPath)).lines();
            } else {
                hint = "lines is null: countLines counts the lines of a regular file only. Use file_count for the "
                        + "lines of a directory tree.";
            }
        }
        return new StatResult(gate.relative(p), type(a), a.size(), mode(perms),
                // in milliseconds, as file_find gives it: the same file's two times compare equal
                Instant.ofEpochMilli(a.lastModifiedTime().toMillis()).toString(), countLines, lines, hint);
    }

    static String type(BasicFileAttributes a) {
        if (a.isSymbolicLink()) {
            return "symlink";
        }
        if (a.isDirectory()) {
            return "directory";
        }
        return a.isRegularFile() ? "file" : "special";   // a FIFO, socket or device: only file_tree shows one
    }

    private static String mode(Set<PosixFilePermission> perms) {
        if (perms == null) {
            return null;
        }
        int bits = 0;
        for (PosixFilePermission p : perms) {
            bits |= 1 << (8 - p.ordinal());
        }
        return String.format("%04o", bits);
    }
}
