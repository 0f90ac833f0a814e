package org.vancetope.worktarget.core.internal.file;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * What a caller probably meant by a path that does not exist, added to the {@code not_found} refusal: the
 * level at which the path stops existing, and up to {@value #MAX_SUGGESTIONS} names of that directory that
 * differ from the missing one only in how its accents are encoded (a name written on macOS, decomposed, asked
 * for composed, as a model writes it), in case, in spaces at its ends, in its extension, or by a typo or
 * two. Without it a caller that asks for a composed {@code 'é.txt'} where the listing shows a decomposed one
 * gets "does not exist, call file_list" for good, since the listing shows the same letters. The same look
 * tells a call that creates a directory when it stands beside one the caller probably meant
 * ({@link #createdBeside}).
 *
 * <p>It runs on the refusal's path (or before a directory is created) only, reads at most
 * {@value #SCAN_LIMIT} entries of one directory, and reaches that directory like the tools do (one component
 * at a time, no link followed); a failure of its own leaves the refusal or the result as it was. Public for
 * the exec tools' {@code cwd}; stateless and thread-safe.
 */
public final class NearNames {
    /** The most entries of the directory read for suggestions. */
    static final int SCAN_LIMIT = 10_000;
    /** The most names suggested. */
    static final int MAX_SUGGESTIONS = 3;

    /** How a suggested name differs from the missing one, the closest first. */
    enum Kind {
        ENCODING, CASE, SPACES, EXTENSION, TYPO
    }

    record Candidate(String name, Kind kind, int distance) {
    }

    private NearNames() {
    }

    /**
     * The refusal with a hint appended when it is a {@code not_found} about one of the paths and that path
     * does not exist; otherwise the refusal itself.
     *
     * @param e the refusal
     * @param gate the root the paths are in
     * @param userPaths the caller's paths the refusal may be about (nulls are skipped)
     * @return the refusal to throw
     */
    static ToolException explain(ToolException e, ConfinedRoot gate, String... userPaths) {
        if (e.code() != ErrorCode.NOT_FOUND || e.getMessage() == null) {
            return e;
        }
        for (String userPath : userPaths) {
            if (userPath == null || !e.getMessage().contains(ConfinedRoot.quote(userPath))) {
                continue;
            }
            String hint = hint(gate, userPath);
            if (hint != null) {
                ToolException out = new ToolException(e.code(), e.getMessage() + " " + hint, e.getCause());
                out.setStackTrace(e.getStackTrace());
                return out;
            }
        }
        return e;
    }

    /**
     * The hint for a path that does not exist, or null when it exists, cannot be looked at, or nothing near
     * it is there.
     *
     * @param gate the root
     * @param userPath the caller's path
     * @return the hint (whole sentences), or null
     */
    public static String hint(ConfinedRoot gate, String userPath) {
        Walk w = walk(gate, userPath);
        if (w == null) {
            return null;
        }
        if (w.fileInTheWay() != null) {
            return ConfinedRoot.quote(gate.relative(w.fileInTheWay())) + " is a file, not a directory.";
        }
        return suggest(gate, w.parent(), w.missing(), w.last());
    }

    /**
     * What a call that creates {@code userPath} should be told before it does: that it makes a new entry
     * beside an existing one the caller probably meant — a directory a typo away ({@code scr} beside
     * {@code src}), or a directory (or, with {@code leafToo}, the last entry) whose name differs only in
     * case, spaces at its ends or accent encoding (where names ignore case, as on macOS and Windows, the
     * two would be one). Null when nothing is created, or nothing near is there. Call it before creating
     * anything.
     *
     * @param gate the root
     * @param target the path about to be created, as the gate validated it for the call
     * @param leafToo whether to look also when only the last name is new ({@code file_mkdir}); without it
     *                only a call that creates directories pays for the look ({@code file_write}, where new
     *                files in a directory of thousands would pay for a listing each)
     * @return the hint for the call's result, or null
     */
    static String createdBeside(ConfinedRoot gate, Path target, boolean leafToo) {
        BasicFileAttributes parent = leafToo ? null : ConfinedRoot.attributesOrNull(target.getParent());
        if (parent != null && parent.isDirectory()) {
            return null;        // the usual new file in an existing directory: one lstat, no walk
        }
        Walk w = walk(gate, target);
        if (w == null || w.fileInTheWay() != null || (w.last() && !leafToo)) {
            return null;
        }
        List<String> names = list(gate, w.parent());
        if (names == null) {
            return null;
        }
        Candidate near = null;
        for (Candidate c : rank(w.missing(), names, !w.last())) {
            if (c.kind() != Kind.EXTENSION) {
                near = c;
                break;
            }
        }
        if (near == null) {
            return null;
        }
        String parentShown = gate.relative(w.parent());
        String made = "'" + within(parentShown, w.missing()) + "'";
        String meant = "'" + within(parentShown, near.name()) + "'";
        String kind = switch (near.kind()) {
            case CASE -> ", whose name differs only in case (where names ignore case, as on macOS and Windows, the "
                    + "two would be one)";
            case ENCODING -> ", whose name has the same letters with their accents encoded otherwise";
            case SPACES -> ", whose name differs only in spaces at its ends";
            default -> "";
        };
        return w.last()
                ? "Created " + made + " beside the existing " + meant + kind + ". If you meant " + meant + ", use that "
                        + "path and delete " + made + " with file_delete."
                : "Created the new directory " + made + " for it, beside the existing " + meant + kind + ". If you meant "
                        + meant + ", move what this call created there with file_move and delete " + made
                        + " with file_delete.";
    }

    /**
     * Where a path stops existing: the deepest existing directory on it and the first missing name in it
     * (whether that is the path's last), or the file that stands where the path needs a directory.
     */
    private record Walk(Path parent, String missing, boolean last, Path fileInTheWay) {
    }

    /** The walk of a caller's path from the root, or null when it exists or cannot be looked at. */
    private static Walk walk(ConfinedRoot gate, String userPath) {
        try {
            return walk(gate, gate.resolveForRead(userPath));
        } catch (ToolException e) {
            return null;
        }
    }

    /** The walk of a path the gate validated, or null when it exists or cannot be looked at. */
    private static Walk walk(ConfinedRoot gate, Path validated) {
        if (gate.isInternal(validated)) {
            return null;    // job output files: their names are not guessed at
        }
        Path root = gate.root();
        Path rel = root.relativize(validated);
        if (rel.toString().isEmpty()) {
            return null;
        }
        Path dir = root;
        int n = rel.getNameCount();
        for (int i = 0; i < n; i++) {
            String name = rel.getName(i).toString();
            Path entry = dir.resolve(name);
            BasicFileAttributes a = ConfinedRoot.attributesOrNull(entry);
            if (a == null) {
                return new Walk(dir, name, i == n - 1, null);
            }
            if (!a.isDirectory()) {
                return i == n - 1 || a.isSymbolicLink() ? null : new Walk(null, null, false, entry);
            }
            dir = entry;
        }
        return null;
    }

    /** At most {@value #SCAN_LIMIT} names of a directory, reached like the tools reach it; null on failure. */
    private static List<String> list(ConfinedRoot gate, Path dir) {
        try (SafeDirectory d = gate.open(dir)) {
            return d.names(SCAN_LIMIT);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static String suggest(ConfinedRoot gate, Path parent, String want, boolean last) {
        List<String> names = list(gate, parent);
        if (names == null) {
            return null;
        }
        List<Candidate> found = rank(want, names);
        String parentShown = gate.relative(parent);
        String missing = within(parentShown, want);
        StringBuilder out = new StringBuilder();
        if (!last) {
            out.append("There is no ").append(ConfinedRoot.quote(missing)).append(parentShown.equals(".")
                    ? " in the work directory" : " (its parent " + ConfinedRoot.quote(parentShown) + " exists)");
            if (found.isEmpty()) {
                return out.append('.').toString();
            }
            out.append("; did you mean ");
        } else {
            if (found.isEmpty()) {
                return null;
            }
            out.append("Did you mean ");
        }
        for (int i = 0; i < found.size(); i++) {
            Candidate c = found.get(i);
            out.append(i == 0 ? "" : i == found.size() - 1 ? " or " : ", ")
                    .append('\'').append(within(parentShown, c.name())).append('\'').append(note(c));
        }
        return out.append('?').toString();
    }

    private static String note(Candidate c) {
        return switch (c.kind()) {
            case ENCODING -> " (the same letters with their accents encoded otherwise; to name it, write it in the "
                    + "JSON arguments exactly as " + jsonString(c.name()) + ")";
            case SPACES -> " (with spaces at the ends of its name)";
            default -> "";
        };
    }

    private static String within(String parentShown, String name) {
        return parentShown.equals(".") ? name : parentShown + "/" + name;
    }

    /** Names near {@code want}, the closest first, at most {@value #MAX_SUGGESTIONS}. */
    static List<Candidate> rank(String want, List<String> names) {
        return rank(want, names, true);
    }

    /**
     * Like {@link #rank(String, List)}; without {@code fuzzy} only names that differ in encoding, case or
     * spaces at the ends count (no edit distance is computed), for a check on every new file.
     */
    static List<Candidate> rank(String want, List<String> names, boolean fuzzy) {
        String wantNfc = Normalizer.normalize(want, Normalizer.Form.NFC);
        String wantLower = wantNfc.toLowerCase(Locale.ROOT);
        String wantStem = stem(wantLower);
        int maxTypos = wantLower.length() <= 2 ? 0 : wantLower.length() <= 6 ? 1 : 2;
        List<Candidate> out = new ArrayList<>();
        for (String name : names) {
            if (name.equals(want) || !nameable(name)) {
                continue;
            }
            String nfc = Normalizer.normalize(name, Normalizer.Form.NFC);
            String lower = nfc.toLowerCase(Locale.ROOT);
            Kind kind;
            int distance = 0;
            if (nfc.equals(wantNfc)) {
                kind = Kind.ENCODING;
            } else if (lower.equals(wantLower)) {
                kind = Kind.CASE;
            } else if (lower.strip().equals(wantLower.strip())) {
                kind = Kind.SPACES;
            } else if (!fuzzy) {
                continue;
            } else if (!wantStem.isEmpty() && stem(lower).equals(wantStem)) {
                kind = Kind.EXTENSION;
            } else {
                distance = distance(wantLower, lower, maxTypos);
                if (distance > maxTypos) {
                    continue;
                }
                kind = Kind.TYPO;
            }
            out.add(new Candidate(name, kind, distance));
        }
        out.sort(Comparator.comparing(Candidate::kind).thenComparingInt(Candidate::distance)
                .thenComparing(Candidate::name));
        return out.size() > MAX_SUGGESTIONS ? List.copyOf(out.subList(0, MAX_SUGGESTIONS)) : out;
    }

    /**
     * Whether the tools can name the entry: not with a control character (refused in paths) or U+FFFD (a
     * name that is not UTF-8, shown with it). A suggestion is quoted whole, unlike the caller's own path,
     * so that it can be copied however long it is.
     */
    private static boolean nameable(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '\uFFFD') {
                return false;
            }
        }
        return true;
    }

    private static String stem(String name) {
        int dot = name.lastIndexOf('.');
        return dot > 0 ? name.substring(0, dot) : name;
    }

    /**
     * The edit distance (insertions, deletions, substitutions, and swaps of two neighbours), or
     * {@code max + 1} as soon as it is known to exceed {@code max}. Only the cells within {@code max} of the
     * diagonal are computed (the others exceed {@code max} anyway), so a name costs its length times
     * {@code 2 max + 1}, however long the names and whatever prefix they share.
     */
    static int distance(String a, String b, int max) {
        if (Math.abs(a.length() - b.length()) > max) {
            return max + 1;
        }
        int far = max + 1;
        int[] before = new int[b.length() + 1];
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = Math.min(j, far);
        }
        for (int i = 1; i <= a.length(); i++) {
            int from = Math.max(1, i - max);
            int to = Math.min(b.length(), i + max);
            // the cells next to the band are read by this row and the next: they are out of reach
            cur[from - 1] = from == 1 ? Math.min(i, far) : far;
            if (to < b.length()) {
                cur[to + 1] = far;
            }
            int rowMin = cur[from - 1];
            for (int j = from; j <= to; j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                int d = Math.min(Math.min(prev[j] + 1, cur[j - 1] + 1), prev[j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d = Math.min(d, before[j - 2] + 1);
                }
                cur[j] = Math.min(d, far);
                rowMin = Math.min(rowMin, cur[j]);
            }
            if (rowMin > max) {
                return far;
            }
            int[] t = before;
            before = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    /** A JSON string literal of the name with every character outside printable ASCII escaped. */
    static String jsonString(String name) {
        StringBuilder out = new StringBuilder(name.length() + 8).append('"');
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}
