package org.vancetope.worktarget.spi;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The description of one tool as an LLM and a wire peer see it: name, description,
 * whether it is primary, its labels and a JSON-Schema object for its parameters.
 *
 * <p>The schema is a plain {@code Map} tree (strings, numbers, booleans, lists, maps) so that this
 * module stays free of any JSON library. It must be an object schema; its {@code properties} are
 * the parameters the tool accepts.
 *
 * @param name the tool name, e.g. {@code "work_file_read"}
 * @param description what the tool does, written for an LLM
 * @param primary whether the tool is shown in an engine's manifest by default
 * @param labels what the tool does to the world
 * @param paramsSchema a JSON-Schema object describing the parameters
 */
public record ToolSpec(String name, String description, boolean primary, Set<ToolLabel> labels,
                       Map<String, Object> paramsSchema) {

    /** Validates and copies the arguments. */
    public ToolSpec {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("tool name must not be blank");
        }
        description = Objects.requireNonNullElse(description, "");
        labels = Set.copyOf(labels);
        paramsSchema = Collections.unmodifiableMap(new LinkedHashMap<>(paramsSchema));
        if (!"object".equals(paramsSchema.get("type"))) {
            throw new IllegalArgumentException("paramsSchema of " + name + " must be a JSON-Schema object (type=object)");
        }
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
