package org.vancetope.worktarget.backend.workspace;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.ObjectMapper;

/** Draft 2020-12 validation (networknt) of tool results and arguments, which are JSON-shaped maps. */
final class SchemaCheck {
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private SchemaCheck() {
    }

    /** The errors of an instance against a schema. */
    static List<String> errors(Map<String, Object> schema, Object instance) {
        List<Error> errors = REGISTRY.getSchema(MAPPER.writeValueAsString(schema), InputFormat.JSON)
                .validate(MAPPER.writeValueAsString(instance), InputFormat.JSON);
        return errors.stream().map(Error::toString).toList();
    }

    /**
     * The schema with every object that declares properties closed ({@code additionalProperties: false}):
     * a result valid against it has no field its schema does not declare.
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> closed(Map<String, Object> schema) {
        Map<String, Object> out = new LinkedHashMap<>(schema);
        if (schema.get("properties") instanceof Map<?, ?> props) {
            Map<String, Object> p = new LinkedHashMap<>();
            ((Map<String, Object>) props).forEach((k, v) -> p.put(k, closed((Map<String, Object>) v)));
            out.put("properties", p);
            out.put("additionalProperties", false);
        }
        if (schema.get("items") instanceof Map<?, ?> items) {
            out.put("items", closed((Map<String, Object>) items));
        }
        if (schema.get("anyOf") instanceof List<?> shapes) {
            List<Object> s = new ArrayList<>();
            shapes.forEach(x -> s.add(closed((Map<String, Object>) x)));
            out.put("anyOf", s);
        }
        return out;
    }
}
