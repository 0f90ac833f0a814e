package org.vancetope.worktarget.core.internal;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The parameter guard: refuses parameters a backend tool does not declare — unknown altogether, or
 * declared by the wrapper but ignored by this backend — and missing required ones, with a message that
 * lists what is accepted; and text that is not text: a string (or a key of an object) anywhere in the
 * parameters with an unpaired UTF-16 surrogate, which a JSON escape of one half of a pair can carry but no
 * file, command or name can hold (written as UTF-8 it would silently become {@code ?}). The dispatcher
 * runs it once per call, after routing (and again only when a backend interceptor changed the
 * parameters); backend tools do not repeat it.
 */
public final class ParameterGuard {

    private ParameterGuard() {
    }

    /**
     * Checks parameters against a backend tool's spec.
     *
     * @param wrapper the tool the caller named (for a host tool or meta-tool: its own spec)
     * @param backend the spec of the tool that runs
     * @param params the parameters
     * @param where the backend as a message names it, e.g. {@code the WORK backend (work_file_read)}
     * @throws ToolException {@code invalid_params} naming the parameter and what is accepted
     */
    public static void check(ToolSpec wrapper, ToolSpec backend, Map<String, Object> params, String where)
            throws ToolException {
        Set<String> accepted = backend.parameterNames();
        // An open backend schema (JSON Schema: additionalProperties is not false) accepts what it does not
        // declare; it is then checked against the wrapper's own parameters, which still catches a typo.
        if (backend.acceptsUndeclaredParameters()) {
            Set<String> union = new LinkedHashSet<>(accepted);
            union.addAll(wrapper.parameterNames());
            accepted = union;
        }
        for (String key : params.keySet()) {
            if (accepted.contains(key)) {
                continue;
            }
            String acceptedList = accepted.isEmpty() ? "none" : String.join(", ", accepted);
            if (wrapper.parameterNames().contains(key)) {
                throw new ToolException(ErrorCode.INVALID_PARAMS, "Parameter '" + key + "' of " + wrapper.name()
                        + " is not supported by " + where + " and would be ignored. Remove it. Accepted here: "
                        + acceptedList + ".");
            }
            throw new ToolException(ErrorCode.INVALID_PARAMS, "Unknown parameter '" + key + "' for " + wrapper.name()
                    + ". Accepted: " + acceptedList + ".");
        }
        for (String required : backend.requiredParameters()) {
            if (params.get(required) == null) {
                throw new ToolException(ErrorCode.INVALID_PARAMS, "Missing required parameter '" + required + "' for "
                        + wrapper.name() + ".");
            }
        }
        for (Map.Entry<String, Object> e : params.entrySet()) {
            requireText(wrapper.name(), e.getKey(), e.getValue(), 0);
        }
    }

    /** The deepest nesting of objects and lists in a parameter (no tool takes more than three levels). */
    static final int MAX_DEPTH = 64;

    /** Refuses a string anywhere in a value (and the keys of its objects) that holds an unpaired surrogate. */
    private static void requireText(String tool, String where, Object value, int depth) throws ToolException {
        if (depth > MAX_DEPTH) {
            // a host's own parser may allow any depth (or a map that holds itself): refused here, not in a
            // StackOverflowError of whatever walks the value next
            String param = where.split("[.\\[]", 2)[0];
            throw new ToolException(ErrorCode.INVALID_PARAMS, "Parameter '" + param + "' of " + tool + " nests objects "
                    + "and lists deeper than " + MAX_DEPTH + " levels; no tool takes that. Nothing was done. Send the "
                    + "value in the shape the tool's description gives.");
        }
        if (value instanceof String s) {
            int at = unpairedSurrogate(s);
            if (at >= 0) {
                throw notText(tool, "Parameter '" + where + "'", s.charAt(at), at);
            }
        } else if (value instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                String key = String.valueOf(e.getKey());
                int at = unpairedSurrogate(key);
                if (at >= 0) {
                    throw notText(tool, "A key of parameter '" + where + "'", key.charAt(at), at);
                }
                requireText(tool, where + "." + key, e.getValue(), depth + 1);
            }
        } else if (value instanceof List<?> l) {
            for (int i = 0; i < l.size(); i++) {
                requireText(tool, where + "[" + i + "]", l.get(i), depth + 1);
            }
        }
    }

    private static ToolException notText(String tool, String what, char c, int at) {
        return new ToolException(ErrorCode.INVALID_PARAMS, what + " of " + tool + " holds an unpaired UTF-16 "
                + "surrogate (\\u" + Integer.toHexString(c).toUpperCase(Locale.ROOT) + " at character " + at
                + "): half of a character, which no file, command or name can hold (written as UTF-8 it would "
                + "become '?'). Nothing was done. Send the text again with that character whole: both halves of "
                + "its surrogate pair, or the character itself.");
    }

    /**
     * Where a string holds a surrogate that is not half of a pair, or -1.
     *
     * @param s the string
     * @return the index, or -1
     */
    static int unpairedSurrogate(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return i;
                }
            }
        }
        return -1;
    }
}
