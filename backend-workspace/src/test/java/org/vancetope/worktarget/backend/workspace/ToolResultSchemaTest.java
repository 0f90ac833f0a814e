package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.FileTransferTools;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;
import org.vancetope.worktarget.testkit.FakePeers;

/**
 * Every tool's real results, in each of their shapes, through the dispatcher on a WORK backend in a
 * temp directory on disk, validate against the tool's {@code outputSchema} (draft 2020-12) and declare
 * every field they carry.
 */
class ToolResultSchemaTest {
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
        dispatcher = WorkTargetDispatcher.builder().processStore(store).peers(new FakePeers()).backend(work)
                .hostTool(FileTransferTools.ephemeralDirTool(work.ephemeralDirs())).build();
    }

    @AfterEach
    void tearDown() {
        work.close();
    }

    private static ToolSpec spec(String tool) {
        return ToolCatalog.wrapper(tool).or(() -> ToolCatalog.metaTools().stream().filter(s -> s.name().equals(tool))
                .findFirst()).orElseGet(() -> FileTransferTools.CREATE_EPHEMERAL_DIR_SPEC);
    }

    /** Runs the tool and checks its result against the published schema and the closed one. */
    private Map<String, Object> check(String tool, Map<String, Object> params) throws ToolException {
        Map<String, Object> result = dispatcher.invoke("p", tool, params);
        Map<String, Object> schema = spec(tool).outputSchema();
        assertThat(SchemaCheck.errors(schema, result)).as(tool + " " + params + " -> " + result).isEmpty();
        assertThat(SchemaCheck.errors(SchemaCheck.closed(schema), result)).as("undeclared fields in " + tool + " -> "
                + result).isEmpty();
        return result;
    }

    private void write(String path, String content) throws ToolException {
        dispatcher.invoke("p", "file_write", Map.of("path", path, "content", content));
    }

    @Test
    void fileReadsTextBinaryAndMultiFileResultsMatchTheSchema() throws Exception {
        write("a.txt", "one\ntwo\nthree\n");
        check("file_read", Map.of("path", "a.txt", "maxLines", 1));
        check("file_read", Map.of("path", "a.txt"));
        Map<String, Object> w = dispatcher.invoke("p", "work_target_get", Map.of());
        assertThat(w).containsKey("current");
        Path temp = Files.list(dir).filter(Files::isDirectory).findFirst().orElseThrow();
        try (var s = Files.walk(temp)) {
            Path a = s.filter(x -> x.getFileName().toString().equals("a.txt")).findFirst().orElseThrow();
            Files.write(a.resolveSibling("img.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 0, 1, 2});
        }
        check("file_read", Map.of("path", "img.png", "allowBinary", true));
        check("file_read", Map.of("paths", List.of("a.txt", "missing.txt", "img.png"), "allowBinary", true));
    }

    @Test
    void fileWriteEditDeleteMoveAndMkdirResultsMatchTheSchema() throws Exception {
        check("file_write", Map.of("path", "src/A.java", "content", "class A {}\n"));
        check("file_edit", Map.of("path", "src/A.java", "oldText", "A", "newText", "B", "dryRun", true));
        check("file_edit", Map.of("path", "src/A.java", "edits", List.of(Map.of("oldText", "A", "newText", "C"))));
        check("file_mkdir", Map.of("path", "docs/api"));
        check("file_mkdir", Map.of("path", "docs/api"));
        check("file_move", Map.of("from", "src/A.java", "to", "docs/A.java"));
        check("file_delete", Map.of("path", "docs/A.java"));
        check("file_delete", Map.of("path", "docs/A.java"));
    }

    @Test
    void listingAndSearchResultsMatchTheSchemaInEachShape() throws Exception {
        write("src/Main.java", "class Main {\n  // TODO a\n  int x;\n}\n");
        write("README.md", "# Demo\nTODO: docs\n");
        check("file_list", Map.of());
        check("file_find", Map.of("pathGlob", "**/*.java"));
        check("file_grep", Map.of("pattern", "TODO", "contextBefore", 1, "contextAfter", 1));
        check("file_grep", Map.of("pattern", "TODO\\n", "multiline", true));
        check("file_grep", Map.of("pattern", "TODO", "countOnly", true));
        check("file_head_tail", Map.of("path", "README.md", "head", 1, "tail", 1));
        check("file_count", Map.of());
        check("file_count", Map.of("pattern", "TODO"));
        check("file_stat", Map.of("path", "README.md", "countLines", true));
        check("file_stat", Map.of("path", "src"));
        check("file_tree", Map.of("sizes", true));
        check("file_tree", Map.of());
    }

    @Test
    @org.junit.jupiter.api.condition.EnabledOnOs(org.junit.jupiter.api.condition.OS.LINUX)
    void aTreeWithAFifoAndASocketMatchesTheSchema() throws Exception {
        // a database's or dev server's socket, a named pipe: file_tree shows them as "special" (it once said
        // "other", which its schema did not allow, so an MCP client that checks results refused the call)
        write("a.txt", "x\n");
        Map<String, Object> made = check("exec_run", Map.of("command", "mkfifo pipe && pwd", "waitMs", 30_000));
        Path here = Path.of(made.get("stdout").toString().strip());
        try (java.nio.channels.ServerSocketChannel socket = java.nio.channels.ServerSocketChannel.open(
                java.net.StandardProtocolFamily.UNIX)) {
            socket.bind(java.net.UnixDomainSocketAddress.of(here.resolve("app.sock")));
            Map<String, Object> tree = check("file_tree", Map.of("sizes", true));
            assertThat(tree.get("entries").toString()).contains("{path=app.sock, type=special",
                    "{path=pipe, type=special");
            check("file_list", Map.of());
            check("file_find", Map.of());
        }
    }

    @Test
    void execResultsMatchTheSchemaRunningAndFinished() throws Exception {
        Map<String, Object> done = check("exec_run", Map.of("command", "echo hi; echo err >&2",
                "env", Map.of("GREETING", "hi")));
        assertThat(done.get("status")).isEqualTo("exited");
        check("exec_tail", Map.of("id", done.get("id"), "stream", "stderr"));
        Map<String, Object> running = check("exec_run", Map.of("command", "sleep 30", "waitMs", 0));
        assertThat(running.get("status")).isEqualTo("running");
        check("exec_status", Map.of("id", running.get("id")));
        check("exec_status", Map.of());
        check("exec_kill", Map.of("id", running.get("id")));
        check("exec_kill", Map.of("id", running.get("id")));
    }

    @Test
    void metaToolAndEphemeralDirResultsMatchTheSchema() throws Exception {
        check("work_target_get", Map.of());
        check("work_target_set", Map.of("kind", "WORK", "targetName", "src"));
        check("work_target_set", new LinkedHashMap<>(Map.of("kind", "WORK")));
        check(FileTransferTools.CREATE_EPHEMERAL_DIR, Map.of("purpose", "user-upload"));
    }

    @Test
    void aResultWithAnUndeclaredFieldFailsTheClosedSchemaSoTheCheckIsReal() {
        Map<String, Object> fake = new LinkedHashMap<>(Map.of("path", "a", "deleted", true, "surprise", 1));
        Map<String, Object> schema = spec("file_delete").outputSchema();
        assertThat(SchemaCheck.errors(schema, fake)).isEmpty();
        assertThat(SchemaCheck.errors(SchemaCheck.closed(schema), fake)).isNotEmpty();
    }

    @Test
    void aResultWithAWronglyTypedFieldFailsTheSchema() {
        Map<String, Object> fake = Map.of("path", "a", "deleted", "yes");
        assertThat(SchemaCheck.errors(spec("file_delete").outputSchema(), fake)).isNotEmpty();
    }
}
