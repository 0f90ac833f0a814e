package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;

/**
 * Keeps the longest prefix, in (path, line) order, of the matches found that fits {@code limit}
 * matches and {@code maxBytes} bytes of JSON, while files are searched in parallel, and tells the walk
 * which files can no longer contribute (their path sorts after the last match kept once the limit is
 * reached, or after the first match dropped for size: a match that did not fit never fits later,
 * since matches found later only come before it), so the result is the same whatever order files are
 * searched in.
 */
final class GrepCollector {
    /**
     * One match as it goes into the result, with what it costs of the budget.
     *
     * @param match the match
     * @param bytes its JSON size plus a separating comma
     */
    record Hit(GrepResult.Match match, long bytes) {
    }

    /** How many skipped files {@link FewNames} keeps the names of. */
    static final int NAMED = 3;

    /** The first {@value #NAMED} paths, in path order (so whatever order files are searched in), of a set of files. */
    static final class FewNames {
        private final TreeSet<String> names = new TreeSet<>();

        synchronized void add(String rel) {
            names.add(rel);
            if (names.size() > NAMED) {
                names.pollLast();
            }
        }

        synchronized List<String> list() {
            return List.copyOf(names);
        }
    }

    final AtomicInteger large = new AtomicInteger();
    final FewNames largeNames = new FewNames();
    final AtomicInteger binary = new AtomicInteger();
    /** Of {@link #binary}: files whose first 8 KiB look like text, with a NUL later, that hold the pattern's bytes. */
    final AtomicInteger lateNul = new AtomicInteger();
    final FewNames lateNulNames = new FewNames();
    final AtomicInteger nonUtf8 = new AtomicInteger();
    final FewNames nonUtf8Names = new FewNames();
    final AtomicInteger unreadable = new AtomicInteger();
    final FewNames unreadableNames = new FewNames();
    /** Why the first file that could not be read could not: the error of a search of one named file. */
    final AtomicReference<IOException> firstUnreadable = new AtomicReference<>();
    final AtomicInteger searched = new AtomicInteger();
    final AtomicInteger skippedByLimit = new AtomicInteger();
    final long maxBytes;
    private final int limit;
    private final TreeMap<String, List<Hit>> byFile = new TreeMap<>();
    private int kept;
    private long bytes = 2;
    private int filesMatched;
    private boolean trimmed;
    private boolean byBytes;
    private String droppedRel;
    private int droppedLine;
    private volatile String cutoff;

    GrepCollector(int limit, long maxBytes) {
        this.limit = limit;
        this.maxBytes = maxBytes;
    }

    boolean beyondCutoff(String rel) {
        String c = cutoff;
        return c != null && rel.compareTo(c) > 0;
    }

    synchronized void add(String rel, List<Hit> hits) {
        filesMatched++;
        byFile.put(rel, new ArrayList<>(hits));
        kept += hits.size();
        for (Hit h : hits) {
            bytes += h.bytes();
        }
        while (kept > limit || bytes > maxBytes) {
            Map.Entry<String, List<Hit>> last = byFile.lastEntry();
            List<Hit> l = last.getValue();
            Hit drop = l.remove(l.size() - 1);
            if (kept <= limit) {
                byBytes = true;
            }
            kept--;
            bytes -= drop.bytes();
            trimmed = true;
            if (droppedRel == null || last.getKey().compareTo(droppedRel) < 0
                    || last.getKey().equals(droppedRel) && drop.match().line() < droppedLine) {
                droppedRel = last.getKey();
                droppedLine = drop.match().line();
            }
            if (l.isEmpty()) {
                byFile.pollLastEntry();
            }
        }
        String c = droppedRel;
        if (kept == limit && (c == null || byFile.lastKey().compareTo(c) < 0)) {
            c = byFile.lastKey();
        }
        cutoff = c;
    }

    synchronized List<GrepResult.Match> matches() {
        List<GrepResult.Match> out = new ArrayList<>(kept);
        for (List<Hit> l : byFile.values()) {
            for (Hit h : l) {
                out.add(h.match());
            }
        }
        return out;
    }

    synchronized boolean truncated() {
        return trimmed || skippedByLimit.get() > 0;
    }

    synchronized boolean byBytes() {
        return byBytes;
    }

    /** The first match that was dropped, as {@code 'path' line N}, or null. */
    synchronized String firstLeftOut(String prefix) {
        return droppedRel == null ? null : ConfinedRoot.quote(prefix + droppedRel) + " line " + droppedLine;
    }

    synchronized int filesMatched() {
        return filesMatched;
    }
}
