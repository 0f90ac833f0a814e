package org.vancetope.worktarget.core.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds JSON-Schema object trees for tool parameters, in declaration order.
 */
public final class Schema {
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private final List<String> required = new ArrayList<>();

    /**
     * A new empty object schema.
     *
     * @return the builder
     */
    public static Schema object() {
        return new Schema();
    }

    /**
     * Adds a string property.
     *
     * @param name the name
     * @param description the description
     * @param isRequired whether it is required
     * @return this
     */
    public Schema string(String name, String description, boolean isRequired) {
        return prop(name, base("string", description), isRequired);
    }

    /**
     * Adds a string property restricted to values.
     *
     * @param name the name
     * @param description the description
     * @param values the allowed values
     * @return this
     */
    public Schema choice(String name, String description, List<String> values) {
        return choice(name, description, values, false);
    }

    /**
     * Adds a string property restricted to values.
     *
     * @param name the name
     * @param description the description
     * @param values the allowed values
     * @param isRequired whether it is required
     * @return this
     */
    public Schema choice(String name, String description, List<String> values, boolean isRequired) {
        Map<String, Object> p = base("string", description);
        p.put("enum", List.copyOf(values));
        return prop(name, p, isRequired);
    }

    /**
     * Adds an integer property.
     *
     * @param name the name
     * @param description the description
     * @param min the minimum, or null
     * @param max the maximum, or null
     * @param isRequired whether it is required
     * @return this
     */
    public Schema integer(String name, String description, Long min, Long max, boolean isRequired) {
        Map<String, Object> p = base("integer", description);
        // Bounds are stored as a JSON parser reads them back (Integer when they fit), so a spec that
        // travels in a manifest is equal to the one it came from.
        if (min != null) {
            p.put("minimum", jsonInteger(min));
        }
        if (max != null) {
            p.put("maximum", jsonInteger(max));
        }
        return prop(name, p, isRequired);
    }

    /**
     * Adds a boolean property.
     *
     * @param name the name
     * @param description the description
     * @return this
     */
    public Schema bool(String name, String description) {
        return prop(name, base("boolean", description), false);
    }

    /**
     * Adds an object-of-strings property.
     *
     * @param name the name
     * @param description the description
     * @return this
     */
    public Schema stringMap(String name, String description) {
        Map<String, Object> p = base("object", description);
        p.put("additionalProperties", Map.of("type", "string"));
        return prop(name, p, false);
    }

    /**
     * Adds an optional array-of-strings property.
     *
     * @param name the name
     * @param description the description
     * @param maxItems the most items, or null
     * @return this
     */
    public Schema stringArray(String name, String description, Integer maxItems) {
        return array(name, description, Map.of("type", "string"), null, maxItems);
    }

    /**
     * Adds an optional array property.
     *
     * @param name the name
     * @param description the description
     * @param items the schema of each item, e.g. {@code Map.of("type", "string")} or an
     *        {@link #build() object schema}
     * @param minItems the fewest items, or null
     * @return this
     */
    public Schema array(String name, String description, Map<String, Object> items, Integer minItems) {
        return array(name, description, items, minItems, null);
    }

    private Schema array(String name, String description, Map<String, Object> items, Integer minItems,
                         Integer maxItems) {
        Map<String, Object> p = base("array", description);
        p.put("items", items);
        if (minItems != null) {
            p.put("minItems", minItems);
        }
        if (maxItems != null) {
            p.put("maxItems", maxItems);
        }
        return prop(name, p, false);
    }

    /**
     * Adds a property with a prepared schema.
     *
     * @param name the name
     * @param schema its schema
     * @param isRequired whether it is required
     * @return this
     */
    public Schema prop(String name, Map<String, Object> schema, boolean isRequired) {
        properties.put(name, schema);
        if (isRequired) {
            required.add(name);
        }
        return this;
    }

    /**
     * The same schema without one property.
     *
     * @param schema an object schema built by this class
     * @param name the property to drop
     * @return a new schema map
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> without(Map<String, Object> schema, String name) {
        Map<String, Object> out = new LinkedHashMap<>(schema);
        Map<String, Object> props = new LinkedHashMap<>((Map<String, Object>) schema.get("properties"));
        props.remove(name);
        out.put("properties", props);
        List<String> req = new ArrayList<>((List<String>) schema.getOrDefault("required", List.of()));
        req.remove(name);
        out.put("required", req);
        return out;
    }

    /**
     * The schema tree: {@code type}, {@code properties}, {@code required},
     * {@code additionalProperties: false}.
     *
     * @return a new map
     */
    public Map<String, Object> build() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", "object");
        m.put("properties", new LinkedHashMap<>(properties));
        m.put("required", List.copyOf(required));
        m.put("additionalProperties", false);
        return m;
    }

    private static Number jsonInteger(long v) {
        if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) {
            return Integer.valueOf((int) v);
        }
        return Long.valueOf(v);
    }

    private static Map<String, Object> base(String type, String description) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("type", type);
        p.put("description", description);
        return p;
    }
}
