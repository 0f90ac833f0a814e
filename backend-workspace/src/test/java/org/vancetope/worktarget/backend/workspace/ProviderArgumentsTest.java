package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.ToolFormat;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.FileTransferTools;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;
import org.vancetope.worktarget.testkit.FakePeers;

/**
 * Arguments as an LLM writes them for each export format (in OpenAI's strict form every parameter is
 * present, the unused ones null; in both strict forms {@code env} is a list of {name, value}) validate
 * against the exported schema (draft 2020-12) and run through the dispatcher on a WORK backend in a
 * temp directory, and the results validate against the tool's output schema. The transfer tools run
 * as far as a host without RootDirs or a client lets them: their arguments pass, the transfer fails as
 * a result.
 */
class ProviderArgumentsTest {
    @TempDir
    Path dir;
    private WorkspaceBackend work;
    private WorkTargetDispatcher dispatcher;

    @BeforeEach
    void setUp() {
        work = WorkspaceBackend.builder().workspaceRoot(dir).build();
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p").tenant("acme").project("proj").session("s1").user("me").add();
        store.putEngineParam("p", WorkTarget.ENGINE_PARAM_KEY, WorkTarget.WORK_TEMP.toMap());
        FileTransferTools transfer = new FileTransferTools(new RootDirTargetResolver((scope, name) -> java.util.Optional.empty()),
                ctx -> java.util.Optional.empty());
        WorkTargetDispatcher.Builder b = WorkTargetDispatcher.builder().processStore(store).peers(new FakePeers())
                .backend(work).hostTool(FileTransferTools.ephemeralDirTool(work.ephemeralDirs()));
        transfer.tools().forEach(b::hostTool);
        dispatcher = b.build();
    }

    @AfterEach
    void tearDown() {
        work.close();
    }

    /** One call: the tool and its arguments as an LLM fills them in, given the results so far. */
    private record Call(String tool, Function<List<Map<String, Object>>, Map<String, Object>> args) {
        static Call of(String tool, Map<String, Object> args) {
            return new Call(tool, results -> args);
        }
    }

    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    private static List<Call> session() {
        Function<List<Map<String, Object>>, Object> lastJob = rs -> rs.stream().filter(r -> r.containsKey("stdoutPath"))
                .reduce((a, b) -> b).orElseThrow().get("id");
        return List.of(
                Call.of("file_write", map("path", "notes/todo.md", "content", "# TODO\n- ship it\n")),
                Call.of("file_read", map("path", "notes/todo.md", "maxLines", 10)),
                Call.of("file_edit", map("path", "notes/todo.md", "oldText", "ship it", "newText", "ship it today")),
                Call.of("file_edit", map("path", "notes/todo.md", "edits", List.of(map("oldText", "today",
                        "newText", "now"), map("oldText", "# TODO", "newText", "# Plan", "replaceAll", true)))),
                Call.of("file_list", map("path", "notes", "exclude", List.of("*.log"))),
                Call.of("file_find", map("pathGlob", "**/*.md", "sortBy", "mtime", "limit", 50)),
                Call.of("file_grep", map("pattern", "todo", "caseInsensitive", true, "contextAfter", 1)),
                Call.of("file_head_tail", map("path", "notes/todo.md", "head", 1, "tail", 1)),
                Call.of("file_count", map("path", ".", "pattern", "ship")),
                Call.of("file_mkdir", map("path", "build/out")),
                Call.of("file_move", map("from", "notes/todo.md", "to", "build/out/todo.md", "overwrite", false)),
                Call.of("file_stat", map("path", "build/out/todo.md", "countLines", true)),
                Call.of("file_tree", map("maxDepth", 2, "sizes", true)),
                Call.of("file_delete", map("path", "build/out/todo.md")),
                Call.of("exec_run", map("command", "echo \"$GREETING\"", "env", map("GREETING", "hello"), "waitMs", 20000)),
                new Call("exec_status", rs -> map("id", lastJob.apply(rs))),
                new Call("exec_tail", rs -> map("id", lastJob.apply(rs), "n", 5, "stream", "stdout")),
                new Call("exec_kill", rs -> map("id", lastJob.apply(rs))),
                Call.of("work_target_get", map()),
                Call.of("work_target_set", map("kind", "WORK")),
                Call.of(FileTransferTools.CREATE_EPHEMERAL_DIR, map("purpose", "user-upload")));
    }

    private static ToolSpec spec(String tool) {
        return llmFacing().stream().filter(s -> s.name().equals(tool)).findFirst().orElseThrow();
    }

    /** The tools an LLM sees: the wrappers, the meta-tools and the transfer tools. */
    private static List<ToolSpec> llmFacing() {
        List<ToolSpec> all = new ArrayList<>(ToolCatalog.wrappers());
        all.addAll(ToolCatalog.metaTools());
        all.add(FileTransferTools.CREATE_EPHEMERAL_DIR_SPEC);
        all.add(FileTransferTools.UPLOAD_SPEC);
        all.add(FileTransferTools.DOWNLOAD_SPEC);
        all.add(FileTransferTools.DIR_UPLOAD_SPEC);
        all.add(FileTransferTools.DIR_DOWNLOAD_SPEC);
        return all;
    }

    /** The tool's schema exported on its own (in a strict format: always its strict form). */
    private static Map<String, Object> exported(ToolFormat format, ToolSpec spec) {
        return schemaOf(format, ToolCatalog.toolDefinitions(format, List.of(spec)).get(0));
    }

    /**
     * The tool's schema as one request with every LLM-facing tool carries it: in the Anthropic strict
     * export the tools past the request's limits are plain Anthropic tools.
     */
    private static Map<String, Object> exportedInOneRequest(ToolFormat format, ToolSpec spec) {
        return schemaOf(format, ToolCatalog.toolDefinitions(format, llmFacing()).stream()
                .filter(d -> spec.name().equals(d.get("name"))).findFirst().orElseThrow());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> schemaOf(ToolFormat format, Map<String, Object> d) {
        return (Map<String, Object>) d.get(switch (format) {
            case MCP -> "inputSchema";
            case OPENAI, OPENAI_STRICT -> "parameters";
            case ANTHROPIC, ANTHROPIC_STRICT -> "input_schema";
        });
    }

    /** The arguments in the form the format's schema asks for. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> asLlmWrites(ToolFormat format, Map<String, Object> schema, Map<String, Object> args) {
        Map<String, Object> out = new LinkedHashMap<>();
        boolean strict = format == ToolFormat.OPENAI_STRICT || format == ToolFormat.ANTHROPIC_STRICT;
        Map<String, Object> props = (Map<String, Object>) schema.get("properties");
        for (String p : props.keySet()) {
            if (args.containsKey(p)) {
                Object v = args.get(p);
                Object type = ((Map<String, Object>) props.get(p)).get("type");
                boolean listForm = "array".equals(type) || type instanceof List<?> l && l.contains("array");
                if (strict && listForm && v instanceof Map<?, ?> m) {
                    List<Object> entries = new ArrayList<>();
                    m.forEach((k, x) -> entries.add(map("name", k, "value", x)));
                    v = entries;
                }
                out.put(p, format == ToolFormat.OPENAI_STRICT ? withNulls((Map<String, Object>) props.get(p), v) : v);
            } else if (format == ToolFormat.OPENAI_STRICT) {
                out.put(p, null);
            }
        }
        assertThat(out.keySet()).containsAll(args.keySet());
        return out;
    }

    /** A nested value as OpenAI's strict mode writes it: every property of its objects present, unused ones null. */
    @SuppressWarnings("unchecked")
    private static Object withNulls(Map<String, Object> schema, Object value) {
        if (value instanceof List<?> list && schema.get("items") instanceof Map<?, ?> items) {
            return list.stream().map(x -> withNulls((Map<String, Object>) items, x)).toList();
        }
        if (value instanceof Map<?, ?> m && schema.get("properties") instanceof Map<?, ?> props) {
            Map<String, Object> out = new LinkedHashMap<>();
            ((Map<String, Object>) props).forEach((k, sub) -> out.put(k, m.containsKey(k)
                    ? withNulls((Map<String, Object>) sub, m.get(k)) : null));
            return out;
        }
        return value;
    }

    @ParameterizedTest
    @EnumSource(ToolFormat.class)
    void llmArgumentsForEveryToolValidateAgainstTheExportAndRunThroughTheDispatcher(ToolFormat format) throws Exception {
        runSession(format, false);
    }

    @ParameterizedTest
    @EnumSource(value = ToolFormat.class, names = {"OPENAI_STRICT", "ANTHROPIC_STRICT"})
    void llmArgumentsValidateAgainstTheWholeCatalogExportedInOneRequestAndRun(ToolFormat format) throws Exception {
        runSession(format, true);
    }

    private void runSession(ToolFormat format, boolean oneRequest) throws Exception {
        List<Map<String, Object>> results = new ArrayList<>();
        for (Call c : session()) {
            ToolSpec spec = spec(c.tool());
            Map<String, Object> schema = oneRequest ? exportedInOneRequest(format, spec) : exported(format, spec);
            Map<String, Object> args = asLlmWrites(format, schema, c.args().apply(results));
            assertThat(SchemaCheck.errors(schema, args)).as(format + " " + c.tool() + " " + args).isEmpty();
            Map<String, Object> result = dispatcher.invoke("p", c.tool(), args);
            assertThat(SchemaCheck.errors(spec.outputSchema(), result)).as(c.tool() + " -> " + result).isEmpty();
            results.add(result);
        }
        Map<String, Object> run = results.stream().filter(r -> r.containsKey("stdoutPath")).findFirst().orElseThrow();
        assertThat(run.get("stdout")).as("env reached the command").isEqualTo("hello\n");
    }

    @ParameterizedTest
    @EnumSource(ToolFormat.class)
    void transferArgumentsValidateAndRunUpToTheMissingRootDir(ToolFormat format) throws Exception {
        Map<String, Object> upload = map("localPath", "report.pdf", "dirName", "inbox", "remotePath", "r/report.pdf",
                "attrs", map("mode", "0644"));
        Map<String, Object> download = map("dirName", "inbox", "remotePath", "r/report.pdf", "localPath", "report.pdf");
        Map<String, Object> dirUpload = map("localPath", "site", "dirName", "inbox", "remotePath", ".",
                "overwrite", true);
        Map<String, Object> dirDownload = map("dirName", "inbox", "remotePath", "site", "localPath", "site");
        for (Map.Entry<String, Map<String, Object>> c : Map.of(FileTransferTools.UPLOAD, upload,
                FileTransferTools.DOWNLOAD, download, FileTransferTools.DIR_UPLOAD, dirUpload,
                FileTransferTools.DIR_DOWNLOAD, dirDownload).entrySet()) {
            Map<String, Object> schema = exported(format, spec(c.getKey()));
            Map<String, Object> args = asLlmWrites(format, schema, c.getValue());
            assertThat(SchemaCheck.errors(schema, args)).as(format + " " + c.getKey() + " " + args).isEmpty();
            // the parameters pass the guard; the transfer itself fails as a result: the RootDir does not exist
            Map<String, Object> result = dispatcher.invoke("p", c.getKey(), args);
            assertThat(result).containsEntry("ok", false);
            assertThat(SchemaCheck.errors(spec(c.getKey()).outputSchema(), result)).as(result.toString()).isEmpty();
        }
    }

    @Test
    void anOpenAiStrictCallThatLeavesOutAParameterFailsTheExportedSchema() {
        Map<String, Object> schema = exported(ToolFormat.OPENAI_STRICT, spec("file_read"));
        assertThat(SchemaCheck.errors(schema, map("path", "a.txt"))).isNotEmpty();
    }

    @Test
    void anEnvMapFailsTheStrictSchemaThatAsksForAList() {
        Map<String, Object> schema = exported(ToolFormat.ANTHROPIC_STRICT, spec("exec_run"));
        assertThat(SchemaCheck.errors(schema, map("command", "true", "env", map("A", "1")))).isNotEmpty();
    }

    @Test
    void anEnvListNamingAVariableTwiceIsRefusedSayingSo() {
        assertThatThrownBy(() -> dispatcher.invoke("p", "exec_run", map("command", "true", "env",
                List.of(map("name", "A", "value", "1"), map("name", "A", "value", "2")))))
                .isInstanceOf(ToolException.class).hasMessageContaining("names 'A' twice")
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.INVALID_PARAMS);
    }

    @Test
    void anEnvListEntryWithoutAStringValueIsRefusedNamingTheEntry() {
        assertThatThrownBy(() -> dispatcher.invoke("p", "exec_run", map("command", "true", "env",
                List.of(map("name", "A", "value", "1"), map("name", "B", "value", 2)))))
                .isInstanceOf(ToolException.class).hasMessageContaining("entry 1")
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.INVALID_PARAMS);
    }

    @Test
    void argumentsNestedDeeperThanAnyToolTakesAreRefusedNotAStackOverflow() {
        Object deep = "x";
        for (int i = 0; i < 5_000; i++) {
            deep = List.of(deep);
        }
        Object edits = deep;
        assertThatThrownBy(() -> dispatcher.invoke("p", "file_edit", map("path", "a.txt", "edits", edits)))
                .isInstanceOf(ToolException.class)
                .hasMessageContaining("Parameter 'edits' of file_edit nests objects and lists deeper than 64 levels")
                .satisfies(e -> assertThat(((ToolException) e).code()).isEqualTo(ErrorCode.INVALID_PARAMS));
        Map<String, Object> self = new java.util.HashMap<>();
        self.put("newText", "A");
        self.put("oldText", self);
        assertThatThrownBy(() -> dispatcher.invoke("p", "file_edit", map("path", "a.txt", "edits", List.of(self))))
                .isInstanceOf(ToolException.class).hasMessageContaining("deeper than 64 levels");
    }

    @Test
    void anEnvListEntryWithAnExtraFieldIsRefused() {
        assertThatThrownBy(() -> dispatcher.invoke("p", "exec_run", map("command", "true", "env",
                List.of(map("name", "A", "value", "1", "export", true)))))
                .isInstanceOf(ToolException.class).hasMessageContaining("only the fields name and value");
    }

    @Test
    void theDispatcherHandsTheListFormOfEnvToTheBackendAsTheMapEveryBackendReads() throws Exception {
        FakePeers peers = new FakePeers();
        ToolSpec run = ToolCatalog.backend("client_exec_run").orElseThrow();
        peers.client("acme", "s2", List.of(BackendTool.of(run, (params, ctx) -> map("seen", params.get("env")))));
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("c").tenant("acme").project("proj").session("s2").user("me").add();
        store.putEngineParam("c", WorkTarget.ENGINE_PARAM_KEY, WorkTarget.CLIENT.toMap());
        WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store).peers(peers).build();
        d.invoke("c", "exec_run", map("command", "env", "env", List.of(map("name", "CI", "value", "1"))));
        assertThat(peers.calls(new SessionKey("acme", "s2")).get(0).params().get("env")).isEqualTo(Map.of("CI", "1"));
    }
}
