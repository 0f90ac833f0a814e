package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.io.IOException;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.core.InMemoryProcessStore;

/**
 * The same sequence of wrapper calls through the dispatcher gives equal results on CLIENT
 * ({@link LocalBackend}) and WORK ({@link WorkspaceBackend}), failures included.
 */
class ClientWorkSymmetryTest {
    private FileSystem fs;
    private WorkTargetDispatcher dispatcher;

    @BeforeEach
    void setUp() {
        fs = Jimfs.newFileSystem(Configuration.unix());
        LocalBackend local = LocalBackend.builder().workDirectory(fs.getPath("/home/me/project")).build();
        WorkspaceBackend work = WorkspaceBackend.builder().workspaceRoot(fs.getPath("/srv/ws")).build();
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("client").tenant("acme").project("proj").session("s1").user("me").add();
        store.process("work").tenant("acme").project("proj").session("s1").user("me").add();
        store.putEngineParam("client", WorkTarget.ENGINE_PARAM_KEY, WorkTarget.CLIENT.toMap());
        store.putEngineParam("work", WorkTarget.ENGINE_PARAM_KEY, WorkTarget.WORK_TEMP.toMap());
        dispatcher = WorkTargetDispatcher.builder().processStore(store).peers(local).backend(work).build();
    }

    @AfterEach
    void tearDown() throws IOException {
        fs.close();
    }

    private List<Object> script(String process) {
        List<Object[]> calls = List.of(
                new Object[] {"file_write", Map.of("path", "src/Main.java", "content", "class Main {\n  // TODO a\n}\n")},
                new Object[] {"file_write", Map.of("path", "src/util/U.java", "content", "class U { int x; }\n")},
                new Object[] {"file_write", Map.of("path", "README.md", "content", "# Demo\nTODO: docs\n")},
                new Object[] {"file_write", Map.of("path", "target/gen.txt", "content", "TODO generated\n")},
                new Object[] {"file_read", Map.of("path", "src/Main.java", "startLine", 2)},
                new Object[] {"file_edit", Map.of("path", "src/Main.java", "oldText", "TODO a", "newText", "done")},
                new Object[] {"file_edit", Map.of("path", "src/Main.java", "oldText", "missing", "newText", "x")},
                new Object[] {"file_list", Map.of()},
                new Object[] {"file_list", Map.of("path", "src")},
                new Object[] {"file_find", Map.of("pathGlob", "**/*.java")},
                new Object[] {"file_find", Map.of("includeGenerated", true, "sortBy", "size")},
                new Object[] {"file_grep", Map.of("pattern", "TODO", "contextAfter", 1)},
                new Object[] {"file_grep", Map.of("pattern", "[")},
                new Object[] {"file_head_tail", Map.of("path", "README.md", "head", 1, "tail", 1)},
                new Object[] {"file_count", Map.of()},
                new Object[] {"file_count", Map.of("pattern", "class")},
                new Object[] {"file_mkdir", Map.of("path", "docs/api")},
                new Object[] {"file_mkdir", Map.of("path", "docs/api")},
                new Object[] {"file_move", Map.of("from", "src/util/U.java", "to", "src/V.java")},
                new Object[] {"file_move", Map.of("from", "src/V.java", "to", "src/Main.java")},
                new Object[] {"file_move", Map.of("from", "src", "to", "src/inner")},
                new Object[] {"file_stat", Map.of("path", "src/V.java", "countLines", true)},
                new Object[] {"file_tree", Map.of("sizes", true)},
                new Object[] {"file_read", Map.of("path", "../escape.txt")},
                new Object[] {"file_delete", Map.of("path", "README.md")},
                new Object[] {"file_delete", Map.of("path", "README.md")},
                new Object[] {"file_delete", Map.of("path", "src")});
        List<Object> out = new ArrayList<>();
        for (Object[] c : calls) {
            @SuppressWarnings("unchecked")
            Map<String, Object> params = (Map<String, Object>) c[1];
            try {
                out.add(withoutTimes(dispatcher.invoke(process, (String) c[0], params)));
            } catch (ToolException e) {
                out.add(e.code() + ": " + e.getMessage());
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Object withoutTimes(Object o) {
        if (o instanceof Map<?, ?> m) {
            Map<String, Object> copy = new LinkedHashMap<>();
            m.forEach((k, v) -> {
                if (!"modified".equals(k)) {
                    copy.put((String) k, withoutTimes(v));
                }
            });
            return copy;
        }
        if (o instanceof List<?> l) {
            return l.stream().map(ClientWorkSymmetryTest::withoutTimes).toList();
        }
        return o;
    }

    @Test
    void theSameCallsGiveEqualResultsOnClientAndWork() {
        List<Object> client = script("client");
        List<Object> work = script("work");
        assertThat(work).isEqualTo(client);
        assertThat(client.get(5).toString()).contains("+  // done");
        assertThat(client.get(6).toString()).startsWith("NOT_FOUND");
    }

    @Test
    void theTwoTargetsReallyWorkInDifferentDirectories() throws Exception {
        script("client");
        assertThat(Files.exists(fs.getPath("/home/me/project/src/Main.java"))).isTrue();
        try (var s = Files.walk(fs.getPath("/srv/ws"))) {
            assertThat(s.map(Path::toString).filter(p -> p.endsWith("Main.java")).toList()).isEmpty();
        }
    }
}
