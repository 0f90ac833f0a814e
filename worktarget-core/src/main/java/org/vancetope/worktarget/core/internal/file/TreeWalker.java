package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * A parallel directory walk that never follows links: each directory is one fork/join task, entries
 * are examined with {@code lstat} ({@link LinkOption#NOFOLLOW_LINKS}); links, FIFOs, sockets and
 * devices are never opened or descended into. Generated directories are pruned while walking, not
 * filtered afterwards.
 */
final class TreeWalker {

    /**
     * One regular file found.
     *
     * @param rel the path relative to the walk base, {@code '/'}-separated
     * @param path the file
     * @param size its size in bytes
     * @param mtimeMillis its modification time
     */
    record Entry(String rel, Path path, long size, long mtimeMillis) {
    }

    /**
     * The walk's outcome.
     *
     * @param files the files, sorted by {@link Entry#rel()}
     * @param skippedGeneratedDirs generated directories pruned
     * @param unreadableDirs directories that could not be listed
     */
    record Result(List<Entry> files, int skippedGeneratedDirs, int unreadableDirs) {
    }

    private TreeWalker() {
    }

    /**
     * Walks a directory.
     *
     * @param pool the pool to run on
     * @param base the directory (validated, not a link)
     * @param maxDepth how many directory levels below {@code base} to descend (0 = only {@code base})
     * @param glob a glob on the path relative to {@code base}, or null
     * @param prune directory names to skip, or null
     * @param filter a filter on the attributes of regular files, or null
     * @return the files and counts
     */
    static Result walk(ForkJoinPool pool, Path base, int maxDepth, Glob glob, Set<String> prune,
                       Predicate<BasicFileAttributes> filter) {
        ConcurrentLinkedQueue<Entry> out = new ConcurrentLinkedQueue<>();
        LongAdder skipped = new LongAdder();
        LongAdder unreadable = new LongAdder();
        pool.invoke(new DirTask(base, "", 0, maxDepth, glob, prune, filter, out, skipped, unreadable));
        List<Entry> files = new ArrayList<>(out);
        files.sort(Comparator.comparing(Entry::rel));
        return new Result(files, skipped.intValue(), unreadable.intValue());
    }

    private static final class DirTask extends RecursiveAction {
        private static final long serialVersionUID = 1L;
        private final transient Path dir;
        private final String rel;
        private final int depth;
        private final int maxDepth;
        private final transient Glob glob;
        private final transient Set<String> prune;
        private final transient Predicate<BasicFileAttributes> filter;
        private final transient ConcurrentLinkedQueue<Entry> out;
        private final transient LongAdder skipped;
        private final transient LongAdder unreadable;

        DirTask(Path dir, String rel, int depth, int maxDepth, Glob glob, Set<String> prune,
                Predicate<BasicFileAttributes> filter, ConcurrentLinkedQueue<Entry> out, LongAdder skipped,
                LongAdder unreadable) {
            this.dir = dir;
            this.rel = rel;
            this.depth = depth;
            this.maxDepth = maxDepth;
            this.glob = glob;
            this.prune = prune;
            this.filter = filter;
            this.out = out;
            this.skipped = skipped;
            this.unreadable = unreadable;
        }

        @Override
        protected void compute() {
            List<DirTask> subs = null;
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                for (Path p : ds) {
                    String name = p.getFileName().toString();
                    BasicFileAttributes a;
                    try {
                        a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    } catch (IOException e) {
                        continue;
                    }
                    String r = rel.isEmpty() ? name : rel + '/' + name;
                    if (a.isDirectory()) {
                        if (depth >= maxDepth) {
                            continue;
                        }
                        if (prune != null && prune.contains(name)) {
                            skipped.increment();
                            continue;
                        }
                        if (subs == null) {
                            subs = new ArrayList<>();
                        }
                        subs.add(new DirTask(p, r, depth + 1, maxDepth, glob, prune, filter, out, skipped, unreadable));
                    } else if (a.isRegularFile()
                            && (glob == null || glob.matches(r, name))
                            && (filter == null || filter.test(a))) {
                        out.add(new Entry(r, p, a.size(), a.lastModifiedTime().toMillis()));
                    }
                }
            } catch (IOException | RuntimeException e) {
                unreadable.increment();
            }
            if (subs != null) {
                invokeAll(subs);
            }
        }
    }
}
