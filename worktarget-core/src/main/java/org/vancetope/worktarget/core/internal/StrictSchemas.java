package org.vancetope.worktarget.core.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Rewrites a parameters schema for a provider's strict mode (constrained decoding of tool arguments).
 *
 * <p>Both providers: every object schema gets {@code additionalProperties: false}; an object whose
 * values are given by an {@code additionalProperties} schema (a map) becomes an array of
 * {@code {name, value}} entries, which strict mode can express; a keyword the provider's strict mode
 * does not support is dropped and written into the description ("Limits: minimum 1, maximum 500.").
 * OpenAI: every property is required, an optional one becomes a union with {@code null}. Anthropic:
 * optional properties stay optional; numeric bounds, {@code minLength}, {@code maxLength},
 * {@code maxItems}, a {@code minItems} above 1, a string {@code format} outside
 * {@link #ANTHROPIC_FORMATS} and a {@code pattern} with lookaround or backreferences are among what it
 * does not support. Anthropic also limits one request ({@link #ANTHROPIC_MAX_STRICT_TOOLS},
 * {@link #ANTHROPIC_MAX_OPTIONAL}, {@link #ANTHROPIC_MAX_UNION}), counted with
 * {@link #optionalParameters} and {@link #unionParameters}; {@link #anthropicProblems} names what no
 * rewriting fixes (a recursive or non-local {@code $ref}, an object-valued {@code enum}).
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
    /** The string formats Anthropic's strict tool use supports; another is dropped into the description. */
    public static final Set<String> ANTHROPIC_FORMATS = Set.of("date-time", "time", "date", "email", "uri",
            "uuid", "ipv4", "ipv6");
    /** The most tools with {@code strict: true} Anthropic takes in one request. */
    public static final int ANTHROPIC_MAX_STRICT_TOOLS = 20;
    /** The most optional parameters Anthropic takes across the strict tools of one request. */
    public static final int ANTHROPIC_MAX_OPTIONAL = 24;
    /** The most union-typed parameters (a type list or {@code anyOf}) across the strict tools of one request. */
    public static final int ANTHROPIC_MAX_UNION = 16;
    /** Regular-expression constructs strict tool use does not take: lookaround and backreferences. */
    private static final Pattern COMPLEX_REGEX = Pattern.compile("\\\\[1-9]|\\(\\?<?[=!]|\\\\k<");
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
                    && (openAi || anthropicTakes(key, value));
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
                case "$defs" -> {
                    Map<String, Object> defs = new LinkedHashMap<>();
                    ((Map<String, Object>) value).forEach((k, v) -> defs.put(k, node((Map<String, Object>) v)));
                    out.put(key, defs);
                }
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

    /** Whether Anthropic's strict tool use takes this value of a keyword it supports. */
    private static boolean anthropicTakes(String key, Object value) {
        return switch (key) {
            case "minItems" -> value instanceof Number n && n.longValue() <= 1;
            case "format" -> ANTHROPIC_FORMATS.contains(value);
            case "pattern" -> value instanceof String p && !COMPLEX_REGEX.matcher(p).find();
            default -> true;
        };
    }

    /**
     * The optional parameters of a schema: at every level, the properties of an object that its
     * {@code required} does not name (Anthropic counts them across the strict tools of a request).
     *
     * @param schema a schema
     * @return the count
     */
    public static int optionalParameters(Map<?, ?> schema) {
        int n = 0;
        if (schema.get("properties") instanceof Map<?, ?> props) {
            List<?> required = schema.get("required") instanceof List<?> l ? l : List.of();
            for (Map.Entry<?, ?> p : props.entrySet()) {
                n += required.contains(p.getKey()) ? 0 : 1;
            }
        }
        for (Map<?, ?> sub : subschemas(schema)) {
            n += optionalParameters(sub);
        }
        return n;
    }

    /**
     * The union-typed parameters of a schema: at every level, the schemas whose {@code type} is a list or
     * that use {@code anyOf} (the root not counted).
     *
     * @param schema a schema
     * @return the count
     */
    public static int unionParameters(Map<?, ?> schema) {
        int n = 0;
        for (Map<?, ?> sub : subschemas(schema)) {
            n += (sub.get("type") instanceof List<?> || sub.containsKey("anyOf") ? 1 : 0) + unionParameters(sub);
        }
        return n;
    }

    /** The schemas directly inside a schema: its properties, items, anyOf/allOf shapes and $defs. */
    private static List<Map<?, ?>> subschemas(Map<?, ?> schema) {
        List<Map<?, ?>> out = new ArrayList<>();
        for (String key : List.of("properties", "$defs")) {
            if (schema.get(key) instanceof Map<?, ?> m) {
                m.values().forEach(v -> {
                    if (v instanceof Map<?, ?> sub) {
                        out.add(sub);
                    }
                });
            }
        }
        if (schema.get("items") instanceof Map<?, ?> items) {
            out.add(items);
        }
        for (String key : List.of("anyOf", "allOf")) {
            if (schema.get(key) instanceof List<?> shapes) {
                shapes.forEach(v -> {
                    if (v instanceof Map<?, ?> sub) {
                        out.add(sub);
                    }
                });
            }
        }
        return out;
    }

    /**
     * Why a schema in the Anthropic strict form still cannot be strict, which no rewriting fixes: a
     * {@code $ref} that is not a local {@code #/$defs/NAME} or that makes the schema recursive, an
     * {@code enum} or {@code const} with an object or array value.
     *
     * @param schema the schema {@link #anthropic} returned
     * @return the reasons; empty when the schema can be strict
     */
    public static List<String> anthropicProblems(Map<?, ?> schema) {
        List<String> problems = new ArrayList<>();
        Map<?, ?> defs = schema.get("$defs") instanceof Map<?, ?> m ? m : Map.of();
        problems(schema, "$", defs, new ArrayList<>(), problems);
        return problems;
    }

    private static void problems(Map<?, ?> s, String at, Map<?, ?> defs, List<String> refs, List<String> out) {
        List<Object> values = new ArrayList<>();
        if (s.get("enum") instanceof List<?> e) {
            values.addAll(e);
        }
        if (s.containsKey("const")) {
            values.add(s.get("const"));
        }
        if (values.stream().anyMatch(v -> v instanceof Map<?, ?> || v instanceof List<?>)) {
            out.add(at + ": an enum or const value is an object or array; strict tool use takes only strings, "
                    + "numbers, booleans and null");
        }
        if (s.get("$ref") != null) {
            String ref = String.valueOf(s.get("$ref"));
            String name = ref.startsWith("#/$defs/") ? ref.substring("#/$defs/".length()) : null;
            if (name == null || !(defs.get(name) instanceof Map<?, ?> target)) {
                out.add(at + ": $ref " + ref + " is not a local #/$defs/NAME of this schema");
            } else if (refs.contains(name)) {
                out.add(at + ": $ref " + ref + " makes the schema recursive, which strict tool use does not take");
            } else {
                refs.add(name);
                problems(target, ref, defs, refs, out);
                refs.remove(refs.size() - 1);
            }
        }
        if (s.get("properties") instanceof Map<?, ?> props) {
            props.forEach((k, v) -> {
                if (v instanceof Map<?, ?> sub) {
                    problems(sub, at + "." + k, defs, refs, out);
                }
            });
        }
        if (s.get("items") instanceof Map<?, ?> items) {
            problems(items, at + "[]", defs, refs, out);
        }
        for (String key : List.of("anyOf", "allOf")) {
            if (s.get(key) instanceof List<?> shapes) {
                for (int i = 0; i < shapes.size(); i++) {
                    if (shapes.get(i) instanceof Map<?, ?> sub) {
                        problems(sub, at + "." + key + "[" + i + "]", defs, refs, out);
                    }
                }
            }
        }
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
