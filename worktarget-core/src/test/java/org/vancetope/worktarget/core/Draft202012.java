package org.vancetope.worktarget.core;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.List;
import org.vancetope.worktarget.core.internal.Json;

/** A JSON Schema draft 2020-12 validator (networknt) for the map trees the catalog builds. */
final class Draft202012 {
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final Schema META = REGISTRY.getSchema(SchemaLocation.of("https://json-schema.org/draft/2020-12/schema"));

    private Draft202012() {
    }

    /** The errors of a schema against the draft 2020-12 meta-schema. */
    static List<String> schemaErrors(Object schema) {
        return messages(META.validate(Json.pretty(schema), InputFormat.JSON));
    }

    /** The errors of an instance against a schema. */
    static List<String> errors(Object schema, Object instance) {
        return messages(REGISTRY.getSchema(Json.pretty(schema), InputFormat.JSON).validate(Json.pretty(instance),
                InputFormat.JSON));
    }

    private static List<String> messages(List<Error> errors) {
        return errors.stream().map(Error::toString).toList();
    }
}
