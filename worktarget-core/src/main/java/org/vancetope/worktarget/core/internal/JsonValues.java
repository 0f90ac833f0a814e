package org.vancetope.worktarget.core.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Gives tool results the shape a JSON parser gives them: integral numbers are {@code Integer} when
 * they fit and {@code Long} otherwise. Applied by every built-in tool binding, so a result is
 * {@code equal} whether it ran in process (CLIENT, WORK) or came over the wire (DAEMON).
 */
public final class JsonValues {
    private JsonValues() {
    }

    /**
     * Normalises a result map (a new map; the argument is not changed).
     *
     * @param result the result
     * @return the normalised result
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> normalize(Map<String, Object> result) {
        return (Map<String, Object>) value(result);
    }

    /**
     * The result in normal shape: the map itself when it is so already (checked without copying), else
     * {@link #normalize} of it. For results from tools that may not normalise their own (a host's backend).
     *
     * @param result the result
     * @return the result, normalised
     */
    public static Map<String, Object> normalized(Map<String, Object> result) {
        return isNormal(result) ? result : normalize(result);
    }

    private static boolean isNormal(Object v) {
        if (v instanceof Long l) {
            return l < Integer.MIN_VALUE || l > Integer.MAX_VALUE;
        }
        if (v instanceof Short || v instanceof Byte) {
            return false;
        }
        if (v instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!(e.getKey() instanceof String) || !isNormal(e.getValue())) {
                    return false;
                }
            }
            return true;
        }
        if (v instanceof List<?> l) {
            for (Object x : l) {
                if (!isNormal(x)) {
                    return false;
                }
            }
            return true;
        }
        return true;
    }

    private static Object value(Object v) {
        if (v instanceof Long l) {
            // Not a conditional expression: that would promote the Integer back to a long.
            if (l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE) {
                return Integer.valueOf(l.intValue());
            }
            return l;
        }
        if (v instanceof Short || v instanceof Byte) {
            return ((Number) v).intValue();
        }
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, x) -> out.put(String.valueOf(k), value(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>(l.size());
            l.forEach(x -> out.add(value(x)));
            return out;
        }
        return v;
    }
}
