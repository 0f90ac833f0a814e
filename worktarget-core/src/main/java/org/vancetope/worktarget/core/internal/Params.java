package org.vancetope.worktarget.core.internal;

import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Typed reading of JSON-shaped tool parameters with errors that say what to pass instead: the
 * {@link FieldReader} with the tools' words ({@code Parameter 'name' ...}) and {@code invalid_params}.
 * Every backend reads its parameters through this class, so messages read the same everywhere.
 */
public final class Params {
    private static final FieldReader.Vocabulary<ToolException> WORDS = new FieldReader.Vocabulary<>() {
        @Override
        public String subject(String field) {
            return "Parameter '" + field + "'";
        }

        @Override
        public String missing(String field) {
            return "Missing required parameter '" + field + "'.";
        }

        @Override
        public ToolException refusal(String field, String message) {
            return invalid(message);
        }
    };

    private Params() {
    }

    /** How many names {@link #names} lists at most. */
    public static final int LISTED_NAMES = 20;

    /**
     * Names for a message that says what exists: all of a few, the first {@value #LISTED_NAMES} (sorted) of
     * many and how many more, or {@code none}.
     *
     * @param names the names, in any order
     * @return the text
     */
    public static String names(List<String> names) {
        if (names.isEmpty()) {
            return "none";
        }
        List<String> sorted = names.stream().sorted().toList();
        if (sorted.size() <= LISTED_NAMES) {
            return String.join(", ", sorted);
        }
        return String.join(", ", sorted.subList(0, LISTED_NAMES)) + " and " + (sorted.size() - LISTED_NAMES)
                + " more";
    }

    /**
     * The reader of a tool's parameters, for what the methods here do not cover.
     *
     * @param params the parameters
     * @return the reader; its refusals are {@code invalid_params}
     */
    public static FieldReader<ToolException> reader(Map<String, Object> params) {
        return new FieldReader<>(params, WORDS);
    }

    /**
     * A required, non-empty string.
     *
     * @param params the parameters
     * @param name the parameter name
     * @return the value
     * @throws ToolException {@code invalid_params} when missing, not a string or empty
     */
    public static String requireString(Map<String, Object> params, String name) throws ToolException {
        return reader(params).requireNonEmpty(name);
    }

    /**
     * A required string that may be empty (file content, replacement text).
     *
     * @param params the parameters
     * @param name the parameter name
     * @return the value
     * @throws ToolException {@code invalid_params} when missing or not a string
     */
    public static String requireText(Map<String, Object> params, String name) throws ToolException {
        return reader(params).requireString(name);
    }

    /**
     * An optional string.
     *
     * @param params the parameters
     * @param name the parameter name
     * @param defaultValue returned when absent or null
     * @return the value
     * @throws ToolException {@code invalid_params} when not a string
     */
    public static String optString(Map<String, Object> params, String name, String defaultValue) throws ToolException {
        String s = reader(params).string(name);
        return s == null ? defaultValue : s;
    }

    /**
     * An optional boolean.
     *
     * @param params the parameters
     * @param name the parameter name
     * @param defaultValue returned when absent or null
     * @return the value
     * @throws ToolException {@code invalid_params} when not a boolean
     */
    public static boolean optBoolean(Map<String, Object> params, String name, boolean defaultValue) throws ToolException {
        Boolean b = reader(params).bool(name);
        return b == null ? defaultValue : b;
    }

    /**
     * An optional integer within bounds.
     *
     * @param params the parameters
     * @param name the parameter name
     * @param defaultValue returned when absent or null
     * @param min the smallest accepted value
     * @param max the largest accepted value
     * @return the value
     * @throws ToolException {@code invalid_params} when not an integer or out of bounds (the message names the bounds)
     */
    public static long optLong(Map<String, Object> params, String name, long defaultValue, long min, long max)
            throws ToolException {
        return reader(params).integer(name, defaultValue, min, max);
    }

    /**
     * An optional integer within bounds.
     *
     * @param params the parameters
     * @param name the parameter name
     * @param defaultValue returned when absent or null
     * @param min the smallest accepted value
     * @param max the largest accepted value
     * @return the value
     * @throws ToolException {@code invalid_params} when not an integer or out of bounds
     */
    public static int optInt(Map<String, Object> params, String name, int defaultValue, int min, int max)
            throws ToolException {
        return (int) reader(params).integer(name, defaultValue, min, max);
    }

    /**
     * An optional object of string values (e.g. environment extras), or its list form of
     * {@code {name, value}} entries.
     *
     * @param params the parameters
     * @param name the parameter name
     * @return the map, empty when absent
     * @throws ToolException {@code invalid_params} when not an object of strings
     */
    public static Map<String, String> optStringMap(Map<String, Object> params, String name) throws ToolException {
        return reader(params).stringMap(name);
    }

    /**
     * One of a fixed set of values, case-insensitive.
     *
     * @param params the parameters
     * @param name the parameter name
     * @param defaultValue returned when absent
     * @param allowed the allowed values, lower case
     * @return the value, lower case
     * @throws ToolException {@code invalid_params} naming the allowed values
     */
    public static String optChoice(Map<String, Object> params, String name, String defaultValue, List<String> allowed)
            throws ToolException {
        String v = optString(params, name, defaultValue);
        if (v == null) {
            return null;
        }
        String lower = v.strip().toLowerCase(java.util.Locale.ROOT);
        if (!allowed.contains(lower)) {
            throw reader(params).refuse(name, "must be one of " + String.join(", ", allowed) + ", got '" + v + "'.");
        }
        return lower;
    }

    /**
     * An {@code invalid_params} exception.
     *
     * @param message the message
     * @return the exception
     */
    public static ToolException invalid(String message) {
        return new ToolException(ErrorCode.INVALID_PARAMS, message);
    }
}
