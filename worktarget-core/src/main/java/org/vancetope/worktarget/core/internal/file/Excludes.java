package org.vancetope.worktarget.core.internal.file;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The {@code exclude} parameter of {@code file_find}, {@code file_grep} and {@code file_list}: globs
 * (see {@link Glob}) on paths relative to the searched directory. A file or directory that matches one
 * is skipped; a directory that matches is not entered. A glob without {@code '/'} matches names at any
 * depth ({@code *.min.js}, {@code fixtures}). As in {@code .gitignore}, a leading {@code '/'} anchors a
 * glob at the searched directory ({@code /build} is {@code build} there, not deeper) and trailing
 * {@code '/'}s are dropped ({@code node_modules/} is {@code node_modules}, and so also matches a file of
 * that name: the walk does not look up an entry's type to exclude it).
 */
final class Excludes {
    /** The most globs one call may give. */
    static final int MAX_GLOBS = 64;

    private final List<Glob> globs;

    private Excludes(List<Glob> globs) {
        this.globs = globs;
    }

    /**
     * Reads {@code exclude} from the parameters.
     *
     * @param params the parameters
     * @return the excludes, or null when there are none
     * @throws ToolException {@code invalid_params} when it is not an array of at most {@value #MAX_GLOBS}
     *         non-empty globs, or a glob is malformed
     */
    static Excludes of(Map<String, Object> params) throws ToolException {
        Object v = params.get("exclude");
        if (v == null) {
            return null;
        }
        if (!(v instanceof List<?> l)) {
            throw Params.invalid("Parameter 'exclude' must be an array of globs such as [\"*.min.js\", \"fixtures\"], "
                    + "got " + (v instanceof String ? "a string: put it in an array" : "a " + v.getClass().getSimpleName())
                    + ".");
        }
        if (l.size() > MAX_GLOBS) {
            throw Params.invalid("Parameter 'exclude' has " + l.size() + " globs, at most " + MAX_GLOBS
                    + " are allowed; combine them with {a,b} alternatives.");
        }
        List<Glob> out = new ArrayList<>();
        for (Object o : l) {
            if (!(o instanceof String g) || g.isBlank()) {
                throw Params.invalid("Parameter 'exclude' must hold non-empty glob strings, got " + o + ".");
            }
            // as in .gitignore: a trailing '/' marks a directory (the glob then names it), a leading '/' anchors
            String glob0 = g;
            boolean anchored = glob0.startsWith("/");
            while (glob0.startsWith("/")) {
                glob0 = glob0.substring(1);
            }
            while (glob0.endsWith("/")) {
                glob0 = glob0.substring(0, glob0.length() - 1);
            }
            Glob glob = glob0.isEmpty() || glob0.equals("*") ? null : anchored ? Glob.compileAnchored(glob0, "exclude")
                    : Glob.compile(glob0, "exclude");
            if (glob == null) {
                throw Params.invalid("exclude '" + g + "' would exclude everything; leave it out or narrow it.");
            }
            out.add(glob);
        }
        return out.isEmpty() ? null : new Excludes(List.copyOf(out));
    }

    /**
     * Whether a path is excluded.
     *
     * @param relative the path relative to the searched directory, {@code '/'}-separated
     * @param name its last component
     * @return true when one glob matches
     */
    boolean excludes(String relative, String name) {
        for (Glob g : globs) {
            if (g.matches(relative, name)) {
                return true;
            }
        }
        return false;
    }
}
