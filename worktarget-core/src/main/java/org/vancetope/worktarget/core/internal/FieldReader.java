package org.vancetope.worktarget.core.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Typed reading of the fields of a parsed JSON object (a map as a JSON parser gives it): the one
 * reader of tool parameters, of the protocol frames and of the transfer frames. Each caller names
 * its fields and turns a refusal into its own exception ({@link Params}: {@code invalid_params}, the
 * frame decoders: {@code bad_frame}); the rules and the wording are the same everywhere.
 *
 * <p>A field that is absent or JSON {@code null} is absent. An integer is a JSON number without a
 * fractional part ({@code 5} or {@code 5.0}, not {@code 5.5}) within the bounds the caller gives;
 * any other number, and any other type, is refused with a message that says what to send.
 *
 * @param <E> the exception a refusal becomes
 */
public final class FieldReader<E extends Exception> {

    /** How a caller names its fields in messages, and the exception a refusal becomes. */
    public interface Vocabulary<E extends Exception> {
        /**
         * The field as the subject of a sentence, e.g. {@code Parameter 'path'}.
         *
         * @param field the field's name
         * @return the words
         */
        String subject(String field);

        /**
         * The whole message for a required field that is absent, e.g. {@code Missing required parameter 'path'.}
         *
         * @param field the field's name
         * @return the message
         */
        String missing(String field);

        /**
         * The exception of a refusal.
         *
         * @param field the field's name
         * @param message the message, a whole sentence
         * @return the exception
         */
        E refusal(String field, String message);
    }

    private final Map<String, ?> fields;
    private final Vocabulary<E> words;

    /**
     * A reader of one object's fields.
     *
     * @param fields the object, as a JSON parser gives it
     * @param words how the fields are named, and what a refusal throws
     */
    public FieldReader(Map<String, ?> fields, Vocabulary<E> words) {
        this.fields = fields;
        this.words = words;
    }

    /**
     * The value as parsed.
     *
     * @param field the field
     * @return the value; null when absent or JSON null
     */
    public Object raw(String field) {
        return fields.get(field);
    }

    /**
     * Whether the field is present and not JSON null.
     *
     * @param field the field
     * @return true when present
     */
    public boolean has(String field) {
        return fields.get(field) != null;
    }

    /**
     * An optional string.
     *
     * @param field the field
     * @return the value; null when absent
     * @throws E when not a string
     */
    public String string(String field) throws E {
        Object v = fields.get(field);
        if (v == null) {
            return null;
        }
        if (!(v instanceof String s)) {
            throw refuse(field, "must be a string, got " + describe(v) + ".");
        }
        return s;
    }

    /**
     * A required string; it may be empty.
     *
     * @param field the field
     * @return the value
     * @throws E when absent or not a string
     */
    public String requireString(String field) throws E {
        String s = string(field);
        if (s == null) {
            throw words.refusal(field, words.missing(field));
        }
        return s;
    }

    /**
     * A required, non-empty string.
     *
     * @param field the field
     * @return the value
     * @throws E when absent, not a string or empty
     */
    public String requireNonEmpty(String field) throws E {
        String s = requireString(field);
        if (s.isEmpty()) {
            throw refuse(field, "must not be empty.");
        }
        return s;
    }

    /**
     * An optional boolean.
     *
     * @param field the field
     * @return the value; null when absent
     * @throws E when not a boolean
     */
    public Boolean bool(String field) throws E {
        Object v = fields.get(field);
        if (v == null || v instanceof Boolean) {
            return (Boolean) v;
        }
        throw refuse(field, "must be true or false, got " + describe(v) + ".");
    }

    /**
     * A required boolean.
     *
     * @param field the field
     * @return the value
     * @throws E when absent or not a boolean
     */
    public boolean requireBool(String field) throws E {
        Boolean b = bool(field);
        if (b == null) {
            throw words.refusal(field, words.missing(field));
        }
        return b;
    }

    /**
     * An optional integer within bounds.
     *
     * @param field the field
     * @param min the smallest accepted value
     * @param max the largest accepted value
     * @return the value; null when absent
     * @throws E when not an integer or out of bounds (the message names the bounds)
     */
    public Long integer(String field, long min, long max) throws E {
        Object v = fields.get(field);
        if (v == null) {
            return null;
        }
        if (!(v instanceof Number n)) {
            throw refuse(field, "must be an integer, got " + describe(v) + ".");
        }
        if (tooLarge(n)) {
            throw refuse(field, bounds(min, max) + ", got " + n + ".");
        }
        BigInteger exact = integral(n);
        if (exact == null) {
            throw refuse(field, "must be an integer, got " + n + ".");
        }
        if (exact.compareTo(BigInteger.valueOf(min)) < 0 || exact.compareTo(BigInteger.valueOf(max)) > 0) {
            throw refuse(field, bounds(min, max) + ", got " + exact + ".");
        }
        return exact.longValue();
    }

    /**
     * An optional integer within bounds, with a default.
     *
     * @param field the field
     * @param absent returned when absent
     * @param min the smallest accepted value
     * @param max the largest accepted value
     * @return the value
     * @throws E when not an integer or out of bounds
     */
    public long integer(String field, long absent, long min, long max) throws E {
        Long v = integer(field, min, max);
        return v == null ? absent : v;
    }

    /**
     * A required integer within bounds.
     *
     * @param field the field
     * @param min the smallest accepted value
     * @param max the largest accepted value
     * @return the value
     * @throws E when absent, not an integer or out of bounds
     */
    public long requireInteger(String field, long min, long max) throws E {
        Long v = integer(field, min, max);
        if (v == null) {
            throw words.refusal(field, words.missing(field));
        }
        return v;
    }

    /**
     * An optional JSON object.
     *
     * @param field the field
     * @return the object; null when absent
     * @throws E when not an object
     */
    @SuppressWarnings("unchecked")
    public Map<String, Object> object(String field) throws E {
        Object v = fields.get(field);
        if (v == null || v instanceof Map<?, ?>) {
            return (Map<String, Object>) v;
        }
        throw refuse(field, "must be a JSON object, got " + describe(v) + ".");
    }

    /**
     * An optional object whose values are all strings, given as an object or, as strict tool schemas
     * send it, as a list of {@code {"name": ..., "value": ...}} entries (each name once).
     *
     * @param field the field
     * @return the object; empty when absent
     * @throws E when neither an object of strings nor such a list
     */
    public Map<String, String> stringMap(String field) throws E {
        Object v = fields.get(field);
        if (v == null) {
            return Map.of();
        }
        if (v instanceof List<?> entries) {
            return entries(field, entries);
        }
        if (!(v instanceof Map<?, ?> m)) {
            throw refuse(field, "must be an object of strings or a list of {name, value} entries, got "
                    + describe(v) + ".");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : m.entrySet()) {
            if (!(e.getKey() instanceof String k) || !(e.getValue() instanceof String s)) {
                throw refuse(field, "must be an object whose values are strings.");
            }
            out.put(k, s);
        }
        return out;
    }

    /** The list form of a map, as strict tool schemas (which cannot express a map) send it. */
    private Map<String, String> entries(String field, List<?> entries) throws E {
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            if (!(entries.get(i) instanceof Map<?, ?> e) || !(e.get("name") instanceof String name)
                    || !(e.get("value") instanceof String value)) {
                throw refuse(field, "as a list must hold {name, value} entries with string name and value; entry "
                        + i + " is " + describe(entries.get(i)) + ".");
            }
            if (e.size() != 2) {
                throw refuse(field, "entry " + i + " ('" + name + "') must have only the fields name and value.");
            }
            if (out.put(name, value) != null) {
                throw refuse(field, "names '" + name + "' twice; give each name once.");
            }
        }
        return out;
    }

    /**
     * A refusal of a field, worded like the reader's own.
     *
     * @param field the field
     * @param predicate what is wrong, e.g. {@code must be one of a, b.}
     * @return the exception
     */
    public E refuse(String field, String predicate) {
        return words.refusal(field, words.subject(field) + " " + predicate);
    }

    private static String bounds(long min, long max) {
        if (max == Long.MAX_VALUE && min != Long.MIN_VALUE) {
            return "must be at least " + min;
        }
        if (min == Long.MIN_VALUE && max != Long.MAX_VALUE) {
            return "must be at most " + max;
        }
        return "must be between " + min + " and " + max;
    }

    /** Whether a fractional type holds a magnitude beyond every long (its exact value is not worth computing). */
    private static boolean tooLarge(Number n) {
        if (n instanceof BigDecimal b) {
            return b.precision() - b.scale() > 19;
        }
        if (n instanceof Double || n instanceof Float) {
            return Math.abs(n.doubleValue()) >= 0x1p63 && !Double.isInfinite(n.doubleValue());
        }
        return false;
    }

    /** The value of a number without a fractional part, or null. */
    private static BigInteger integral(Number n) {
        if (n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte) {
            return BigInteger.valueOf(n.longValue());
        }
        if (n instanceof BigInteger b) {
            return b;
        }
        BigDecimal d;
        if (n instanceof BigDecimal b) {
            d = b;
        } else {
            double x = n.doubleValue();
            if (Double.isNaN(x) || Double.isInfinite(x)) {
                return null;
            }
            d = new BigDecimal(x);
        }
        try {
            return d.toBigIntegerExact();
        } catch (ArithmeticException e) {
            return null;
        }
    }

    /**
     * What a value is, for messages: {@code a string}, {@code a number}, {@code an object}...
     *
     * @param v the value
     * @return the words
     */
    public static String describe(Object v) {
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
        return v == null ? "null" : v.getClass().getSimpleName();
    }
}
