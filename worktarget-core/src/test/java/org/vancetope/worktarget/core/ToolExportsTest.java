package org.vancetope.worktarget.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.vancetope.worktarget.core.internal.Json;
import org.vancetope.worktarget.core.internal.StrictSchemas;
import org.vancetope.worktarget.core.transfer.FileTransferTools;
import org.vancetope.worktarget.spi.ToolLabel;
import org.vancetope.worktarget.spi.ToolSpec;

/** The provider exports of {@link ToolCatalog}: shapes, draft 2020-12 validity, strict-mode rules, golden files. */
class ToolExportsTest {
    private static final Map<ToolFormat, Set<String>> KEYS = new EnumMap<>(Map.of(
            ToolFormat.MCP, Set.of("name", "title", "description", "inputSchema", "outputSchema", "annotations"),
            ToolFormat.OPENAI, Set.of("type", "name", "description", "parameters", "strict"),
            ToolFormat.OPENAI_STRICT, Set.of("type", "name", "description", "parameters", "strict"),
            ToolFormat.ANTHROPIC, Set.of("name", "description", "input_schema"),
            ToolFormat.ANTHROPIC_STRICT, Set.of("name", "description", "input_schema", "strict")));

    /** Every tool a host offers: the wrappers, the meta-tools, the backends and the transfer host tools. */
    static List<ToolSpec> allTools() {
        List<ToolSpec> all = new ArrayList<>(ToolCatalog.wrappers());
        all.addAll(ToolCatalog.metaTools());
        all.addAll(ToolCatalog.backendTools());
        all.add(FileTransferTools.UPLOAD_SPEC);
        all.add(FileTransferTools.DOWNLOAD_SPEC);
        all.add(FileTransferTools.DIR_UPLOAD_SPEC);
        all.add(FileTransferTools.DIR_DOWNLOAD_SPEC);
        all.add(FileTransferTools.CREATE_EPHEMERAL_DIR_SPEC);
        return all;
    }

    private static List<ToolSpec> llmFacing() {
        List<ToolSpec> all = new ArrayList<>(ToolCatalog.wrappers());
        all.addAll(ToolCatalog.metaTools());
        all.add(FileTransferTools.UPLOAD_SPEC);
        all.add(FileTransferTools.DOWNLOAD_SPEC);
        all.add(FileTransferTools.DIR_UPLOAD_SPEC);
        all.add(FileTransferTools.DIR_DOWNLOAD_SPEC);
        all.add(FileTransferTools.CREATE_EPHEMERAL_DIR_SPEC);
        return all;
    }

    @Test
    void theLlmToolsAreTheWrappersThenTheMetaToolsAsTheManifestExportsThem() {
        List<ToolSpec> expected = new ArrayList<>(ToolCatalog.wrappers());
        expected.addAll(ToolCatalog.metaTools());

        assertThat(ToolCatalog.llmTools()).containsExactlyElementsOf(expected).hasSize(19);
        assertThat(ToolCatalog.manifestJson(ToolFormat.OPENAI))
                .isEqualTo(Json.pretty(ToolCatalog.toolDefinitions(ToolFormat.OPENAI, ToolCatalog.llmTools())));
    }

    /** The optional parameters of a schema, nested ones included, as the strict walk counts them. */
    @SuppressWarnings("unchecked")
    private static int optionalParameters(Map<String, Object> schema) {
        int n = 0;
        Map<String, Object> props = (Map<String, Object>) schema.getOrDefault("properties", Map.of());
        List<Object> required = (List<Object>) schema.getOrDefault("required", List.of());
        for (Map.Entry<String, Object> p : props.entrySet()) {
            if (!required.contains(p.getKey())) {
                n++;
            }
            Map<String, Object> v = (Map<String, Object>) p.getValue();
            if (v.containsKey("properties")) {
                n += optionalParameters(v);
            }
            if (v.get("items") instanceof Map<?, ?> items && items.containsKey("properties")) {
                n += optionalParameters((Map<String, Object>) items);
            }
        }
        return n;
    }

    @Test
    void theDocsGiveTheNumberOfOptionalParametersOfTheLlmTools() throws IOException {
        int total = ToolCatalog.llmTools().stream().mapToInt(t -> optionalParameters(t.paramsSchema())).sum();
        String sentence = "19 LLM-facing tools have " + total + " optional parameters together";

        assertThat(Files.readString(Path.of("..", "README.md")).replaceAll("\\s+", " ")).contains(sentence);
        assertThat(Files.readString(Path.of("..", "docs", "tool-exports.md")).replaceAll("\\s+", " "))
                .contains(sentence);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> parameters(ToolFormat format, Map<String, Object> definition) {
        return (Map<String, Object>) definition.get(switch (format) {
            case MCP -> "inputSchema";
            case OPENAI, OPENAI_STRICT -> "parameters";
            case ANTHROPIC, ANTHROPIC_STRICT -> "input_schema";
        });
    }

    @ParameterizedTest
    @EnumSource(ToolFormat.class)
    void everyDefinitionHasExactlyTheKeysItsProviderKnows(ToolFormat format) {
        for (Map<String, Object> d : ToolCatalog.toolDefinitions(format, allTools())) {
            // in the Anthropic strict export the tools past the request's limits are plain Anthropic tools
            Set<String> keys = format == ToolFormat.ANTHROPIC_STRICT && !d.containsKey("strict")
                    ? KEYS.get(ToolFormat.ANTHROPIC) : KEYS.get(format);
            assertThat(d.keySet()).as(format + " " + d.get("name")).containsExactlyInAnyOrderElementsOf(keys);
            assertThat((String) d.get("name")).matches(StrictRules.TOOL_NAME);
            assertThat((String) d.get("description")).isNotBlank();
        }
    }

    @Test
    void openAiDefinitionsAreFunctionsAndSayWhetherTheyAreStrict() {
        assertThat(ToolCatalog.toolDefinitions(ToolFormat.OPENAI, allTools()))
                .allSatisfy(d -> assertThat(d).containsEntry("type", "function").containsEntry("strict", false));
        assertThat(ToolCatalog.toolDefinitions(ToolFormat.OPENAI_STRICT, allTools()))
                .allSatisfy(d -> assertThat(d).containsEntry("type", "function").containsEntry("strict", true));
    }

    @Test
    void theNonStrictExportsCarryTheParametersSchemaAsItIs() {
        List<ToolSpec> all = allTools();
        List<Map<String, Object>> openAi = ToolCatalog.toolDefinitions(ToolFormat.OPENAI, all);
        List<Map<String, Object>> anthropic = ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC, all);
        for (int i = 0; i < all.size(); i++) {
            assertThat(openAi.get(i).get("parameters")).isEqualTo(all.get(i).paramsSchema());
            assertThat(anthropic.get(i).get("input_schema")).isEqualTo(all.get(i).paramsSchema());
        }
    }

    @Test
    void theMcpExportCarriesTitleOutputSchemaAndTheDerivedHints() {
        Map<String, Object> read = ToolCatalog.toolDefinitions(ToolFormat.MCP,
                List.of(ToolCatalog.wrapper("file_read").orElseThrow())).get(0);
        assertThat(read).containsEntry("title", "Read file")
                .containsEntry("outputSchema", ToolCatalog.wrapper("file_read").orElseThrow().outputSchema());
        assertThat(read.get("annotations")).isEqualTo(Map.of("title", "Read file", "readOnlyHint", true,
                "destructiveHint", false, "idempotentHint", true, "openWorldHint", false));
    }

    @ParameterizedTest
    @EnumSource(ToolFormat.class)
    void everyExportedSchemaIsAValidDraft202012Schema(ToolFormat format) {
        for (Map<String, Object> d : ToolCatalog.toolDefinitions(format, allTools())) {
            assertThat(Draft202012.schemaErrors(parameters(format, d))).as(format + " " + d.get("name")).isEmpty();
            if (d.containsKey("outputSchema")) {
                assertThat(Draft202012.schemaErrors(d.get("outputSchema"))).as("output of " + d.get("name")).isEmpty();
            }
        }
    }

    @Test
    void everyToolPassesOpenAisStrictRulesInTheOpenAiStrictExport() {
        for (Map<String, Object> d : ToolCatalog.toolDefinitions(ToolFormat.OPENAI_STRICT, allTools())) {
            assertThat(StrictRules.openAi(parameters(ToolFormat.OPENAI_STRICT, d))).as((String) d.get("name")).isEmpty();
        }
    }

    @Test
    void everyToolExportedAloneIsStrictAndPassesAnthropicsStrictRules() {
        for (ToolSpec s : allTools()) {
            List<Map<String, Object>> request = ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC_STRICT, List.of(s));
            assertThat(request.get(0)).as(s.name()).containsEntry("strict", true);
            assertThat(StrictRules.anthropicRequest(request)).as(s.name()).isEmpty();
        }
    }

    @Test
    void theWholeCatalogInOneAnthropicStrictRequestKeepsWithinTheDocumentedLimits() {
        for (List<ToolSpec> tools : List.of(llmFacing(), allTools())) {
            List<Map<String, Object>> request = ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC_STRICT, tools);
            assertThat(StrictRules.anthropicRequest(request)).isEmpty();
            long strict = request.stream().filter(d -> Boolean.TRUE.equals(d.get("strict"))).count();
            assertThat(strict).as("strict tools of %d", tools.size()).isGreaterThan(0).isLessThan(tools.size());
        }
    }

    @Test
    void inTheAnthropicStrictExportAToolPastTheLimitsIsAPlainAnthropicTool() {
        List<ToolSpec> tools = allTools();
        List<Map<String, Object>> request = ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC_STRICT, tools);
        List<Map<String, Object>> plain = ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC, tools);
        for (int i = 0; i < tools.size(); i++) {
            if (!request.get(i).containsKey("strict")) {
                assertThat(request.get(i)).as(tools.get(i).name()).isEqualTo(plain.get(i));
            }
        }
    }

    @Test
    void inOrderEachToolThatStillFitsIsStrict() {
        ToolSpec grep = ToolCatalog.wrapper("file_grep").orElseThrow();   // 14 optional parameters
        ToolSpec find = ToolCatalog.wrapper("file_find").orElseThrow();   // 13
        ToolSpec kill = ToolCatalog.wrapper("exec_kill").orElseThrow();   // none
        assertThat(strictNames(ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC_STRICT, List.of(grep, find, kill))))
                .containsExactly("file_grep", "exec_kill");
        assertThat(strictNames(ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC_STRICT, List.of(find, grep, kill))))
                .containsExactly("file_find", "exec_kill");
    }

    @Test
    void atMostTwentyToolsAreStrictInOneAnthropicRequest() {
        List<ToolSpec> tools = new ArrayList<>();
        for (int i = 0; i < 21; i++) {
            tools.add(new ToolSpec("own_" + i, "d", true, Set.of(), Map.of("type", "object", "properties",
                    Map.of("a", Map.of("type", "string")), "required", List.of("a"))));
        }
        List<String> strict = strictNames(ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC_STRICT, tools));
        assertThat(strict).hasSize(20).doesNotContain("own_20");
    }

    @Test
    void atMostSixteenUnionTypedParametersAreStrictInOneAnthropicRequest() {
        List<ToolSpec> tools = new ArrayList<>();
        for (int i = 0; i < 3; i++) {   // 6 union-typed parameters each: the third would make 18
            Map<String, Object> props = new LinkedHashMap<>();
            for (int p = 0; p < 6; p++) {
                props.put("p" + p, Map.of("type", List.of("string", "integer")));
            }
            tools.add(new ToolSpec("own_" + i, "d", true, Set.of(), Map.of("type", "object", "properties", props,
                    "required", List.copyOf(props.keySet()))));
        }
        List<Map<String, Object>> request = ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC_STRICT, tools);
        assertThat(strictNames(request)).containsExactly("own_0", "own_1");
        assertThat(StrictRules.anthropicRequest(request)).isEmpty();
    }

    @Test
    void theHostCanNameTheToolsToExportStrict() {
        Set<String> exact = Set.of("file_write", "file_edit", "exec_run");
        List<Map<String, Object>> anthropic = ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC_STRICT, llmFacing(), exact);
        assertThat(strictNames(anthropic)).containsExactlyInAnyOrderElementsOf(exact);
        assertThat(StrictRules.anthropicRequest(anthropic)).isEmpty();
        assertThat(anthropic).hasSize(llmFacing().size());
        List<Map<String, Object>> openAi = ToolCatalog.toolDefinitions(ToolFormat.OPENAI_STRICT, llmFacing(), exact);
        assertThat(strictNames(openAi)).containsExactlyInAnyOrderElementsOf(exact);
        for (Map<String, Object> d : openAi) {
            if (Boolean.TRUE.equals(d.get("strict"))) {
                assertThat(StrictRules.openAi(parameters(ToolFormat.OPENAI_STRICT, d))).isEmpty();
            } else {
                assertThat(d).containsEntry("strict", false);
            }
        }
    }

    @Test
    void namingMoreStrictToolsThanOneAnthropicRequestTakesIsRefusedSayingWhy() {
        assertThatThrownBy(() -> ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC_STRICT, llmFacing(),
                Set.of("file_find", "file_grep")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 20 strict tools with 24 optional")
                .hasMessageContaining("27").hasMessageContaining("Name fewer strict tools");
    }

    @Test
    void namingAToolThatIsNotExportedOrAFormatWithoutStrictModeIsRefused() {
        assertThatThrownBy(() -> ToolCatalog.toolDefinitions(ToolFormat.OPENAI_STRICT, ToolCatalog.wrappers(),
                Set.of("work_target_get"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[work_target_get]").hasMessageContaining("not among the tools exported");
        assertThatThrownBy(() -> ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC, ToolCatalog.wrappers(),
                Set.of("file_read"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ANTHROPIC has no strict mode");
    }

    @Test
    void aRecursiveSchemaIsNeverStrictAndNamingItIsRefused() {
        Map<String, Object> node = Map.of("type", "object", "properties", Map.of("children", Map.of("type", "array",
                "items", Map.of("$ref", "#/$defs/node"))));
        ToolSpec tree = new ToolSpec("own_tree", "d", true, Set.of(), Map.of("type", "object", "properties",
                Map.of("root", Map.of("$ref", "#/$defs/node")), "$defs", Map.of("node", node)));
        List<Map<String, Object>> request = ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC_STRICT, List.of(tree));
        assertThat(request.get(0)).doesNotContainKey("strict");
        assertThat(StrictRules.anthropic(StrictSchemas.anthropic(tree.paramsSchema()))).anyMatch(v -> v.contains("recursive"));
        assertThatThrownBy(() -> ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC_STRICT, List.of(tree),
                Set.of("own_tree"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("own_tree cannot be strict").hasMessageContaining("recursive");
    }

    @Test
    @SuppressWarnings("unchecked")
    void anUnsupportedFormatAndALookaroundPatternAreDroppedIntoTheDescription() {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("when", Map.of("type", "string", "format", "date-time"));
        props.put("mail", Map.of("type", "string", "format", "idn-email"));
        props.put("word", Map.of("type", "string", "pattern", "^(?!tmp)[a-z]+$"));
        props.put("code", Map.of("type", "string", "pattern", "^[A-Z]{3}$"));
        ToolSpec own = new ToolSpec("own_tool", "d", true, Set.of(), Map.of("type", "object", "properties", props));
        Map<String, Object> strict = parameters(ToolFormat.ANTHROPIC_STRICT,
                ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC_STRICT, List.of(own)).get(0));
        Map<String, Object> out = (Map<String, Object>) strict.get("properties");
        assertThat((Map<String, Object>) out.get("when")).containsEntry("format", "date-time");
        assertThat((Map<String, Object>) out.get("mail")).doesNotContainKey("format")
                .containsEntry("description", "Limits: format idn-email.");
        assertThat((Map<String, Object>) out.get("word")).doesNotContainKey("pattern");
        assertThat((Map<String, Object>) out.get("code")).containsEntry("pattern", "^[A-Z]{3}$");
        assertThat(StrictRules.anthropic(strict)).isEmpty();
    }

    @Test
    void theAnthropicRequestRulesFlagTooManyToolsOptionalParametersAndUnions() {
        List<Map<String, Object>> request = new ArrayList<>();
        for (int i = 0; i < 21; i++) {
            Map<String, Object> props = new LinkedHashMap<>();
            props.put("a", Map.of("type", "string"));
            props.put("b", Map.of("type", List.of("string", "integer")));
            props.put("c", Map.of("type", "boolean"));
            request.add(Map.of("name", "t" + i, "description", "d", "strict", true, "input_schema", Map.of("type",
                    "object", "properties", props, "required", List.of("b"), "additionalProperties", false)));
        }
        assertThat(StrictRules.anthropicRequest(request)).containsExactly("21 strict tools, more than 20",
                "42 optional parameters across the strict tools, more than 24",
                "21 union-typed parameters across the strict tools, more than 16");
    }

    @Test
    void theAnthropicRulesFlagARecursiveRefAnUnknownFormatALookaroundAndAnObjectEnum() {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("self", Map.of("$ref", "#/$defs/n"));
        props.put("f", Map.of("type", "string", "format", "idn-email"));
        props.put("p", Map.of("type", "string", "pattern", "(a)\\1"));
        props.put("e", Map.of("type", "object", "enum", List.of(Map.of()), "additionalProperties", false));
        Map<String, Object> schema = Map.of("type", "object", "properties", props, "additionalProperties", false,
                "$defs", Map.of("n", Map.of("type", "object", "properties", Map.of("next", Map.of("$ref", "#/$defs/n")),
                        "additionalProperties", false)));
        assertThat(StrictRules.anthropic(schema)).contains("#/$defs/n: recursive schemas are not supported",
                "$.f: format idn-email is not supported", "$.p: a pattern with lookaround or backreferences is not supported",
                "$.e: enum and const take only strings, numbers, booleans and null");
    }

    private static List<String> strictNames(List<Map<String, Object>> request) {
        return request.stream().filter(d -> Boolean.TRUE.equals(d.get("strict"))).map(d -> (String) d.get("name"))
                .toList();
    }

    @Test
    void theNonStrictExportsDoNotPassTheStrictRulesSoTheCheckersReallyCheck() {
        List<Map<String, Object>> openAi = ToolCatalog.toolDefinitions(ToolFormat.OPENAI, llmFacing());
        List<Map<String, Object>> anthropic = ToolCatalog.toolDefinitions(ToolFormat.ANTHROPIC, llmFacing());
        long openAiPassing = openAi.stream().filter(d -> StrictRules.openAi(parameters(ToolFormat.OPENAI, d)).isEmpty())
                .count();
        long anthropicPassing = anthropic.stream()
                .filter(d -> StrictRules.anthropic(parameters(ToolFormat.ANTHROPIC, d)).isEmpty()).count();
        System.out.printf(Locale.ROOT, "strict rules on the non-strict exports of %d tools: OpenAI %d pass, Anthropic %d"
                + " pass%n", llmFacing().size(), openAiPassing, anthropicPassing);
        // the tools with optional parameters fail OpenAI's rule, the ones with bounds fail Anthropic's
        assertThat(openAiPassing).isLessThan(llmFacing().size());
        assertThat(anthropicPassing).isLessThan(llmFacing().size());
    }

    @Test
    void theOpenAiRulesFlagAnOpenObjectAnOptionalPropertyAMapAndAnUnknownKeyword() {
        Map<String, Object> map = Map.of("type", "object", "description", "m", "additionalProperties",
                Map.of("type", "string"));
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", Map.of("a", Map.of("type", "string", "minLength", 1), "m", map));
        schema.put("required", List.of("m"));
        assertThat(StrictRules.openAi(schema)).contains("$: an object must have additionalProperties false",
                "$.a: every property must be required (optional as a null union)",
                "$.a: keyword 'minLength' is not supported", "$.m: an object must have additionalProperties false");
    }

    @Test
    void theAnthropicRulesFlagBoundsMaxItemsAndALargeMinItems() {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", Map.of("n", Map.of("type", "integer", "minimum", 1),
                "xs", Map.of("type", "array", "items", Map.of("type", "string"), "minItems", 2, "maxItems", 5)));
        schema.put("additionalProperties", false);
        assertThat(StrictRules.anthropic(schema)).contains("$.n: keyword 'minimum' is not supported",
                "$.xs: keyword 'maxItems' is not supported", "$.xs: minItems above 1 is not supported");
    }

    @Test
    @SuppressWarnings("unchecked")
    void inTheOpenAiStrictExportAnOptionalParameterIsANullUnionAndAnOptionalEnumListsNull() {
        Map<String, Object> tail = parameters(ToolFormat.OPENAI_STRICT, ToolCatalog.toolDefinitions(
                ToolFormat.OPENAI_STRICT, List.of(ToolCatalog.wrapper("exec_tail").orElseThrow())).get(0));
        Map<String, Object> props = (Map<String, Object>) tail.get("properties");
        assertThat(tail.get("required")).isEqualTo(List.of("id", "n", "stream"));
        assertThat(((Map<String, Object>) props.get("id")).get("type")).isEqualTo("string");
        assertThat(((Map<String, Object>) props.get("n")).get("type")).isEqualTo(List.of("integer", "null"));
        assertThat((List<Object>) ((Map<String, Object>) props.get("stream")).get("enum"))
                .containsExactly("stdout", "stderr", null);
    }

    @ParameterizedTest
    @EnumSource(value = ToolFormat.class, names = {"OPENAI_STRICT", "ANTHROPIC_STRICT"})
    @SuppressWarnings("unchecked")
    void inTheStrictExportsExecRunsEnvIsAListOfNameValueEntries(ToolFormat format) {
        Map<String, Object> run = parameters(format, ToolCatalog.toolDefinitions(format,
                List.of(ToolCatalog.wrapper("exec_run").orElseThrow())).get(0));
        Map<String, Object> env = (Map<String, Object>) ((Map<String, Object>) run.get("properties")).get("env");
        assertThat(env.get("type")).isIn("array", List.of("array", "null"));
        Map<String, Object> entry = (Map<String, Object>) env.get("items");
        assertThat(((Map<String, Object>) entry.get("properties")).keySet()).containsExactly("name", "value");
        assertThat(entry.get("required")).isEqualTo(List.of("name", "value"));
        assertThat(entry.get("additionalProperties")).isEqualTo(false);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theAnthropicStrictExportWritesADroppedBoundIntoTheDescription() {
        Map<String, Object> tail = parameters(ToolFormat.ANTHROPIC_STRICT, ToolCatalog.toolDefinitions(
                ToolFormat.ANTHROPIC_STRICT, List.of(ToolCatalog.wrapper("exec_tail").orElseThrow())).get(0));
        Map<String, Object> n = (Map<String, Object>) ((Map<String, Object>) tail.get("properties")).get("n");
        assertThat(n).doesNotContainKeys("minimum", "maximum");
        assertThat((String) n.get("description")).endsWith("Limits: minimum 1, maximum 500.");
        assertThat(tail.get("required")).isEqualTo(List.of("id"));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aKeywordOpenAiStrictModeDoesNotSupportIsDroppedAndWrittenIntoTheDescription() {
        Map<String, Object> name = new LinkedHashMap<>();
        name.put("type", "string");
        name.put("description", "A name.");
        name.put("minLength", 2);
        name.put("default", "x");
        ToolSpec own = new ToolSpec("own_tool", "d", true, Set.of(), Map.of("type", "object", "properties",
                Map.of("name", name)));
        Map<String, Object> strict = parameters(ToolFormat.OPENAI_STRICT,
                ToolCatalog.toolDefinitions(ToolFormat.OPENAI_STRICT, List.of(own)).get(0));
        Map<String, Object> p = (Map<String, Object>) ((Map<String, Object>) strict.get("properties")).get("name");
        assertThat(p).doesNotContainKeys("minLength", "default").containsEntry("type", List.of("string", "null"));
        assertThat((String) p.get("description")).isEqualTo("A name. Limits: minLength 2, default x.");
        assertThat(StrictRules.openAi(strict)).isEmpty();
    }

    @Test
    void anIntegratorsOpenSchemaIsClosedInBothStrictForms() {
        ToolSpec own = new ToolSpec("own_tool", "d", true, Set.of(), Map.of("type", "object"));
        for (ToolFormat f : List.of(ToolFormat.OPENAI_STRICT, ToolFormat.ANTHROPIC_STRICT)) {
            Map<String, Object> strict = parameters(f, ToolCatalog.toolDefinitions(f, List.of(own)).get(0));
            assertThat(strict).containsEntry("additionalProperties", false).containsEntry("properties", Map.of());
        }
    }

    @Test
    void theAnthropicStrictExportKeepsAMinItemsOfOne() {
        Map<String, Object> read = parameters(ToolFormat.ANTHROPIC_STRICT, ToolCatalog.toolDefinitions(
                ToolFormat.ANTHROPIC_STRICT, List.of(ToolCatalog.wrapper("file_read").orElseThrow())).get(0));
        assertThat(read.toString()).contains("minItems=1");
    }

    @Test
    void everyToolHasAnOutputSchemaDescribingItsFields() {
        for (ToolSpec s : allTools()) {
            assertThat(s.outputSchema()).as(s.name()).containsEntry("type", "object");
            assertThat(s.outputSchema().containsKey("properties") || s.outputSchema().containsKey("anyOf"))
                    .as(s.name() + " declares its fields").isTrue();
        }
    }

    @Test
    void theHintsOfTheToolsSayWhatTheyDo() {
        assertThat(ToolCatalog.wrapper("file_read").orElseThrow().annotations().readOnlyHint()).isTrue();
        assertThat(ToolCatalog.wrapper("file_mkdir").orElseThrow().annotations().destructiveHint()).isFalse();
        assertThat(ToolCatalog.wrapper("file_delete").orElseThrow().annotations().destructiveHint()).isTrue();
        assertThat(ToolCatalog.wrapper("file_delete").orElseThrow().annotations().idempotentHint()).isTrue();
        assertThat(ToolCatalog.wrapper("file_edit").orElseThrow().annotations().idempotentHint()).isFalse();
        assertThat(ToolCatalog.wrapper("exec_run").orElseThrow().annotations().openWorldHint()).isTrue();
        assertThat(ToolCatalog.wrapper("exec_kill").orElseThrow().annotations().openWorldHint()).isFalse();
        assertThat(FileTransferTools.UPLOAD_SPEC.annotations().openWorldHint()).isFalse();
    }

    @Test
    void everyToolBesidesExecRunIsClosedWorld() {
        assertThat(allTools()).filteredOn(s -> !s.labels().contains(ToolLabel.CLOSED_WORLD)).extracting(ToolSpec::name)
                .containsExactlyInAnyOrder("exec_run", "client_exec_run", "work_exec_run");
    }

    @Test
    void backendsShareTheLabelsAndOutputSchemaOfTheirWrapperAndNameTheirSideInTheTitle() {
        for (ToolSpec w : ToolCatalog.wrappers()) {
            ToolSpec client = ToolCatalog.backend("client_" + w.name()).orElseThrow();
            ToolSpec work = ToolCatalog.backend("work_" + w.name()).orElseThrow();
            assertThat(client.labels()).isEqualTo(w.labels());
            assertThat(work.outputSchema()).isEqualTo(w.outputSchema());
            assertThat(client.title()).isEqualTo(w.title() + " (client)");
            assertThat(work.title()).isEqualTo(w.title() + " (workspace)");
        }
    }

    @ParameterizedTest
    @EnumSource(ToolFormat.class)
    void theExportMatchesItsGoldenFile(ToolFormat format) throws IOException {
        Path golden = Path.of("src/test/resources/golden/" + format.name().toLowerCase(Locale.ROOT).replace('_', '-')
                + ".json");
        String actual = ToolCatalog.manifestJson(format);
        if (Boolean.getBoolean("worktarget.updateGolden")) {
            Files.createDirectories(golden.getParent());
            Files.writeString(golden, actual, StandardCharsets.UTF_8);
        }
        assertThat(golden).as("golden " + format + " export; after a deliberate change run mvn -pl worktarget-core -am "
                + "test -Dtest=ToolExportsTest -Dworktarget.updateGolden=true").exists();
        assertThat(actual).as("the " + format + " export changed; if deliberate, regenerate the golden files with "
                + "-Dworktarget.updateGolden=true and review the diff").isEqualTo(Files.readString(golden));
    }
}
