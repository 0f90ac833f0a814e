package org.vancetope.worktarget.core.internal.transfer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import org.vancetope.worktarget.core.transfer.TargetResolution;
import org.vancetope.worktarget.core.transfer.TargetResolver;

/**
 * Resolves a peer-supplied relative path under a trusted base directory: a syntactic containment
 * check with {@link Path#startsWith(Path)} after normalising, then a walk over every existing
 * component below the base with {@link LinkOption#NOFOLLOW_LINKS} that refuses symbolic links. The
 * base itself is trusted (it may be a link set up by the host).
 */
public final class Sandbox {
    private Sandbox() {
    }

    /**
     * Resolves {@code relative} under {@code base}.
     *
     * @param base the trusted root
     * @param relative the untrusted relative path
     * @param access what the caller will do
     * @param escapeMessage the refusal for a path outside the root (same whether or not it exists)
     * @return the resolved absolute path, or a refusal
     */
    public static TargetResolution resolve(Path base, String relative, TargetResolver.Access access,
                                           String escapeMessage) {
        if (relative == null || relative.isEmpty()) {
            return TargetResolution.refused("path must not be empty");
        }
        for (int i = 0; i < relative.length(); i++) {
            char c = relative.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return TargetResolution.refused("path must not contain control characters");
            }
        }
        Path rel;
        try {
            rel = base.getFileSystem().getPath(relative);
        } catch (InvalidPathException e) {
            return TargetResolution.refused("path is not valid on the receiving system");
        }
        if (rel.isAbsolute() || rel.getRoot() != null) {
            return TargetResolution.refused(escapeMessage);
        }
        Path root = base.toAbsolutePath().normalize();
        Path resolved = root.resolve(rel).normalize();
        if (!resolved.startsWith(root) || resolved.equals(root)) {
            return TargetResolution.refused(escapeMessage);
        }
        Path current = root;
        BasicFileAttributes last = null;
        for (Path name : root.relativize(resolved)) {
            current = current.resolve(name);
            BasicFileAttributes a;
            try {
                a = Files.readAttributes(current, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException e) {
                break;
            } catch (IOException e) {
                return TargetResolution.refused("path cannot be inspected: " + e.getClass().getSimpleName());
            }
            if (a.isSymbolicLink()) {
                return TargetResolution.refused(escapeMessage);
            }
            if (current.equals(resolved)) {
                last = a;
            } else if (!a.isDirectory()) {
                return TargetResolution.refused("a parent of '" + relative + "' is not a directory");
            }
        }
        if (access == TargetResolver.Access.READ && (last == null || !last.isRegularFile())) {
            return TargetResolution.refused(last == null ? "file not found: " + relative
                    : "not a regular file: " + relative);
        }
        if (access == TargetResolver.Access.WRITE && last != null && !last.isRegularFile()) {
            return TargetResolution.refused("target exists and is not a regular file: " + relative);
        }
        return TargetResolution.resolved(resolved);
    }
}
