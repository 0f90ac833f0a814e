package org.vancetope.worktarget.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The documented rules of the providers' strict modes, checked on a parameters schema; each method
 * returns the violations (empty: the schema passes). Written from the providers' public documentation:
 * OpenAI Structured Outputs "supported schemas" (every object closed, every property required,
 * optional ones as a null union, a supported subset of keywords) and Anthropic's JSON Schema
 * limitations for strict tool use (every object closed; no numeric or length bounds, no maxItems,
 * minItems only 0 or 1; at most 24 optional parameters and 16 union-typed parameters across the
 * strict tools of one request).
 */
final class StrictRules {
    static final Pattern TOOL_NAME = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");
    private static final Set<String> OPENAI = Set.of("type", "description", "properties", "required",
            "additionalProperties", "items", "enum", "const", "anyOf", "pattern", "format", "minimum", "maximum",
            "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "$defs", "$ref");
    private static final Set<String> ANTHROPIC = Set.of("type", "description", "properties", "required",
            "additionalProperties", "items", "enum", "const", "anyOf", "allOf", "pattern", "format", "minItems",
            "default", "$defs", "$ref");
    private static final Set<String> TYPES = Set.of("string", "number", "integer", "boolean", "object", "array", "null");

    private StrictRules() {
    }

    static List<String> openAi(Map<String, Object> root) {
        List<String> v = new ArrayList<>();
        if (!"object".equals(root.get("type"))) {
            v.add("$: the root must be type object, not nullable");
        }
        walk(root, "$", true, v);
        return v;
    }

    static List<String> anthropic(Map<String, Object> root) {
        List<String> v = new ArrayList<>();
        if (!"object".equals(root.get("type"))) {
            v.add("$: the root must be type object");
        }
        walk(root, "$", false, v);
        return v;
    }

    /** The optional parameters of a schema (the properties of its root not in required). */
    @SuppressWarnings("unchecked")
    static int optionalParameters(Map<String, Object> root) {
        Map<String, Object> props = (Map<String, Object>) root.getOrDefault("properties", Map.of());
        List<Object> required = (List<Object>) root.getOrDefault("required", List.of());
        return (int) props.keySet().stream().filter(k -> !required.contains(k)).count();
    }

    /** The parameters of a schema whose type is a union or that use anyOf. */
    @SuppressWarnings("unchecked")
    static int unionParameters(Map<String, Object> root) {
        Map<String, Object> props = (Map<String, Object>) root.getOrDefault("properties", Map.of());
        return (int) props.values().stream().map(p -> (Map<String, Object>) p)
                .filter(p -> p.get("type") instanceof List<?> || p.containsKey("anyOf")).count();
    }

    @SuppressWarnings("unchecked")
    private static void walk(Map<String, Object> s, String at, boolean openAi, List<String> v) {
        for (String key : s.keySet()) {
            if (!(openAi ? OPENAI : ANTHROPIC).contains(key)) {
                v.add(at + ": keyword '" + key + "' is not supported");
            }
        }
        if (!openAi && s.get("minItems") instanceof Number n && n.longValue() > 1) {
            v.add(at + ": minItems above 1 is not supported");
        }
        Object type = s.get("type");
        List<Object> types = type instanceof List<?> l ? (List<Object>) l : type == null ? List.of() : List.of(type);
        if (types.isEmpty() && !s.containsKey("anyOf") && !s.containsKey("$ref") && !s.containsKey("const")) {
            v.add(at + ": no type");
        }
        for (Object t : types) {
            if (!TYPES.contains(t)) {
                v.add(at + ": unknown type " + t);
            }
        }
        if (types.contains("null") && s.get("enum") instanceof List<?> e && !new ArrayList<>(e).contains(null)) {
            v.add(at + ": a nullable enum must list null");
        }
        if (types.contains("object")) {
            if (!Boolean.FALSE.equals(s.get("additionalProperties"))) {
                v.add(at + ": an object must have additionalProperties false");
            }
            Map<String, Object> props = (Map<String, Object>) s.getOrDefault("properties", Map.of());
            List<Object> required = (List<Object>) s.getOrDefault("required", List.of());
            for (Object r : required) {
                if (!props.containsKey(String.valueOf(r))) {
                    v.add(at + ": required names the undeclared property " + r);
                }
            }
            if (openAi) {
                for (String p : props.keySet()) {
                    if (!required.contains(p)) {
                        v.add(at + "." + p + ": every property must be required (optional as a null union)");
                    }
                }
            }
            props.forEach((k, p) -> walk((Map<String, Object>) p, at + "." + k, openAi, v));
        }
        if (types.contains("array")) {
            if (!(s.get("items") instanceof Map<?, ?>)) {
                v.add(at + ": an array needs an items schema");
            } else {
                walk((Map<String, Object>) s.get("items"), at + "[]", openAi, v);
            }
        }
        if (s.get("anyOf") instanceof List<?> shapes) {
            for (int i = 0; i < shapes.size(); i++) {
                walk((Map<String, Object>) shapes.get(i), at + ".anyOf[" + i + "]", openAi, v);
            }
        }
    }
}
