package org.vancetope.worktarget.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.exec.ExecEngine;
import org.vancetope.worktarget.core.internal.exec.ExecResolvers;
import org.vancetope.worktarget.core.internal.exec.ExecTools;
import org.vancetope.worktarget.core.internal.home.ExecEnvPolicy;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.home.Homes;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolContext;

/** CLIENT and WORK exec tools answer the same call with the same shape and the same output. */
class ExecSymmetryTest {
    static final ToolContext CTX = new ToolContext("p1", "s1", "acme", "shop", "alice");
    static final String COMMAND = "i=0; while [ $i -lt 3000 ]; do echo \"row $i\"; i=$((i+1)); done; echo warn >&2; exit 4";

    @TempDir
    Path dir;
    final ExecEngine engine = ExecEngine.builder().build();

    @AfterEach
    void tearDown() {
        engine.close();
    }

    private static BackendTool tool(List<BackendTool> tools, String suffix) {
        return tools.stream().filter(t -> t.spec().name().endsWith(suffix)).findFirst().orElseThrow();
    }

    @Test
    void clientAndWorkToolsGiveTheSameResultShapeAndOutput() throws Exception {
        ConfinedRoot root = ConfinedRoot.of(dir);
        List<BackendTool> client = ExecTools.create(engine, ToolCatalog.CLIENT_PREFIX,
                ExecResolvers.client(ConfinedRoot.of(dir), ExecEnvPolicy.client(System.getenv())));
        List<BackendTool> work = ExecTools.create(engine, ToolCatalog.WORK_PREFIX,
                ExecResolvers.work((p, c) -> root, Homes.builder().homesRoot(dir.resolve(".homes")).build(),
                        ExecEnvPolicy.work(System.getenv())));
        assertThat(client).extracting(t -> t.spec().name())
                .containsExactly("client_exec_run", "client_exec_status", "client_exec_tail", "client_exec_kill");
        assertThat(work).extracting(t -> t.spec().name())
                .containsExactly("work_exec_run", "work_exec_status", "work_exec_tail", "work_exec_kill");

        Map<String, Object> c = tool(client, "exec_run").invoke(Map.of("command", COMMAND), CTX);
        Map<String, Object> w = tool(work, "exec_run").invoke(Map.of("command", COMMAND), CTX);
        assertThat(w.keySet()).containsExactlyElementsOf(c.keySet());
        for (String k : List.of("status", "exitCode", "stdout", "stderr", "truncated")) {
            assertThat(w.get(k)).as(k).isEqualTo(c.get(k));
        }
        Map<String, Object> ct = tool(client, "exec_tail").invoke(Map.of("id", c.get("id"), "n", 3), CTX);
        Map<String, Object> wt = tool(work, "exec_tail").invoke(Map.of("id", w.get("id"), "n", 3), CTX);
        assertThat(wt.keySet()).containsExactlyElementsOf(ct.keySet());
        assertThat(wt.get("lines")).isEqualTo(ct.get("lines"));
        Map<String, Object> ck = tool(client, "exec_kill").invoke(Map.of("id", c.get("id")), CTX);
        Map<String, Object> wk = tool(work, "exec_kill").invoke(Map.of("id", w.get("id")), CTX);
        assertThat(wk.keySet()).containsExactlyElementsOf(ck.keySet());
        assertThat(wk).containsEntry("id", w.get("id")).containsEntry("killed", false);
        assertThat((String) wk.get("hint")).isEqualTo(((String) ck.get("hint")).replace((String) c.get("id"),
                (String) w.get("id"))).startsWith("Job '" + w.get("id") + "' had already ended (");
    }
}
