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
 * minItems only 0 or 1, a listed set of string formats, no lookaround or backreferences in patterns,
 * enum values only strings, numbers, booleans and null, no recursive or external $ref; and per request
 * at most 20 strict tools with 24 optional parameters and 16 union-typed parameters across them). The
 * counts here are written apart from the export's own, so that the test does not check the code with
 * itself.
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
    private static final Set<String> ANTHROPIC_FORMATS = Set.of("date-time", "time", "date", "email", "uri",
            "uuid", "ipv4", "ipv6");
    private static final Pattern LOOKAROUND_OR_BACKREFERENCE = Pattern.compile("\\(\\?<?[=!]|\\\\[1-9]|\\\\k<");
    static final int ANTHROPIC_STRICT_TOOLS = 20;
    static final int ANTHROPIC_OPTIONAL = 24;
    static final int ANTHROPIC_UNION = 16;

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

    @SuppressWarnings("unchecked")
    static List<String> anthropic(Map<String, Object> root) {
        List<String> v = new ArrayList<>();
        if (!"object".equals(root.get("type"))) {
            v.add("$: the root must be type object");
        }
        walk(root, "$", false, v);
        Map<String, Object> defs = (Map<String, Object>) root.getOrDefault("$defs", Map.of());
        refs(root, defs, new ArrayList<>(), v);
        return v;
    }

    /** Flags a $ref that is not local to the schema, and one that leads back to a definition it is in. */
    @SuppressWarnings("unchecked")
    private static void refs(Map<String, Object> root, Map<String, Object> defs, List<String> path, List<String> v) {
        visit(root, s -> {
            if (!(s.get("$ref") instanceof String ref)) {
                return;
            }
            String name = ref.startsWith("#/$defs/") ? ref.substring(8) : null;
            if (name == null || !defs.containsKey(name)) {
                v.add(ref + ": only a local #/$defs/ reference is supported");
            } else if (path.contains(name)) {
                v.add(ref + ": recursive schemas are not supported");
            } else if (path.size() < 64) {
                path.add(name);
                refs((Map<String, Object>) defs.get(name), defs, path, v);
                path.remove(path.size() - 1);
            }
        });
    }

    /**
     * The rules of one Anthropic request: every tool marked {@code strict: true} passes
     * {@link #anthropic}, and together the strict tools stay within the per-request limits.
     */
    @SuppressWarnings("unchecked")
    static List<String> anthropicRequest(List<Map<String, Object>> definitions) {
        List<String> v = new ArrayList<>();
        int tools = 0;
        int optional = 0;
        int union = 0;
        for (Map<String, Object> d : definitions) {
            if (!Boolean.TRUE.equals(d.get("strict"))) {
                continue;
            }
            Map<String, Object> schema = (Map<String, Object>) d.get("input_schema");
            anthropic(schema).forEach(x -> v.add(d.get("name") + " " + x));
            tools++;
            optional += optionalParameters(schema);
            union += unionParameters(schema);
        }
        if (tools > ANTHROPIC_STRICT_TOOLS) {
            v.add(tools + " strict tools, more than " + ANTHROPIC_STRICT_TOOLS);
        }
        if (optional > ANTHROPIC_OPTIONAL) {
            v.add(optional + " optional parameters across the strict tools, more than " + ANTHROPIC_OPTIONAL);
        }
        if (union > ANTHROPIC_UNION) {
            v.add(union + " union-typed parameters across the strict tools, more than " + ANTHROPIC_UNION);
        }
        return v;
    }

    /** The optional parameters of a schema: the properties not in required, of every object in it. */
    static int optionalParameters(Map<String, Object> schema) {
        int[] n = {0};
        visit(schema, s -> {
            Object props = s.get("properties");
            Object required = s.getOrDefault("required", List.of());
            if (props instanceof Map<?, ?> p) {
                p.keySet().forEach(k -> n[0] += ((List<?>) required).contains(k) ? 0 : 1);
            }
        });
        return n[0];
    }

    /** The parameters (schemas below the root) whose type is a union or that use anyOf. */
    static int unionParameters(Map<String, Object> schema) {
        int[] n = {0};
        visit(schema, s -> n[0] += s != schema && (s.get("type") instanceof List<?> || s.containsKey("anyOf")) ? 1 : 0);
        return n[0];
    }

    /** Calls the action on the schema and every schema nested in it. */
    @SuppressWarnings("unchecked")
    private static void visit(Map<String, Object> s, java.util.function.Consumer<Map<String, Object>> action) {
        action.accept(s);
        for (String key : List.of("properties", "$defs")) {
            ((Map<String, Object>) s.getOrDefault(key, Map.of())).values()
                    .forEach(x -> visit((Map<String, Object>) x, action));
        }
        if (s.get("items") instanceof Map<?, ?> items) {
            visit((Map<String, Object>) items, action);
        }
        for (String key : List.of("anyOf", "allOf")) {
            ((List<Object>) s.getOrDefault(key, List.of())).forEach(x -> visit((Map<String, Object>) x, action));
        }
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
        if (!openAi && s.containsKey("format") && !ANTHROPIC_FORMATS.contains(s.get("format"))) {
            v.add(at + ": format " + s.get("format") + " is not supported");
        }
        if (!openAi && s.get("pattern") instanceof String p && LOOKAROUND_OR_BACKREFERENCE.matcher(p).find()) {
            v.add(at + ": a pattern with lookaround or backreferences is not supported");
        }
        List<Object> values = new ArrayList<>(s.get("enum") instanceof List<?> e ? e : List.of());
        if (s.containsKey("const")) {
            values.add(s.get("const"));
        }
        if (!openAi && values.stream().anyMatch(x -> x instanceof Map<?, ?> || x instanceof List<?>)) {
            v.add(at + ": enum and const take only strings, numbers, booleans and null");
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
