package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Shows what is in a tree without opening files: {@code file_list} (one directory level) and
 * {@code file_find} (files by glob, size and time over a {@link TreeWalker} walk), each cut to
 * {@link FileToolSettings#resultMaxBytes()} bytes of JSON.
 */
final class FileListing {
    private final FileToolSettings settings;
    private final SearchLanes lanes;

    FileListing(FileToolSettings settings, SearchLanes lanes) {
        this.settings = settings;
        this.lanes = lanes;
    }

    /**
     * {@code file_list}: one directory level, sorted, directories marked with {@code '/'}.
     *
     * @param gate the gate
     * @param params path (default {@code "."}), exclude (globs on names; a glob with {@code '/'} on the path
     *        relative to {@code path})
     * @return path, entries, count, truncated
     * @throws ToolException {@code not_found} for a missing directory, {@code invalid_params} for a file
     */
    ListResult list(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.optString(params, "path", ".");
        Excludes excludes = Excludes.of(params);
        Path dir = gate.resolve(userPath);
        FileErrors.requireDirectory(dir, userPath, "file_list");
        List<String> entries;
        try (SafeDirectory d = gate.open(dir)) {
            // the entries as the platform hands them out: a name that is not valid UTF-8 keeps its bytes there,
            // while its text (with U+FFFD for those bytes) would name no entry
            List<Path> names = d.entries();
            names.sort(Comparator.comparing(Path::toString));
            if (excludes != null) {
                names.removeIf(name -> excludes.excludes(name.toString(), name.toString()));
            }
            entries = marked(d, dir, names);
        } catch (IOException e) {
            throw FileErrors.io(e, userPath, "list");
        }
        int total = entries.size();
        int keep = Math.min(total, settings.listMaxEntries());
        int fit = fitting(entries, keep);
        String hint = null;
        if (fit < keep) {
            hint = "The listing was cut after " + fit + " of " + total + " entries at the result budget of "
                    + settings.resultMaxBytes() + " bytes of JSON (resultMaxBytes). Use file_find with maxDepth 0 and "
                    + "a pathGlob such as 'a*' to see the files in parts.";
        } else if (fit < total) {
            hint = "Only the first " + fit + " of " + total + " entries are shown (listMaxEntries). Use "
                    + "file_find with maxDepth 0 and a pathGlob such as 'a*' to see the files in parts.";
        }
        return new ListResult(gate.relative(dir), fit < total ? List.copyOf(entries.subList(0, fit)) : entries, total,
                fit < total, hint);
    }

    /**
     * The names, in their order, with {@code '/'} after each directory's, and without the ones that vanished
     * meanwhile. Names without a {@code '.'} (likely directories) are examined first; once the directory's link
     * count says every subdirectory was seen (see {@link TreeWalker#subdirectories}), the rest are known to be
     * no directories and are not examined at all.
     */
    private static List<String> marked(SafeDirectory d, Path dir, List<Path> entries) throws IOException {
        int n = entries.size();
        List<String> names = new ArrayList<>(n);
        int dotted = 0;
        for (Path entry : entries) {
            String name = entry.toString();
            names.add(name);
            if (name.indexOf('.') >= 0) {
                dotted++;
            }
        }
        byte[] kind = new byte[n];     // 0 not examined (no directory), 1 directory, 2 other, 3 vanished
        // the link count costs a path lookup: only worth it when it may spare two lstat calls or more
        int subdirsLeft = dotted >= 2 && TreeWalker.leafOptimisation(dir)
                ? TreeWalker.subdirectories(TreeWalker.linkCount(dir)) : -1;
        for (int pass = 0; pass < 2 && subdirsLeft != 0; pass++) {
            for (int i = 0; i < n && subdirsLeft != 0; i++) {
                if ((names.get(i).indexOf('.') < 0) != (pass == 0)) {
                    continue;
                }
                BasicFileAttributes a;
                try {
                    a = d.attributes(entries.get(i));
                } catch (NoSuchFileException e) {
                    kind[i] = 3;
                    continue;
                }
                if (a.isDirectory()) {
                    kind[i] = 1;
                    if (subdirsLeft > 0) {
                        subdirsLeft--;
                    }
                } else {
                    kind[i] = 2;
                }
            }
        }
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (kind[i] != 3) {
                out.add(kind[i] == 1 ? names.get(i) + "/" : names.get(i));
            }
        }
        return out;
    }

    /** How many of the first {@code max} strings fit in the result budget as a JSON array. */
    private int fitting(List<String> items, int max) {
        long bytes = 2;
        for (int i = 0; i < max; i++) {
            bytes += JsonSize.of(items.get(i)) + 1;
            if (bytes > settings.resultMaxBytes()) {
                return i;
            }
        }
        return max;
    }

    /**
     * {@code file_find}: files by glob, size and modification time, pruning generated directories.
     *
     * @param gate the gate
     * <p>Files and directories ignored by {@code .gitignore} (see {@link GitIgnore}) are skipped unless
     * {@code includeIgnored}; paths matching {@code exclude} are skipped always.
     *
     * @param params path, pathGlob, minSize, maxSize, modifiedAfter, modifiedBefore, sortBy, maxDepth, limit,
     *        includeGenerated, includeIgnored, exclude
     * @return path, files ({@code path}, {@code size}, {@code modified}), count, totalMatches, truncated,
     *         skippedGeneratedDirs, skippedIgnored
     * @throws ToolException on failure
     */
    FindResult find(ConfinedRoot gate, Map<String, Object> params) throws ToolException {
        String userPath = Params.optString(params, "path", ".");
        Glob glob = Glob.compile(Params.optString(params, "pathGlob", null));
        long minSize = Params.optLong(params, "minSize", 0, 0, Long.MAX_VALUE);
        long maxSize = Params.optLong(params, "maxSize", Long.MAX_VALUE, 0, Long.MAX_VALUE);
        long after = instant(params, "modifiedAfter", Long.MIN_VALUE);
        long before = instant(params, "modifiedBefore", Long.MAX_VALUE);
        // a range no file can be in is a mistake in the call (swapped bounds), not an empty result
        if (minSize > maxSize) {
            throw Params.invalid("Parameter 'minSize' (" + minSize + ") is larger than 'maxSize' (" + maxSize
                    + "), so no file could match. Swap them, or leave one out.");
        }
        if (after != Long.MIN_VALUE && before != Long.MAX_VALUE && after >= before) {
            throw Params.invalid("Parameter 'modifiedAfter' (" + Params.optString(params, "modifiedAfter", null)
                    + ") is not earlier than 'modifiedBefore' (" + Params.optString(params, "modifiedBefore", null)
                    + "), so no file could match. Swap them, or leave one out.");
        }
        String sortBy = Params.optChoice(params, "sortBy", "path", List.of("path", "mtime", "size"));
        int maxDepth = Params.optInt(params, "maxDepth", settings.defaultMaxDepth(), 0, settings.maxDepthLimit());
        int limit = Params.optInt(params, "limit", settings.findDefaultLimit(), 1, settings.findMaxLimit());
        boolean includeGenerated = Params.optBoolean(params, "includeGenerated", false);
        boolean includeIgnored = Params.optBoolean(params, "includeIgnored", false);
        Excludes excludes = Excludes.of(params);
        Path base = gate.resolve(userPath);
        FileErrors.requireDirectory(base, userPath, "file_find");
        Predicate<BasicFileAttributes> filter = minSize == 0 && maxSize == Long.MAX_VALUE
                && after == Long.MIN_VALUE && before == Long.MAX_VALUE ? null : a -> {
                    long s = a.size();
                    long t = a.lastModifiedTime().toMillis();
                    return s >= minSize && s <= maxSize && t > after && t < before;
                };
        TreeWalker.Result walk;
        CallDeadline deadline = CallDeadline.start("file_find", settings.searchTimeout().toMillis());
        try (SafeDirectory dir = gate.open(base)) {
            walk = TreeWalker.walk(lanes, deadline, new TreeWalker.Spec(dir, maxDepth, glob,
                    includeGenerated ? null : settings.generatedDirNames(), filter, excludes,
                    includeIgnored ? null : GitIgnore.above(gate, base)));
        } catch (IOException e) {
            throw FileErrors.io(e, userPath, "list");
        } catch (CallDeadline.Stop e) {
            throw deadline.failure("Narrow path, pathGlob or maxDepth.");
        }
        List<TreeWalker.Entry> files = new ArrayList<>(walk.files());
        if (sortBy.equals("mtime")) {
            files.sort(Comparator.comparingLong(TreeWalker.Entry::mtimeMillis).reversed()
                    .thenComparing(TreeWalker.Entry::rel));
        } else if (sortBy.equals("size")) {
            files.sort(Comparator.comparingLong(TreeWalker.Entry::size).reversed().thenComparing(TreeWalker.Entry::rel));
        }
        String prefix = TreeWalker.prefix(gate, base);
        List<FindResult.Found> out = new ArrayList<>();
        long bytes = 2;
        boolean byBytes = false;
        for (int i = 0; i < files.size() && i < limit; i++) {
            TreeWalker.Entry e = files.get(i);
            FindResult.Found f = new FindResult.Found(prefix + e.rel(), e.size(),
                    Instant.ofEpochMilli(e.mtimeMillis()).toString());
            long b = f.jsonSize() + 1;
            if (bytes + b > settings.resultMaxBytes()) {
                byBytes = true;
                break;
            }
            bytes += b;
            out.add(f);
        }
        String hint = null;
        if (byBytes) {
            hint = "Only " + out.size() + " of " + files.size() + " files fit in the result budget of "
                    + settings.resultMaxBytes() + " bytes of JSON (resultMaxBytes). Narrow path or pathGlob, or filter "
                    + "by size or time, to see the rest.";
        } else if (files.size() > out.size()) {
            hint = "Only the first " + out.size() + " of " + files.size() + " files are shown (limit). Raise "
                    + "limit (at most " + settings.findMaxLimit() + "), or narrow path or pathGlob.";
        } else if (files.isEmpty()) {
            hint = walk.skipped().nothingFoundHint("file", settings.maxDepthLimit());
        }
        return new FindResult(gate.relative(base), out, files.size(), files.size() > out.size(),
                walk.skipped().generatedDirs(), walk.skipped().ignored(),
                FileErrors.moreHint(hint, walk.skipped().unreadableHint()));
    }

    private static long instant(Map<String, Object> params, String name, long dflt) throws ToolException {
        String v = Params.optString(params, name, null);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            return Instant.parse(v.strip()).toEpochMilli();
        } catch (DateTimeParseException e) {
            try {
                return LocalDate.parse(v.strip()).atStartOfDay(ZoneOffset.UTC).toInstant().toEpochMilli();
            } catch (DateTimeParseException e2) {
                throw Params.invalid("Parameter '" + name + "' must be an ISO-8601 instant such as "
                        + "'2026-01-31T12:00:00Z' or a date such as '2026-01-31', got '" + v + "'.");
            }
        }
    }
}
