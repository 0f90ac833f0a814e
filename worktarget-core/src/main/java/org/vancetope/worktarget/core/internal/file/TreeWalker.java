package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;

/**
 * A parallel directory walk that never follows links: each directory is one fork/join task working on
 * a {@link SafeDirectory} opened from its parent's (with {@code SecureDirectoryStream}, by
 * {@code openat} without following links), entries are examined with {@code lstat}; links, FIFOs,
 * sockets and devices are never opened or descended into, and a directory swapped for a link while
 * the walk runs is not entered. Generated directories, {@link Excludes} matches and what a
 * {@link GitIgnore} ignores are pruned while walking, not filtered afterwards (each directory's
 * {@code .gitignore} is read when the walk enters it). Matching files go to a sink in chunks that run in parallel too; a sink opens a file
 * through {@link Entry#open()}, relative to its open directory.
 *
 * <p>On Linux's default file system a directory's link count tells how many subdirectories it has
 * ({@code 2 + n}); once that many were seen, entries whose names the glob rejects are skipped without
 * an {@code lstat} (the classic "leaf" optimisation of {@code find}). A link count below 2 (btrfs,
 * overlayfs merged directories) or none (Jimfs) means "unknown" and every entry is examined. The JDK
 * hands out no entry types, so the entries the glob accepts (which need an {@code lstat} anyway, to
 * tell regular files) are examined first, then names without a {@code '.'} (likely directories), then
 * the rest; the link count itself costs a path lookup and is only read when at least two rejected names
 * look like files.
 */
final class TreeWalker {
    private static final int FILE_CHUNK = 48;
    private static final boolean LEAF_OPTIMISATION =
            System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");

    /**
     * One regular file found.
     *
     * @param rel the path relative to the walk base, {@code '/'}-separated
     * @param size its size in bytes
     * @param mtimeMillis its modification time
     * @param dir its directory, open while the sink runs (null in a collected {@link Result})
     * @param name its name in {@code dir}, as the one-component path {@link SafeDirectory#entries()} gives
     */
    record Entry(String rel, long size, long mtimeMillis, SafeDirectory dir, Path name) {
        /**
         * Opens the file for reading relative to its open directory, never following a link.
         *
         * @return the channel
         * @throws IOException on failure
         */
        SeekableByteChannel open() throws IOException {
            return dir.openRead(name);
        }
    }

    /**
     * The walk's outcome.
     *
     * @param files the files, sorted by {@link Entry#rel()}
     * @param skipped what the walk did not look into
     */
    record Result(List<Entry> files, Skipped skipped) {
    }

    /**
     * What a walk did not look into.
     *
     * @param generatedDirs generated directories pruned
     * @param unreadableDirs directories that could not be listed
     * @param ignored files and directories skipped because a {@code .gitignore} ignores them
     * @param deepDirs directories deeper than {@code maxDepth}, not entered (those neither pruned nor ignored)
     * @param maxDepth the walk's depth limit
     */
    record Skipped(int generatedDirs, int unreadableDirs, int ignored, int deepDirs, int maxDepth) {
        /**
         * For a walk that found nothing: what it skipped that may hold what was looked for, and the
         * parameter that includes it; or null when it skipped nothing. Without it, an empty result reads as
         * "not there".
         *
         * @param what what was looked for, e.g. {@code "file"} or {@code "match"}
         * @param maxDepthLimit the largest maxDepth a caller may pass
         * @return the hint, or null
         */
        String nothingFoundHint(String what, int maxDepthLimit) {
            List<String> parts = new ArrayList<>(3);
            if (generatedDirs > 0) {
                parts.add(generatedDirs + (generatedDirs == 1 ? " generated directory" : " generated directories")
                        + " (pass includeGenerated: true to look there too)");
            }
            if (ignored > 0) {
                parts.add(ignored + (ignored == 1 ? " file or directory" : " files or directories")
                        + " ignored by .gitignore (pass includeIgnored: true)");
            }
            if (deepDirs > 0) {
                parts.add(deepDirsText() + ", not entered (" + deeperAdvice(maxDepthLimit) + ")");
            }
            return parts.isEmpty() ? null : "No " + what + " found, but this was skipped: " + String.join(" and ", parts)
                    + ".";
        }

        /**
         * The directories that could not be listed, for a hint that goes with any result (what is in them is
         * missing from it, whatever else was found); or null when every directory was listed.
         *
         * @return the hint's sentence, or null
         */
        String unreadableHint() {
            if (unreadableDirs == 0) {
                return null;
            }
            boolean one = unreadableDirs == 1;
            return unreadableDirs + (one ? " directory" : " directories") + " could not be listed or searched (no "
                    + "permission: a directory needs r and x; or removed meanwhile), so what is in " + (one ? "it" : "them")
                    + " is missing here. See why with exec_run, for example find . -type d \\( ! -readable -o ! "
                    + "-executable \\) -exec ls -ld {} +.";
        }

        /**
         * How to look into the directories not entered for {@code maxDepth}: a larger one while there is, else
         * a path further down (a walk never goes deeper than the limit).
         *
         * @param maxDepthLimit the largest maxDepth a caller may pass
         * @return e.g. {@code "pass a larger maxDepth (at most 64) to look there"}
         */
        String deeperAdvice(int maxDepthLimit) {
            return maxDepth < maxDepthLimit ? "pass a larger maxDepth (at most " + maxDepthLimit + ") to look there"
                    : "maxDepth is at its most, " + maxDepthLimit + ": pass a path further down as path to look there";
        }

        /**
         * The directories not entered for {@code maxDepth}, for a hint.
         *
         * @return e.g. {@code "2 directories deeper than maxDepth 12"}
         */
        String deepDirsText() {
            return deepDirs + (deepDirs == 1 ? " directory" : " directories") + " deeper than maxDepth " + maxDepth;
        }
    }

    /** Receives matching files, from several threads at once. */
    @FunctionalInterface
    interface Sink {
        /**
         * One matching regular file.
         *
         * @param e the file
         */
        void accept(Entry e);
    }

    /**
     * What to walk.
     *
     * @param base the directory, open
     * @param maxDepth how many directory levels below {@code base} to descend (0 = only {@code base})
     * @param glob a glob on the path relative to {@code base}, or null
     * @param prune directory names to skip, or null
     * @param filter a filter on the attributes of regular files, or null
     * @param excludes paths to skip (files, and directories not entered), or null
     * @param ignores the {@code .gitignore} rules above {@code base} (the walk adds those it finds), or null
     *        to ignore nothing
     */
    record Spec(SafeDirectory base, int maxDepth, Glob glob, Set<String> prune, Predicate<BasicFileAttributes> filter,
                Excludes excludes, GitIgnore ignores) {
        /**
         * A walk without excludes that reads no {@code .gitignore}.
         *
         * @param base the directory, open
         * @param maxDepth how many directory levels below {@code base} to descend
         * @param glob a glob on the path relative to {@code base}, or null
         * @param prune directory names to skip, or null
         * @param filter a filter on the attributes of regular files, or null
         */
        Spec(SafeDirectory base, int maxDepth, Glob glob, Set<String> prune, Predicate<BasicFileAttributes> filter) {
            this(base, maxDepth, glob, prune, filter, null, null);
        }
    }

    private TreeWalker() {
    }

    /**
     * What turns a path relative to {@code dir} (an {@link Entry#rel()} of a walk of it) into a path
     * relative to the gate's root: empty for the root itself, else the directory's relative path and
     * {@code '/'}.
     *
     * @param gate the gate
     * @param dir a directory under its root
     * @return the prefix
     */
    static String prefix(ConfinedRoot gate, Path dir) {
        String rel = gate.relative(dir);
        return rel.equals(".") ? "" : rel + "/";
    }

    /**
     * Walks and collects the matching files, sorted by relative path.
     *
     * @param lanes where the call's tasks run
     * @param deadline the call's deadline, checked at every directory and file
     * @param spec what to walk
     * @return the files and counts
     * @throws CallDeadline.Stop when the call is over before the walk finished
     */
    static Result walk(SearchLanes lanes, CallDeadline deadline, Spec spec) {
        Shared shared = new Shared(spec, null, leaf(spec), deadline);
        DirTask root = new DirTask(null, spec.base(), null, "", 0, spec.ignores(), shared);
        lanes.run(deadline, root);
        return new Result(root.flatten(), shared.skipped());
    }

    /**
     * Walks and hands every matching file to a sink (concurrently, in no particular order), on a lane of
     * the call's own; returns when no task of the walk runs any more.
     *
     * @param lanes where the call's tasks run
     * @param deadline the call's deadline, checked at every directory and file
     * @param spec what to walk
     * @param sink the receiver
     * @return what the walk did not look into
     * @throws CallDeadline.Stop when the call is over before the walk finished
     */
    static Skipped walk(SearchLanes lanes, CallDeadline deadline, Spec spec, Sink sink) {
        Shared shared = new Shared(spec, sink, leaf(spec), deadline);
        lanes.run(deadline, new DirTask(null, spec.base(), null, "", 0, spec.ignores(), shared));
        return shared.skipped();
    }

    private static boolean leaf(Spec spec) {
        return leafOptimisation(spec.base().path());
    }

    /**
     * Whether a directory's link count may be trusted to count its subdirectories: Linux, on the default
     * file system (the count itself still says "unknown" where it cannot, see {@link #subdirectories}).
     *
     * @param dir a directory of the walk or listing
     * @return whether to read its link count
     */
    static boolean leafOptimisation(Path dir) {
        return LEAF_OPTIMISATION && dir.getFileSystem() == FileSystems.getDefault();
    }

    /** What a walk shares between its tasks; {@code sink} is null when the walk collects its files in order. */
    private record Shared(Spec spec, Sink sink, LongAdder generated, LongAdder unreadable, LongAdder ignored,
                          LongAdder deep, boolean leaf, CallDeadline deadline) {
        Shared(Spec spec, Sink sink, boolean leaf, CallDeadline deadline) {
            this(spec, sink, new LongAdder(), new LongAdder(), new LongAdder(), new LongAdder(), leaf, deadline);
        }

        Skipped skipped() {
            return new Skipped(generated.intValue(), unreadable.intValue(), ignored.intValue(), deep.intValue(),
                    spec.maxDepth());
        }
    }

    /**
     * The link count of a directory ({@code unix:nlink}, not following a link), or null where the file
     * system has none (Jimfs, other platforms) or it cannot be read.
     */
    static Object linkCount(Path dir) {
        try {
            return Files.getAttribute(dir, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * How many subdirectories a directory with this link count has: {@code nlink - 2} on file systems that
     * count a directory's {@code .} and each subdirectory's {@code ..} (ext4, xfs, tmpfs); -1 for
     * "unknown" when the count is missing, not a number or below 2 (btrfs and overlayfs merged
     * directories report 1), so that every entry is examined.
     *
     * @param nlink the {@code unix:nlink} attribute, or null
     * @return the number of subdirectories, or -1
     */
    static int subdirectories(Object nlink) {
        int links = nlink instanceof Integer i ? i : -1;
        return links >= 2 ? links - 2 : -1;
    }

    /**
     * One directory of the walk. A collecting walk (no sink) keeps, per directory, its files and its
     * subdirectories' tasks sorted by name, a subdirectory by its name plus {@code '/'}: since no name
     * holds a {@code '/'}, a directory's whole subtree then sorts as one block at that key, so reading
     * the tree depth-first gives the files sorted by their relative path without comparing whole paths.
     */
    private static final class DirTask extends RecursiveAction {
        private static final long serialVersionUID = 1L;
        private final transient SafeDirectory parent;
        private final transient SafeDirectory given;
        private final transient Path name;
        private final String rel;
        private final int depth;
        private final transient GitIgnore ignores;
        private final transient Shared shared;
        /** Collecting walk: the files ({@link Entry}) and subdirectories ({@link DirTask}), in path order. */
        private transient Object[] children;

        /** Either {@code given} (the base) or {@code parent} + {@code name} (opened when the task runs). */
        DirTask(SafeDirectory parent, SafeDirectory given, Path name, String rel, int depth, GitIgnore ignores,
                Shared shared) {
            this.parent = parent;
            this.given = given;
            this.name = name;
            this.rel = rel;
            this.depth = depth;
            this.ignores = ignores;
            this.shared = shared;
        }

        @Override
        protected void compute() {
            shared.deadline().check();
            SafeDirectory dir;
            try {
                dir = given != null ? given : parent.openChild(name);
            } catch (IOException | RuntimeException e) {
                shared.unreadable().increment();
                return;
            }
            try {
                walk(dir);
            } finally {
                if (given == null) {
                    try {
                        dir.close();
                    } catch (IOException e) {
                        shared.unreadable().increment();
                    }
                }
            }
        }

        /** The files of the subtree in path order (after the walk; iterative, so depth cannot overflow the stack). */
        List<Entry> flatten() {
            List<Entry> out = new ArrayList<>();
            Object[][] levels = new Object[16][];
            int[] at = new int[16];
            int top = -1;
            if (children != null) {
                levels[++top] = children;
            }
            while (top >= 0) {
                Object[] level = levels[top];
                if (at[top] >= level.length) {
                    levels[top--] = null;
                    continue;
                }
                Object c = level[at[top]++];
                if (c instanceof Entry e) {
                    out.add(e);
                } else if (((DirTask) c).children != null) {
                    if (++top == levels.length) {
                        levels = Arrays.copyOf(levels, top * 2);
                        at = Arrays.copyOf(at, top * 2);
                    }
                    levels[top] = ((DirTask) c).children;
                    at[top] = 0;
                }
            }
            return out;
        }

        private void walk(SafeDirectory dir) {
            Spec spec = shared.spec();
            boolean collect = shared.sink() == null;
            List<RecursiveAction> tasks = new ArrayList<>();
            List<Entry> files = new ArrayList<>();
            List<String> dirKeys = collect ? new ArrayList<>() : null;
            List<Path> entries;
            try {
                entries = dir.entries();
            } catch (IOException | RuntimeException e) {
                shared.unreadable().increment();
                return;
            }
            GitIgnore here = ignores == null ? null : ignores.enter(dir, entries, rel);
            int count = entries.size();
            String[] names = new String[count];
            String[] rels = new String[count];
            // with a glob: the entries the glob accepts first, then those that are likely directories (no
            // '.'), then the likely files, so that the leaf optimisation skips as many as it can
            int[] order = spec.glob() == null ? null : new int[count];
            boolean[] matched = order == null ? null : new boolean[count];
            int accepted = 0;
            int likelyFiles = 0;
            int kept = 0;
            for (int i = 0; i < count; i++) {
                String n = entries.get(i).toString();
                String r = rel.isEmpty() ? n : rel + '/' + n;
                if (spec.excludes() != null && spec.excludes().excludes(r, n)) {
                    continue;
                }
                names[i] = n;
                rels[i] = r;
                kept++;
                if (order != null) {
                    if (spec.glob().matches(r, n)) {
                        matched[i] = true;
                        order[accepted++] = i;
                    } else if (n.indexOf('.') >= 0) {
                        likelyFiles++;
                    }
                }
            }
            int subdirsLeft = -1;
            if (order != null) {
                int undotted = accepted;
                int dotted = accepted + (kept - accepted - likelyFiles);
                for (int i = 0; i < count; i++) {
                    if (names[i] != null && !matched[i]) {
                        order[names[i].indexOf('.') >= 0 ? dotted++ : undotted++] = i;
                    }
                }
                // the link count costs a path lookup: only worth it when it may spare two lstat calls or more
                if (shared.leaf() && likelyFiles >= 2) {
                    subdirsLeft = subdirectories(linkCount(dir.path()));
                }
            }
            int seen = 0;
            boolean unexamined = false;
            for (int k = 0; k < (order == null ? count : kept); k++) {
                int i = order == null ? k : order[k];
                if ((++seen & 255) == 0) {
                    shared.deadline().check();
                }
                String n = names[i];
                if (n == null) {
                    continue;
                }
                String r = rels[i];
                Path np = entries.get(i);
                boolean nameMatches = order == null || k < accepted;
                if (subdirsLeft == 0 && !nameMatches) {
                    break; // every subdirectory was seen: the rest are non-matching non-directories
                }
                BasicFileAttributes a;
                try {
                    a = dir.attributes(np);
                } catch (NoSuchFileException e) {
                    continue;                               // removed since the listing
                } catch (IOException | RuntimeException e) {
                    unexamined = true;                      // listed, not searchable (mode r-- without x)
                    continue;
                }
                if (a.isDirectory()) {
                    if (subdirsLeft > 0) {
                        subdirsLeft--;
                    }
                    boolean deep = depth >= spec.maxDepth();
                    if (spec.prune() != null && spec.prune().contains(n)) {
                        if (!deep) {
                            shared.generated().increment();
                        }
                        continue;
                    }
                    if (deep) {
                        // counted only when the walk would have entered it: a deeper one may hold what was looked for
                        if (here == null || !here.ignored(r, n, true)) {
                            shared.deep().increment();
                        }
                        continue;
                    }
                    if (here != null && here.ignored(r, n, true)) {
                        shared.ignored().increment();
                        continue;
                    }
                    tasks.add(new DirTask(dir, null, np, r, depth + 1, here, shared));
                    if (collect) {
                        dirKeys.add(n + '/');
                    }
                } else if (a.isRegularFile() && nameMatches && (spec.filter() == null || spec.filter().test(a))) {
                    if (here != null && here.ignored(r, n, false)) {
                        shared.ignored().increment();
                        continue;
                    }
                    files.add(new Entry(r, a.size(), a.lastModifiedTime().toMillis(), collect ? null : dir, np));
                }
            }
            if (unexamined) {
                shared.unreadable().increment();
            }
            if (collect) {
                children = ordered(files, tasks, dirKeys);
            } else {
                for (int i = 0; i < files.size(); i += FILE_CHUNK) {
                    tasks.add(new FileChunk(files.subList(i, Math.min(files.size(), i + FILE_CHUNK)), shared));
                }
            }
            if (tasks.size() == 1) {
                tasks.get(0).invoke();
            } else if (!tasks.isEmpty()) {
                invokeAll(tasks);
            }
        }

        /** Files and subdirectory tasks merged in path order (files by name, directories by name + '/'). */
        private static Object[] ordered(List<Entry> files, List<RecursiveAction> dirs, List<String> dirKeys) {
            Object[] out = new Object[files.size() + dirs.size()];
            if (dirs.isEmpty()) {
                files.sort(BY_NAME);
                return files.toArray(out);
            }
            String[] keys = new String[out.length];
            Integer[] order = new Integer[out.length];
            for (int i = 0; i < files.size(); i++) {
                keys[i] = files.get(i).name().toString();
                order[i] = i;
            }
            for (int j = 0; j < dirs.size(); j++) {
                keys[files.size() + j] = dirKeys.get(j);
                order[files.size() + j] = files.size() + j;
            }
            Arrays.sort(order, (x, y) -> keys[x].compareTo(keys[y]));
            for (int i = 0; i < out.length; i++) {
                int k = order[i];
                out[i] = k < files.size() ? files.get(k) : dirs.get(k - files.size());
            }
            return out;
        }
    }

    private static final Comparator<Entry> BY_NAME = Comparator.comparing(e -> e.name().toString());

    private static final class FileChunk extends RecursiveAction {
        private static final long serialVersionUID = 1L;
        private final transient List<Entry> files;
        private final transient Shared shared;

        FileChunk(List<Entry> files, Shared shared) {
            this.files = files;
            this.shared = shared;
        }

        @Override
        protected void compute() {
            for (Entry e : files) {
                shared.deadline().check();
                shared.sink().accept(e);
            }
        }
    }
}
