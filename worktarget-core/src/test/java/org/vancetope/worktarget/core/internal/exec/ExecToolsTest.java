package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.home.ExecEnvPolicy;
import org.vancetope.worktarget.core.internal.home.Homes;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

class ExecToolsTest {
    static final ToolContext CTX = new ToolContext("p1", "s1", "acme", "shop", "alice");

    @TempDir
    Path base;
    final ExecEngine engine = ExecEngine.builder().build();

    @AfterEach
    void tearDown() {
        engine.close();
    }

    private List<BackendTool> work(Homes homes) throws Exception {
        Path root = Files.createDirectories(base.resolve("ws/root"));
        return ExecTools.create(engine, ToolCatalog.WORK_PREFIX,
                ExecResolvers.work((p, c) -> TestRoots.root(root), homes, ExecEnvPolicy.work(Map.of("PATH", "/usr/bin:/bin", "SECRET", "x"))));
    }

    @Test
    void unknownPrefixIsRefused() {
        assertThatThrownBy(() -> ExecTools.create(engine, "daemon_", (p, c) -> null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("work_");
    }

    @Test
    void workJobsGetTheScopedHomeAndKeepOutputsInTheRoot() throws Exception {
        Homes homes = Homes.builder().workspaceRoot(base.resolve("ws")).build();
        Map<String, Object> r = work(homes).get(0).invoke(Map.of("command", "echo $HOME; echo ${SECRET:-none}"), CTX);
        assertThat(r.get("stdout")).isEqualTo(base.resolve("homes/acme/shop") + "\nnone\n");
        assertThat((String) r.get("stdoutPath")).startsWith(".worktarget/exec/");
        assertThat(base.resolve("ws/root").resolve((String) r.get("stdoutPath"))).exists();
    }

    @Test
    void envExtrasMayOverrideHome() throws Exception {
        Homes homes = Homes.builder().workspaceRoot(base.resolve("ws")).build();
        Map<String, Object> r = work(homes).get(0)
                .invoke(Map.of("command", "echo $HOME", "env", Map.of("HOME", "/pinned")), CTX);
        assertThat(r.get("stdout")).isEqualTo("/pinned\n");
    }

    @Test
    void overBudgetHomeRefusesTheRunAndStartsNothing() throws Exception {
        BackendTool run = work(overBudgetHomes()).get(0);
        assertThatThrownBy(() -> run.invoke(Map.of("command", "touch made"), CTX))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED));
        assertThat(engine.jobCount(ExecResolver.defaultScope(CTX))).isZero();
    }

    @Test
    void overBudgetHomeStillRunsAJobThatOnlyLooksAtFilesAndRemovesThem() throws Exception {
        BackendTool run = work(overBudgetHomes()).get(0);

        Map<String, Object> r = run.invoke(Map.of("command", "du -s ~ && rm -f ~/cache"), CTX);

        assertThat(r).containsEntry("exitCode", 0);
        assertThat(base.resolve("homes/acme/shop/cache")).doesNotExist();
    }

    /** Homes with a budget of 5 bytes, and the caller's HOME holding 10. */
    private Homes overBudgetHomes() throws Exception {
        Homes homes = Homes.builder().workspaceRoot(base.resolve("ws")).maxBytes(5).build();
        Path home = Files.createDirectories(base.resolve("homes/acme/shop"));
        Files.writeString(home.resolve("cache"), "0123456789");
        return homes;
    }

    @Test
    void resolverFailureStartsNothing() {
        List<BackendTool> tools = ExecTools.create(engine, ToolCatalog.WORK_PREFIX, (p, c) -> {
            throw new ToolException(ErrorCode.PATH_ESCAPE, "dirName escapes");
        });
        assertThatThrownBy(() -> tools.get(0).invoke(Map.of("command", "true"), CTX))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PATH_ESCAPE));
        assertThat(engine.jobCount(ExecResolver.defaultScope(CTX))).isZero();
    }

    @Test
    void defaultScopeSeparatesSessionsAndFallsBackToTheProcess() {
        assertThat(ExecResolver.defaultScope(CTX)).isEqualTo("acme/shop/session:s1");
        assertThat(ExecResolver.defaultScope(new ToolContext("p9", null, "acme", "shop", null)))
                .isEqualTo("acme/shop/process:p9");
    }
}
