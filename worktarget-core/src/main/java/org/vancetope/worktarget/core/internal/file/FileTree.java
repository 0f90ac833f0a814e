package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.spi.ToolException;

/**
 * {@code file_tree}: a directory tree, level by level (breadth first, so a cut leaves out the deepest
 * entries, not whole subtrees), shown in tree order. Directories are opened from their parent's handle
 * without following links ({@link SafeDirectory#openChild}), entries are examined with {@code lstat};
 * links and special files are shown, never entered or opened. Generated directories are shown but not
 * entered. Capped like {@code file_list} by {@link FileToolSettings#listMaxEntries()} entries and
 * {@link FileToolSettings#resultMaxBytes()} bytes of JSON, and bounded by the search deadline.
 */
final class FileTree {
    /** The depth of a call that gives none. */
    static final int DEFAULT_DEPTH = 3;

    private final FileToolSettings settings;

    FileTree(FileToolSettings settings) {
        this.settings = settings;
    }

    private record Level(SafeDirectory dir, List<String> names, int depth) {
    }

    private record Found(List<String> names, TreeResult.Node node) {
    }

    /**
     * {@code file_tree}.
     *
     * @param gate the gate
     * @param params path (default {@code "."}), maxDepth (default 3), sizes (default false), includeGenerated
     * @return path, maxDepth, entries, count, truncated, skippedGeneratedDirs
     * @throws ToolException {@code not_found}, {@code invalid_params} for a file, {@code timeout}
     */
    TreeResult tree(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.optString(params, "path", ".");
        int maxDepth = Params.optInt(params, "maxDepth", Math.min(DEFAULT_DEPTH, settings.maxDepthLimit()), 0,
                settings.maxDepthLimit());
        boolean sizes = Params.optBoolean(params, "sizes", false);
        boolean includeGenerated = Params.optBoolean(params, "includeGenerated", false);
        Path base = gate.resolve(userPath);
        FileErrors.requireDirectory(base, userPath, "file_tree");
        String prefix = TreeWalker.prefix(gate, base);
        CallDeadline deadline = CallDeadline.start("file_tree", settings.searchTimeout().toMillis());
        List<Found> found = new ArrayList<>();
        int skippedGenerated = 0;
        int unreadable = 0;
        int maxEntries = settings.listMaxEntries();
        long bytes = 2;
        boolean byBytes = false;
        boolean cut = false;
        Deque<Level> queue = new ArrayDeque<>();
        try {
            queue.add(new Level(gate.open(base), List.of(), 0));
            walk:
            while (!queue.isEmpty()) {
                Level level = queue.poll();
                try (SafeDirectory dir = level.dir()) {
                    deadline.check();
                    // entries as the platform hands them out, so that a name that is not UTF-8 is reached too
                    List<Path> entries;
                    try {
                        entries = dir.entries();
                    } catch (IOException e) {
                        if (level.depth() == 0) {
                            throw e;                // the directory asked for: its own error
                        }
                        unreadable++;               // one below it: shown, its entries missing (said in the hint)
                        continue;
                    }
                    entries.sort(Comparator.comparing(Path::toString));
                    boolean examined = true;
                    for (Path entry : entries) {
                        String n = entry.toString();
                        BasicFileAttributes a;
                        try {
                            a = dir.attributes(entry);
                        } catch (NoSuchFileException e) {
                            continue;
                        } catch (IOException e) {
                            // listed but not searchable (mode r-- without x): its entries cannot be examined
                            if (level.depth() == 0) {
                                throw e;
                            }
                            examined = false;
                            continue;
                        }
                        List<String> rel = new ArrayList<>(level.names());
                        rel.add(n);
                        boolean isDir = a.isDirectory();
                        TreeResult.Node node = new TreeResult.Node(prefix + String.join("/", rel) + (isDir ? "/" : ""),
                                FileEntries.type(a), sizes && a.isRegularFile() ? a.size() : null, sizes);
                        long b = node.jsonSize() + 1;
                        if (found.size() >= maxEntries || bytes + b > settings.resultMaxBytes()) {
                            byBytes = found.size() < maxEntries;
                            cut = true;
                            break walk;
                        }
                        bytes += b;
                        found.add(new Found(rel, node));
                        if (isDir && level.depth() < maxDepth) {
                            if (!includeGenerated && settings.generatedDirNames().contains(n)) {
                                skippedGenerated++;
                                continue;
                            }
                            try {
                                queue.add(new Level(dir.openChild(entry), rel, level.depth() + 1));
                            } catch (NoSuchFileException e) {
                                // removed meanwhile: shown, not entered
                            } catch (IOException e) {
                                unreadable++;       // no permission, or swapped for a link: shown, not entered
                            }
                        }
                    }
                    if (!examined) {
                        unreadable++;
                    }
                }
            }
        } catch (IOException e) {
            throw FileErrors.io(e, userPath, "list");
        } catch (CallDeadline.Stop e) {
            throw deadline.failure("Narrow path or lower maxDepth.");
        } finally {
            for (Level l : queue) {
                try {
                    l.dir().close();
                } catch (IOException e) {
                    // nothing was written through it
                }
            }
        }
        found.sort(TREE_ORDER);
        String hint = null;
        if (cut) {
            hint = "The tree was cut after " + found.size() + " entries " + (byBytes ? "at the result budget of "
                    + settings.resultMaxBytes() + " bytes of JSON (resultMaxBytes)" : "(listMaxEntries)")
                    + "; the deepest levels shown are incomplete. Call file_tree on a subdirectory or with a lower "
                    + "maxDepth to see the rest.";
        }
        if (unreadable > 0) {
            boolean one = unreadable == 1;
            hint = FileErrors.moreHint(hint, unreadable + (one ? " directory" : " directories") + " could not be "
                    + "entered or examined (no permission: a directory needs r and x), so what is in " + (one ? "it" : "them")
                    + " is missing or incomplete here. See why with exec_run, for example find . -type d ! -executable "
                    + "-exec ls -ld {} +.");
        }
        return new TreeResult(gate.relative(base), maxDepth, found.stream().map(Found::node).toList(), found.size(),
                cut, skippedGenerated, hint);
    }

    /** Component by component, so that a directory's entries follow it directly. */
    private static final Comparator<Found> TREE_ORDER = (x, y) -> {
        List<String> a = x.names();
        List<String> b = y.names();
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = a.get(i).compareTo(b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    };
}
