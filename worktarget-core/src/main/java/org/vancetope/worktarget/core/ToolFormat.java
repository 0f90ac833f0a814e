package org.vancetope.worktarget.core;

/**
 * The tool-definition formats {@link ToolCatalog#toolDefinitions(ToolFormat, java.util.Collection)}
 * exports, each in the shape its API takes as it is. None of them carries keys the provider does not
 * know (no {@code primary}, no {@code labels}).
 *
 * <p>The strict forms rewrite the parameters schema to what the provider's strict mode (constrained
 * decoding) accepts: every object closed with {@code additionalProperties: false}, and a map-typed
 * parameter (such as {@code exec_run}'s {@code env}) as a list of {@code {name, value}} entries, which
 * the dispatcher accepts besides the map. In OpenAI's strict form every property is required and an
 * optional one is a union with {@code null} (the dispatcher reads a JSON null as an absent parameter);
 * in Anthropic's the optional properties stay optional and what it does not support (numeric bounds,
 * string lengths, {@code maxItems}, {@code minItems} above 1, string formats outside its list, patterns
 * with lookaround or backreferences) is dropped, the limit written into the description instead, while
 * the tools still enforce it.
 */
public enum ToolFormat {
    /**
     * An MCP tool ({@code tools/list}): {@code name}, {@code title}, {@code description},
     * {@code inputSchema}, {@code outputSchema} and {@code annotations}.
     */
    MCP,
    /**
     * An OpenAI function tool as the Responses API takes it: {@code type: "function"}, {@code name},
     * {@code description}, {@code parameters} (the schema as it is) and {@code strict: false} (the
     * Responses API would otherwise apply strict mode to a schema not written for it).
     */
    OPENAI,
    /** An OpenAI function tool with {@code strict: true} and its parameters rewritten for strict mode. */
    OPENAI_STRICT,
    /** An Anthropic Messages API tool: {@code name}, {@code description}, {@code input_schema}. */
    ANTHROPIC,
    /**
     * An Anthropic tool with {@code strict: true} and its input schema rewritten for strict tool use, for
     * as many tools as one request takes: Anthropic takes at most 20 strict tools, with 24 optional and 16
     * union-typed parameters across them. In order, each tool that still fits is strict; the others are
     * exported as {@link #ANTHROPIC} tools (no {@code strict} key) in the same list. A tool whose schema
     * strict mode cannot express (a recursive {@code $ref}) is never strict.
     */
    ANTHROPIC_STRICT
}
