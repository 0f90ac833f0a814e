package org.vancetope.worktarget.core.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rewrites a parameters schema for a provider's strict mode (constrained decoding of tool arguments).
 *
 * <p>Both providers: every object schema gets {@code additionalProperties: false}; an object whose
 * values are given by an {@code additionalProperties} schema (a map) becomes an array of
 * {@code {name, value}} entries, which strict mode can express; a keyword the provider's strict mode
 * does not support is dropped and written into the description ("Limits: minimum 1, maximum 500.").
 * OpenAI: every property is required, an optional one becomes a union with {@code null}. Anthropic:
 * optional properties stay optional; numeric bounds, {@code minLength}, {@code maxLength},
 * {@code maxItems} and a {@code minItems} above 1 are among the keywords it does not support.
 */
public final class StrictSchemas {
    /** The keywords OpenAI's strict mode supports. */
    public static final Set<String> OPENAI_KEYWORDS = Set.of("type", "description", "properties", "required",
            "additionalProperties", "items", "enum", "const", "anyOf", "pattern", "format", "minimum", "maximum",
            "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "$defs", "$ref");
    /** The keywords Anthropic's strict tool use supports. */
    public static final Set<String> ANTHROPIC_KEYWORDS = Set.of("type", "description", "properties", "required",
            "additionalProperties", "items", "enum", "const", "anyOf", "allOf", "pattern", "format", "minItems",
            "default", "$defs", "$ref");
    /** The name of the key field of a map parameter in its list form. */
    public static final String ENTRY_NAME = "name";
    /** The name of the value field of a map parameter in its list form. */
    public static final String ENTRY_VALUE = "value";

    private final boolean openAi;

    private StrictSchemas(boolean openAi) {
        this.openAi = openAi;
    }

    /**
     * The OpenAI strict form of a parameters schema.
     *
     * @param schema an object schema
     * @return a new schema tree
     */
    public static Map<String, Object> openAi(Map<String, Object> schema) {
        return new StrictSchemas(true).node(schema);
    }

    /**
     * The Anthropic strict form of a parameters schema.
     *
     * @param schema an object schema
     * @return a new schema tree
     */
    public static Map<String, Object> anthropic(Map<String, Object> schema) {
        return new StrictSchemas(false).node(schema);
    }

    /**
     * Whether a property schema is a map: an object whose values an {@code additionalProperties} schema
     * describes, with no named properties.
     *
     * @param schema a property schema
     * @return true for a map
     */
    public static boolean isMap(Map<?, ?> schema) {
        return "object".equals(schema.get("type")) && schema.get("additionalProperties") instanceof Map<?, ?>
                && !(schema.get("properties") instanceof Map<?, ?> p && !p.isEmpty());
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> node(Map<String, Object> schema) {
        if (isMap(schema)) {
            return mapAsEntries(schema);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        StringBuilder limits = new StringBuilder();
        for (Map.Entry<String, Object> e : schema.entrySet()) {
            String key = e.getKey();
            Object value = e.getValue();
            boolean supported = (openAi ? OPENAI_KEYWORDS : ANTHROPIC_KEYWORDS).contains(key)
                    && (openAi || !"minItems".equals(key) || value instanceof Number n && n.longValue() <= 1);
            if (!supported) {
                limits.append(limits.length() == 0 ? "" : ", ").append(key).append(' ').append(value);
                continue;
            }
            switch (key) {
                case "properties" -> {
                    Map<String, Object> props = new LinkedHashMap<>();
                    ((Map<String, Object>) value).forEach((k, v) -> props.put(k, node((Map<String, Object>) v)));
                    out.put(key, props);
                }
                case "items" -> out.put(key, node((Map<String, Object>) value));
                case "anyOf", "allOf" -> {
                    List<Object> shapes = new ArrayList<>();
                    for (Object o : (List<Object>) value) {
                        shapes.add(node((Map<String, Object>) o));
                    }
                    out.put(key, shapes);
                }
                default -> out.put(key, value);
            }
        }
        if (limits.length() > 0) {
            String d = schema.get("description") instanceof String s ? s : "";
            out.put("description", (d.isEmpty() ? "" : d + " ") + "Limits: " + limits + ".");
        }
        if ("object".equals(out.get("type"))) {
            close(out);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private void close(Map<String, Object> object) {
        Map<String, Object> props = (Map<String, Object>) object.computeIfAbsent("properties", k -> new LinkedHashMap<>());
        Set<String> required = new LinkedHashSet<>();
        if (object.get("required") instanceof List<?> l) {
            l.forEach(r -> required.add(String.valueOf(r)));
        }
        if (openAi) {
            for (Map.Entry<String, Object> p : props.entrySet()) {
                if (!required.contains(p.getKey())) {
                    p.setValue(nullable((Map<String, Object>) p.getValue()));
                }
            }
            object.put("required", List.copyOf(props.keySet()));
        } else {
            object.put("required", List.copyOf(required));
        }
        object.put("additionalProperties", false);
    }

    /** The schema with {@code null} added to its type (and to its enum). */
    private static Map<String, Object> nullable(Map<String, Object> schema) {
        Map<String, Object> out = new LinkedHashMap<>(schema);
        Object type = schema.get("type");
        List<Object> types = new ArrayList<>();
        if (type instanceof List<?> l) {
            types.addAll(l);
        } else if (type != null) {
            types.add(type);
        }
        if (!types.contains("null")) {
            types.add("null");
        }
        out.put("type", types);
        if (schema.get("enum") instanceof List<?> values) {
            List<Object> withNull = new ArrayList<>(values);
            if (!withNull.contains(null)) {
                withNull.add(null);
            }
            out.put("enum", withNull);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> mapAsEntries(Map<String, Object> schema) {
        Map<String, Object> name = new LinkedHashMap<>();
        name.put("type", "string");
        name.put("description", "The key.");
        Map<String, Object> value = new LinkedHashMap<>(node((Map<String, Object>) schema.get("additionalProperties")));
        value.putIfAbsent("description", "Its value.");
        Map<String, Object> entryProps = new LinkedHashMap<>();
        entryProps.put(ENTRY_NAME, name);
        entryProps.put(ENTRY_VALUE, value);
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("type", "object");
        entry.put("properties", entryProps);
        entry.put("required", List.of(ENTRY_NAME, ENTRY_VALUE));
        entry.put("additionalProperties", false);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("type", "array");
        String d = schema.get("description") instanceof String s ? s + " " : "";
        out.put("description", d + "A list of {name, value} entries; each name at most once.");
        out.put("items", entry);
        return out;
    }
}
