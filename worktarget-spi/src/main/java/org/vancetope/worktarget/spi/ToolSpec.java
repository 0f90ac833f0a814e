package org.vancetope.worktarget.spi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The description of one tool as an LLM and a wire peer see it: name, description,
 * whether it is primary, its labels, a JSON-Schema object for its parameters, a human-readable title
 * and a JSON-Schema object for its result.
 *
 * <p>The schemas are plain {@code Map} trees (strings, numbers, booleans, lists, maps) so that this
 * module stays free of any JSON library. Both must be object schemas; the {@code properties} of
 * {@code paramsSchema} are the parameters the tool accepts, those of {@code outputSchema} the fields
 * of its result.
 *
 * <p>The schemas are copied deeply and cannot be changed, neither through the maps given nor through
 * the ones returned: adapt a copy (e.g. {@code new LinkedHashMap<>(spec.paramsSchema())}, copying each level
 * you change).
 *
 * <p>The labels are the one source of the MCP hints: {@link #annotations()} derives them, so a spec
 * cannot say "read-only" in its labels and "destructive" in its hints.
 *
 * <pre>{@code
 * ToolSpec spec = new ToolSpec("file_mkdir", "Create a directory ...", true,
 *         Set.of(ToolLabel.WRITE, ToolLabel.NON_DESTRUCTIVE, ToolLabel.IDEMPOTENT, ToolLabel.CLOSED_WORLD),
 *         params, "Create directory", output);
 * spec.annotations();   // ToolAnnotations[title=Create directory, readOnlyHint=false, destructiveHint=false, ...]
 * }</pre>
 *
 * @param name the tool name, e.g. {@code "work_file_read"}
 * @param description what the tool does, written for an LLM
 * @param primary whether the tool is shown in an engine's manifest by default
 * @param labels what the tool does to the world
 * @param paramsSchema a JSON-Schema object describing the parameters
 * @param title a short human-readable name, e.g. {@code "Read file"}; null or blank: derived from the name
 *              ({@code "my_tool"} becomes {@code "My tool"})
 * @param outputSchema a JSON-Schema object describing the result; null: {@code {"type":"object"}}, any object
 */
public record ToolSpec(String name, String description, boolean primary, Set<ToolLabel> labels,
                       Map<String, Object> paramsSchema, String title, Map<String, Object> outputSchema) {

    /** The output schema of a spec that does not describe its result: any JSON object. */
    private static final Map<String, Object> ANY_OBJECT = Map.of("type", "object");

    /**
     * Validates and copies the arguments.
     *
     * @param name the tool name, e.g. {@code "work_file_read"}
     * @param description what the tool does, written for an LLM
     * @param primary whether the tool is shown in an engine's manifest by default
     * @param labels what the tool does to the world
     * @param paramsSchema a JSON-Schema object describing the parameters
     * @param title a short human-readable name, e.g. {@code "Read file"}; null or blank: derived from the name
     *        ({@code "my_tool"} becomes {@code "My tool"})
     * @param outputSchema a JSON-Schema object describing the result; null: {@code {"type":"object"}}, any object
     */
    public ToolSpec {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("tool name must not be blank");
        }
        description = Objects.requireNonNullElse(description, "");
        labels = Set.copyOf(labels);
        paramsSchema = frozen(paramsSchema, name, "paramsSchema");
        if (!"object".equals(paramsSchema.get("type"))) {
            throw new IllegalArgumentException("paramsSchema of " + name + " must be a JSON-Schema object (type=object)");
        }
        title = title == null || title.isBlank() ? titleOf(name) : title.strip();
        outputSchema = outputSchema == null ? ANY_OBJECT : frozen(outputSchema, name, "outputSchema");
        if (!"object".equals(outputSchema.get("type"))) {
            throw new IllegalArgumentException("outputSchema of " + name + " must be a JSON-Schema object (type=object): "
                    + "a tool result is a JSON object");
        }
    }

    /**
     * A spec without a title of its own (derived from the name) and without an output schema (any
     * object): the form of tools that predate them.
     *
     * @param name the tool name
     * @param description what the tool does
     * @param primary whether the tool is shown by default
     * @param labels what the tool does to the world
     * @param paramsSchema a JSON-Schema object describing the parameters
     */
    public ToolSpec(String name, String description, boolean primary, Set<ToolLabel> labels,
                    Map<String, Object> paramsSchema) {
        this(name, description, primary, labels, paramsSchema, null, null);
    }

    /**
     * The MCP hints, derived from the title and the labels: read-only when the labels contain
     * {@link ToolLabel#READ_ONLY} (then not destructive and idempotent); otherwise destructive unless
     * {@link ToolLabel#NON_DESTRUCTIVE}, idempotent only with {@link ToolLabel#IDEMPOTENT}. Open-world
     * unless {@link ToolLabel#CLOSED_WORLD}. A spec with only the older labels thus gets MCP's own
     * cautious defaults.
     *
     * @return the hints
     */
    public ToolAnnotations annotations() {
        boolean readOnly = labels.contains(ToolLabel.READ_ONLY);
        return new ToolAnnotations(title, readOnly,
                !readOnly && !labels.contains(ToolLabel.NON_DESTRUCTIVE),
                readOnly || labels.contains(ToolLabel.IDEMPOTENT),
                !labels.contains(ToolLabel.CLOSED_WORLD));
    }

    /** The deepest nesting of maps and lists a schema may have. */
    private static final int MAX_SCHEMA_DEPTH = 128;

    /**
     * A copy of a schema that no one can change, all the way down: its maps and lists are copied and
     * wrapped unmodifiable at every level, so that neither the caller who built it nor a host that adapts
     * a spec's schema for a model API (in place, as frameworks do) changes the spec every dispatcher of the
     * JVM routes and checks parameters with.
     */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> frozen(Map<String, Object> schema, String name, String what) {
        return (Map<String, Object>) frozen(schema, 0, name, what);
    }

    private static Object frozen(Object value, int depth, String name, String what) {
        if (depth > MAX_SCHEMA_DEPTH) {
            throw new IllegalArgumentException(what + " of " + name + " nests maps and lists deeper than "
                    + MAX_SCHEMA_DEPTH + " levels (or contains itself)");
        }
        if (value instanceof Map<?, ?> m) {
            Map<Object, Object> copy = new LinkedHashMap<>(m.size() * 2);
            for (Map.Entry<?, ?> e : m.entrySet()) {
                copy.put(e.getKey(), frozen(e.getValue(), depth + 1, name, what));
            }
            return Collections.unmodifiableMap(copy);
        }
        if (value instanceof Set<?> set) {
            Set<Object> copy = new java.util.LinkedHashSet<>();
            for (Object o : set) {
                copy.add(frozen(o, depth + 1, name, what));
            }
            return Collections.unmodifiableSet(copy);
        }
        if (value instanceof java.util.Collection<?> c) {
            return frozenList(c, depth, name, what);
        }
        if (value instanceof Object[] array) {
            return frozenList(java.util.Arrays.asList(array), depth, name, what);     // a JSON array
        }
        return value;
    }

    private static List<Object> frozenList(java.util.Collection<?> values, int depth, String name, String what) {
        List<Object> copy = new ArrayList<>(values.size());
        for (Object o : values) {
            copy.add(frozen(o, depth + 1, name, what));
        }
        return Collections.unmodifiableList(copy);
    }

    private static String titleOf(String name) {
        String spaced = name.strip().replace('_', ' ').replace('-', ' ');
        return Character.toUpperCase(spaced.charAt(0)) + spaced.substring(1);
    }

    /**
     * The names of the parameters this tool declares (the keys of the schema's {@code properties}).
     *
     * @return the parameter names, in declaration order
     */
    @SuppressWarnings("unchecked")
    public Set<String> parameterNames() {
        Object props = paramsSchema.get("properties");
        if (props instanceof Map<?, ?> m) {
            return Collections.unmodifiableSet(new java.util.LinkedHashSet<>(((Map<String, Object>) m).keySet()));
        }
        return Set.of();
    }

    /**
     * Whether the schema accepts parameters it does not declare, as JSON Schema reads it: unless
     * {@code additionalProperties} is {@code false}, an object schema is open (a schema without
     * {@code properties}, such as {@code {"type":"object"}}, accepts any parameter).
     *
     * @return false only for a closed schema
     */
    public boolean acceptsUndeclaredParameters() {
        return !Boolean.FALSE.equals(paramsSchema.get("additionalProperties"));
    }

    /**
     * The names of the required parameters.
     *
     * @return the required parameter names
     */
    public List<String> requiredParameters() {
        Object req = paramsSchema.get("required");
        if (req instanceof List<?> l) {
            return l.stream().map(String::valueOf).toList();
        }
        return List.of();
    }
}
