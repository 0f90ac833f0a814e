package org.vancetope.worktarget.core.internal.home;

import static org.vancetope.worktarget.core.internal.exec.TestRoots.root;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.internal.exec.ExecEngine;
import org.vancetope.worktarget.core.internal.exec.ExecRequest;
import org.vancetope.worktarget.core.internal.exec.ExecResolver;
import org.vancetope.worktarget.core.internal.exec.ExecResolvers;
import org.vancetope.worktarget.core.internal.exec.ExecResult;
import org.vancetope.worktarget.core.internal.exec.ExecTarget;
import org.vancetope.worktarget.core.internal.exec.JobStatus;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.SettingsCascade;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/** The sealed environment and scoped HOME as a real job sees them. */
class SealedEnvExecTest {
    @TempDir
    Path base;
    final ExecEngine engine = ExecEngine.builder().build();

    @AfterEach
    void tearDown() {
        engine.close();
    }

    private Map<String, String> hostWithSecret() {
        Map<String, String> host = new HashMap<>(System.getenv());
        host.put("BRAIN_DB_PASSWORD", "hunter2");
        return host;
    }

    private String runEnv(Map<String, String> env, Path cwd) throws ToolException {
        ExecResult r = engine.run(new ExecRequest("s", "env", root(cwd), env, 30_000L, null, null));
        return r.stdout();
    }

    @Test
    void workJobSeesNoHostSecretAndItsScopedHome() throws Exception {
        Homes homes = Homes.builder().workspaceRoot(base.resolve("ws")).build();
        Files.createDirectories(base.resolve("ws"));
        Home home = homes.prepare("acme", "shop", "alice");
        String out = runEnv(ExecEnvPolicy.work(hostWithSecret()).environment(home.dir(), Map.of()), base.resolve("ws"));
        assertThat(out).doesNotContain("hunter2").doesNotContain("BRAIN_DB_PASSWORD")
                .contains("HOME=" + base.resolve("homes/acme/shop"));
        String hostHome = System.getenv("HOME");
        if (hostHome != null) {
            assertThat(out).doesNotContain("HOME=" + hostHome + "\n");
        }
    }

    @Test
    void gitThatWouldStartAnEditorKeepsItsMessageInsteadOfWaitingForATerminal() throws Exception {
        assumeTrue(onPath("git"), "git is not installed here");
        Homes homes = Homes.builder().homesRoot(base.resolve("homes")).build();
        Home home = homes.prepare("acme", "shop", null);
        Path repo = Files.createDirectories(base.resolve("repo"));
        String git = "git -c user.email=agent@example.org -c user.name=agent ";
        ExecResult r = engine.run(new ExecRequest("s", "git init -q . && " + git + "commit -q --allow-empty -m first && "
                + git + "commit -q --amend --allow-empty && git log --format=%s", root(repo),
                ExecEnvPolicy.work(System.getenv()).environment(home.dir(), Map.of()), 120_000L, null, null));
        assertThat(r.status()).as(r.stderr()).isEqualTo(JobStatus.EXITED);
        assertThat(r.stdout()).isEqualTo("first\n");
        assertThat(r.stdout() + r.stderr()).as("no editor drew on a terminal that is not there").doesNotContain("\u001b");
    }

    private static boolean onPath(String exe) {
        String path = System.getenv("PATH");
        return path != null && Arrays.stream(path.split(":")).anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, exe)));
    }

    @Test
    void callerExtrasOverrideTheScopedHome() throws Exception {
        Homes homes = Homes.builder().homesRoot(base.resolve("homes")).build();
        Home home = homes.prepare("acme", "shop", null);
        String out = runEnv(ExecEnvPolicy.work(hostWithSecret()).environment(home.dir(), Map.of("HOME", "/pinned")), base);
        assertThat(out).contains("HOME=/pinned\n");
    }

    @Test
    void jobInScopedHomeWritesItsCachesThere() throws Exception {
        Homes homes = Homes.builder().homesRoot(base.resolve("homes")).settings(SettingsCascade.EMPTY).build();
        Home home = homes.prepare("acme", "shop", null);
        engine.run(new ExecRequest("s", "mkdir -p \"$XDG_CACHE_HOME\" && echo x > \"$XDG_CACHE_HOME/c\" && echo y > ~/.rc",
                root(base), ExecEnvPolicy.work(System.getenv()).environment(home.dir(), Map.of()), 30_000L, null, null));
        assertThat(home.dir().resolve(".cache/c")).hasContent("x");
        assertThat(home.dir().resolve(".rc")).hasContent("y");
    }

    @Test
    void overBudgetHomeStopsTheJobBeforeItStarts() throws Exception {
        Homes homes = Homes.builder().homesRoot(base.resolve("homes")).maxBytes(10).build();
        Path dir = homes.resolve("acme", "shop", null).dir();
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("big"), "more than ten bytes");
        assertThatThrownBy(() -> homes.prepare("acme", "shop", null))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED));
        assertThat(engine.jobCount("s")).isZero();
    }

    @Test
    void overBudgetHomeStillRunsAJobThatCleansItUpThroughTheWorkResolver() throws Exception {
        Homes homes = Homes.builder().homesRoot(base.resolve("homes")).maxBytes(10).build();
        Path dir = homes.resolve("acme", "shop", null).dir();
        Files.createDirectories(dir.resolve(".cache"));
        Files.writeString(dir.resolve(".cache/big"), "more than ten bytes");
        ExecResolver resolver = ExecResolvers.work((params, c) -> root(base), homes,
                ExecEnvPolicy.work(System.getenv()));
        ToolContext ctx = new ToolContext("s", "p", "acme", "shop", null);

        assertThatThrownBy(() -> resolver.target(Map.of("command", "pip install x"), ctx))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.BUDGET_EXCEEDED));
        ExecTarget cleanUp = resolver.target(Map.of("command", "du -sh ~/.cache && rm -rf ~/.cache"), ctx);
        ExecResult r = engine.run(new ExecRequest("s", "du -sh ~/.cache && rm -rf ~/.cache", cleanUp.root(),
                cleanUp.env(), 30_000L, null, cleanUp.home(), null));

        assertThat(r.exitCode()).isZero();
        assertThat(dir.resolve(".cache")).doesNotExist();
    }
}
