package org.vancetope.worktarget.core.internal;

import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Typed reading of JSON-shaped tool parameters with errors that say what to pass instead.
 * Every backend reads its parameters through this class, so messages read the same everywhere.
 */
public final class Params {
    private Params() {
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
        Object v = params.get(name);
        if (v == null) {
            throw invalid("Missing required parameter '" + name + "'.");
        }
        if (!(v instanceof String s)) {
            throw invalid("Parameter '" + name + "' must be a string, got " + typeName(v) + ".");
        }
        if (s.isEmpty()) {
            throw invalid("Parameter '" + name + "' must not be empty.");
        }
        return s;
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
        Object v = params.get(name);
        if (v == null) {
            throw invalid("Missing required parameter '" + name + "'.");
        }
        if (!(v instanceof String s)) {
            throw invalid("Parameter '" + name + "' must be a string, got " + typeName(v) + ".");
        }
        return s;
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
        Object v = params.get(name);
        if (v == null) {
            return defaultValue;
        }
        if (!(v instanceof String s)) {
            throw invalid("Parameter '" + name + "' must be a string, got " + typeName(v) + ".");
        }
        return s;
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
        Object v = params.get(name);
        if (v == null) {
            return defaultValue;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        throw invalid("Parameter '" + name + "' must be true or false, got " + typeName(v) + ".");
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
        Object v = params.get(name);
        if (v == null) {
            return defaultValue;
        }
        long value;
        if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            value = ((Number) v).longValue();
        } else if (v instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue())
                && !Double.isInfinite(n.doubleValue())) {
            value = n.longValue();
        } else {
            throw invalid("Parameter '" + name + "' must be an integer, got " + typeName(v) + ".");
        }
        if (value < min || value > max) {
            throw invalid("Parameter '" + name + "' must be between " + min + " and " + max + ", got " + value + ".");
        }
        return value;
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
        return (int) optLong(params, name, defaultValue, min, max);
    }

    /**
     * An optional object of string values (e.g. environment extras).
     *
     * @param params the parameters
     * @param name the parameter name
     * @return the map, empty when absent
     * @throws ToolException {@code invalid_params} when not an object of strings
     */
    public static Map<String, String> optStringMap(Map<String, Object> params, String name) throws ToolException {
        Object v = params.get(name);
        if (v == null) {
            return Map.of();
        }
        if (!(v instanceof Map<?, ?> m)) {
            throw invalid("Parameter '" + name + "' must be an object of strings, got " + typeName(v) + ".");
        }
        java.util.LinkedHashMap<String, String> out = new java.util.LinkedHashMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!(e.getKey() instanceof String k) || !(e.getValue() instanceof String s)) {
                throw invalid("Parameter '" + name + "' must be an object whose values are strings.");
            }
            out.put(k, s);
        }
        return out;
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
            throw invalid("Parameter '" + name + "' must be one of " + String.join(", ", allowed) + ", got '" + v + "'.");
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

    private static String typeName(Object v) {
        if (v instanceof String) {
            return "a string";
        }
        if (v instanceof Number) {
            return "a number";
        }
        if (v instanceof Boolean) {
            return "a boolean";
        }
        if (v instanceof List) {
            return "an array";
        }
        if (v instanceof Map) {
            return "an object";
        }
        return v.getClass().getSimpleName();
    }
}
