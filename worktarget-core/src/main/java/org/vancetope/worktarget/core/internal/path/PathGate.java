package org.vancetope.worktarget.core.internal.path;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The confinement gate: the one choke point that turns a caller's path into a validated path inside
 * a root, or refuses it with {@code path_escape}.
 *
 * <p>Checks, in order:
 * <ol>
 *   <li>syntax: not empty, no NUL or other control characters, no backslash, not absolute, no leading
 *       {@code ~}, no {@code ':'} (drive letters, alternate streams), bounded path and component
 *       length;</li>
 *   <li>containment, component-wise: {@code .} and empty components are dropped, {@code ..} pops a
 *       component and may never pop the root; the result must satisfy {@link Path#startsWith(Path)}
 *       on the root (never a string prefix, so {@code /ws_evil} is not inside {@code /ws});</li>
 *   <li>symlinks: the deepest existing ancestor of the target is resolved with
 *       {@link Path#toRealPath} and must stay inside the real root; dangling links and loops are
 *       refused;</li>
 *   <li>special files: an existing FIFO, socket or device is refused before anything opens it.</li>
 * </ol>
 * The returned path is the real path of the deepest existing ancestor plus the remaining components,
 * so the operation that follows never re-interprets the raw input. {@code ..} is applied lexically,
 * so {@code link/../x} means {@code x} inside the root, never the parent of the link's target.
 *
 * <p>Every containment refusal reads the same, whatever exists outside the root, and no message
 * contains a host path: only the caller's own input is quoted.
 *
 * <pre>{@code
 * PathGate gate = PathGate.of(workDir);
 * Path file = gate.resolve("src/Main.java");      // throws ToolException(PATH_ESCAPE) for "../x"
 * String shown = gate.relative(file);             // "src/Main.java"
 * }</pre>
 *
 * <p>The gate does not open files; closing races between the check and the use is the job of
 * {@link SafeDirectory}, which operates on the validated path without following links.
 */
public final class PathGate {
    /** Default longest accepted path, in characters. */
    public static final int DEFAULT_MAX_PATH_LENGTH = 4096;
    /** Default longest accepted path component, in characters. */
    public static final int DEFAULT_MAX_COMPONENT_LENGTH = 255;

    private static final int MAX_QUOTED = 120;

    private final Path root;
    private final int maxPathLength;
    private final int maxComponentLength;

    private PathGate(Path root, int maxPathLength, int maxComponentLength) {
        this.root = root;
        this.maxPathLength = maxPathLength;
        this.maxComponentLength = maxComponentLength;
    }

    /**
     * A gate for an existing root directory with the default limits.
     *
     * @param root the root; may be given through a symlink or with a trailing separator
     * @return the gate
     * @throws IOException when the root does not exist or is not a directory
     */
    public static PathGate of(Path root) throws IOException {
        return of(root, DEFAULT_MAX_PATH_LENGTH, DEFAULT_MAX_COMPONENT_LENGTH);
    }

    /**
     * A gate for an existing root directory.
     *
     * @param root the root; it is canonicalised once, here ({@link Path#toRealPath})
     * @param maxPathLength the longest accepted caller path, in characters
     * @param maxComponentLength the longest accepted component, in characters
     * @return the gate
     * @throws IOException when the root does not exist or is not a directory
     */
    public static PathGate of(Path root, int maxPathLength, int maxComponentLength) throws IOException {
        Objects.requireNonNull(root, "root");
        if (maxPathLength < 1 || maxComponentLength < 1) {
            throw new IllegalArgumentException("path limits must be positive");
        }
        Path real = root.toAbsolutePath().toRealPath();
        if (!Files.isDirectory(real)) {
            throw new java.nio.file.NotDirectoryException(root.toString());
        }
        return new PathGate(real, maxPathLength, maxComponentLength);
    }

    /**
     * The canonical root.
     *
     * @return the real path of the root
     */
    public Path root() {
        return root;
    }

    /**
     * Resolves a caller's path to a validated path inside the root, following links that stay inside.
     *
     * @param userPath the caller's path, relative, with {@code '/'} separators; {@code "."} is the root
     * @return the validated absolute path (it may not exist yet)
     * @throws ToolException {@code path_escape} for anything outside the root or syntactically refused;
     *         {@code invalid_params} for an existing special file
     */
    public Path resolve(String userPath) throws ToolException {
        Path lexical = lexical(userPath);
        Path validated = checkLinks(userPath, lexical);
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
        Path lexical = lexical(userPath);
        if (lexical.equals(root)) {
            throw escape(userPath);
        }
        Path parent = checkLinks(userPath, lexical.getParent());
        Path entry = parent.resolve(lexical.getFileName().toString());
        refuseSpecial(userPath, entry);
        return entry;
    }

    /**
     * Renders a validated path relative to the root with {@code '/'} separators; the root is {@code "."}.
     *
     * @param validated a path returned by this gate (or below one)
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

    // ---------------------------------------------------------------- syntax and lexical containment

    private Path lexical(String userPath) throws ToolException {
        if (userPath == null || userPath.isEmpty()) {
            throw new ToolException(ErrorCode.PATH_ESCAPE,
                    "The path is empty. Pass a path relative to the work directory, or '.' for the work directory itself.");
        }
        if (userPath.length() > maxPathLength) {
            throw new ToolException(ErrorCode.PATH_ESCAPE, "The path is longer than " + maxPathLength
                    + " characters. Use a shorter path relative to the work directory.");
        }
        for (int i = 0; i < userPath.length(); i++) {
            char c = userPath.charAt(i);
            if (c == 0) {
                throw syntax(userPath, "contains a NUL character");
            }
            if (c < 0x20 || c == 0x7f) {
                throw syntax(userPath, "contains a control character");
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
        List<String> names = new ArrayList<>();
        for (String part : userPath.split("/", -1)) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.length() > maxComponentLength) {
                throw new ToolException(ErrorCode.PATH_ESCAPE, "A component of the path is longer than "
                        + maxComponentLength + " characters. Use shorter names.");
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
            throw syntax(userPath, "contains characters this file system does not accept in names");
        }
        // Component-wise containment; also catches a name the file system itself interprets specially.
        Path normal = p.normalize();
        if (!normal.startsWith(root) || normal.getNameCount() != root.getNameCount() + names.size()) {
            throw escape(userPath);
        }
        return normal;
    }

    // ---------------------------------------------------------------- links

    private Path checkLinks(String userPath, Path lexical) throws ToolException {
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
            // a dangling link, a loop, or a link into a place we may not look at: refused like an escape
            throw escape(userPath);
        }
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

    private static boolean exists(Path p) {
        try {
            Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return true;
        } catch (IOException | SecurityException e) {
            return false;
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

    // ---------------------------------------------------------------- errors

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
                + "socket or device); the file tools only work on regular files and directories.");
    }

    private static ToolException syntax(String userPath, String what) {
        return new ToolException(ErrorCode.PATH_ESCAPE, "Path " + quote(userPath) + " " + what + ". Pass a path "
                + "relative to the work directory with '/' separators, e.g. 'src/Main.java'.");
    }
}
