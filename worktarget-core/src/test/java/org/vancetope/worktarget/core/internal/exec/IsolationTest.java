package org.vancetope.worktarget.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.core.ExecSettings.IsolationMode;
import org.vancetope.worktarget.core.internal.home.ExecEnvPolicy;

class IsolationTest {
    static final Path WD = Path.of("/ws/acme/shop/root");
    static final String NASTY = "echo \"$HOME\" '{workdir}' $(id) ; rm -rf / # {cmd}";

    @Test
    void noneRunsTheShellDirectly() {
        assertThat(Isolation.none().argv("/bin/sh", "ls -l", WD, null, Map.of())).containsExactly("/bin/sh", "-c", "ls -l");
        assertThat(Isolation.none().active()).isFalse();
    }

    @Test
    void commandBecomesExactlyOneArgvElementWithoutReinterpretation() {
        Isolation iso = Isolation.custom("wrap --bind {workdir} {workdir} /bin/sh -c {cmd}");
        assertThat(iso.argv("/bin/sh", NASTY, WD, null, Map.of()))
                .containsExactly("wrap", "--bind", WD.toString(), WD.toString(), "/bin/sh", "-c", NASTY);
    }

    @Test
    void workdirWithBlanksStaysOneElement() {
        Path wd = Path.of("/ws/my dir");
        assertThat(Isolation.custom("wrap --chdir={workdir} {cmd}").argv("/bin/sh", "x", wd, null, Map.of()))
                .containsExactly("wrap", "--chdir=/ws/my dir", "x");
    }

    @Test
    void quotesGroupTokensLiterally() {
        assertThat(Isolation.tokenize("a 'b c' \"d $X\" e")).containsExactly("a", "b c", "d $X", "e");
    }

    @Test
    void envPlaceholderExpandsToSetenvTriples() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", "/h");
        env.put("PATH", "/usr/bin");
        assertThat(Isolation.custom("wrap --clearenv {env} {cmd}").argv("/bin/sh", "x", WD, null, env))
                .containsExactly("wrap", "--clearenv", "--setenv", "HOME", "/h", "--setenv", "PATH", "/usr/bin", "x");
    }

    @Test
    void homePlaceholderIsTheHomeOrElseTheWorkdir() {
        Isolation iso = Isolation.custom("wrap --bind {home} {home} {cmd}");
        assertThat(iso.argv("/bin/sh", "x", WD, Path.of("/homes/acme/shop"), Map.of()))
                .containsExactly("wrap", "--bind", "/homes/acme/shop", "/homes/acme/shop", "x");
        assertThat(iso.argv("/bin/sh", "x", WD, null, Map.of())).contains(WD.toString());
    }

    @Test
    void templateWithoutCmdFailsNamingThePlaceholder() {
        assertThatThrownBy(() -> Isolation.custom("bwrap --unshare-net /bin/sh -c"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("{cmd}");
    }

    @Test
    void cmdInsideAnotherArgumentFails() {
        assertThatThrownBy(() -> Isolation.custom("wrap --run={cmd}")).hasMessageContaining("whole argument");
    }

    @Test
    void cmdTwiceFails() {
        assertThatThrownBy(() -> Isolation.custom("wrap {cmd} {cmd}")).hasMessageContaining("exactly once");
    }

    @Test
    void unknownPlaceholderFails() {
        assertThatThrownBy(() -> Isolation.custom("wrap --bind {wrokdir} {cmd}")).hasMessageContaining("unknown placeholder");
    }

    @Test
    void unterminatedQuoteFails() {
        assertThatThrownBy(() -> Isolation.custom("wrap 'oops {cmd}")).hasMessageContaining("unterminated");
    }

    @Test
    void blankTemplateFails() {
        assertThatThrownBy(() -> Isolation.custom("  ")).hasMessageContaining("{cmd}");
    }

    @Test
    void templateStartingWithAPlaceholderFails() {
        assertThatThrownBy(() -> Isolation.custom("{cmd}")).hasMessageContaining("wrapper program");
    }

    @Test
    void configNoneOrBlankIsNone() {
        assertThat(Isolation.fromConfig(IsolationMode.NONE, null, k -> null).active()).isFalse();
        assertThat(Isolation.fromConfig(null, null, k -> null).active()).isFalse();
    }

    @Test
    void unknownModeFromTheEnvironmentFailsNamingItsOrigin() {
        assertThatThrownBy(() -> Isolation.fromConfig(IsolationMode.NONE, null, k -> k.equals(Isolation.MODE_ENV) ? "strict" : null))
                .hasMessageContaining(Isolation.MODE_ENV);
    }

    @Test
    void environmentVariableOverridesTheConfiguredMode() {
        Isolation on = Isolation.fromConfig(IsolationMode.NONE, "sh {cmd}",
                k -> k.equals(Isolation.MODE_ENV) ? "custom" : k.equals("PATH") ? "/usr/bin:/bin" : null);
        assertThat(on.active()).isTrue();
        Isolation off = Isolation.fromConfig(IsolationMode.CUSTOM, "sh {cmd}", k -> k.equals(Isolation.MODE_ENV) ? "NONE" : null);
        assertThat(off.active()).isFalse();
    }

    @Test
    void customModeWithAnInvalidTemplateFailsInsteadOfFallingBack() {
        assertThatThrownBy(() -> Isolation.fromConfig(IsolationMode.CUSTOM, "bwrap --unshare-net", k -> null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void withoutAHostPathTheWrapperIsLookedUpOnTheDefaultPathTheJobsGet(@TempDir Path tmp) {
        Isolation iso = Isolation.fromConfig(IsolationMode.CUSTOM, "env {cmd}", k -> null);

        Path wrapper = Path.of(iso.argv("/bin/sh", "true", tmp, tmp, Map.of()).get(0));
        assertThat(wrapper.getFileName()).hasToString("env");
        assertThat(List.of(ExecEnvPolicy.DEFAULT_PATH.split(":"))).contains(wrapper.getParent().toString());
        assertThatThrownBy(() -> Isolation.fromConfig(IsolationMode.CUSTOM, "no-such-wrapper-xyz {cmd}", k -> null))
                .hasMessageContaining("not on the PATH");
    }

    @Test
    void wrapperProgramMissingFromThePathFailsAtBuild() {
        assertThatThrownBy(() -> Isolation.fromConfig(IsolationMode.CUSTOM, "no-such-wrapper-xyz {cmd}", k -> k.equals("PATH") ? "/usr/bin" : null))
                .hasMessageContaining("not on the PATH");
        assertThatThrownBy(() -> Isolation.fromConfig(IsolationMode.CUSTOM, "/no/such/wrap {cmd}", k -> null))
                .hasMessageContaining("does not exist");
    }

    @Test
    void wrapperProgramIsResolvedToAnAbsolutePath() {
        Isolation iso = Isolation.fromConfig(IsolationMode.CUSTOM, "sh {cmd}", k -> k.equals("PATH") ? "/nonexistent:/bin" : null);
        assertThat(iso.argv("/bin/sh", "x", WD, null, Map.of())).containsExactly("/bin/sh", "x");
    }

    @Test
    void defaultBubblewrapTemplateHasTheSpecsProtections() {
        String t = Isolation.defaultBubblewrapTemplate(p -> true);
        assertThat(t).startsWith("bwrap ").contains("--ro-bind /usr /usr", "--ro-bind /bin /bin", "--ro-bind /lib /lib",
                "--ro-bind /lib64 /lib64", "--ro-bind /etc/ssl /etc/ssl", "--bind {workdir} {workdir}", "--chdir {workdir}",
                "--unshare-net", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
                "--cap-drop ALL", "--proc /proc --ro-bind /proc/sys /proc/sys", "--ro-bind /dev/null /proc/sysrq-trigger")
                .doesNotContain("{env}")
                .endsWith("/bin/sh -c {cmd}");
        Isolation.custom(t);
    }

    @Test
    void theDefaultTemplatePutsNoValueOfTheEnvironmentOnTheCommandLine() {
        Map<String, String> env = Map.of("HOME", "/h", "GITHUB_TOKEN", "ghp_secret", "PATH", "/usr/bin");
        List<String> argv = Isolation.custom(Isolation.defaultBubblewrapTemplate(p -> true)).argv("/bin/sh", "x", WD, null,
                env);
        assertThat(argv).doesNotContain("ghp_secret", "GITHUB_TOKEN", "--setenv", "--clearenv");
    }

    @Test
    void theDefaultTemplateMasksTheSysrqTriggerOnlyWhereTheKernelHasOne() {
        assertThat(Isolation.defaultBubblewrapTemplate(p -> !p.equals("/proc/sysrq-trigger"))).doesNotContain("sysrq")
                .contains("--ro-bind /proc/sys /proc/sys");
    }

    @Test
    void aBubblewrapTemplateWithoutCapDropOrAUserNamespaceKeepsRootsCapabilities() {
        assertThat(Isolation.keepsCapabilitiesOfRoot(Isolation.tokenize("bwrap --unshare-pid /bin/sh -c {cmd}"))).isTrue();
        assertThat(Isolation.keepsCapabilitiesOfRoot(Isolation.tokenize("/usr/bin/bwrap --ro-bind / / sh {cmd}"))).isTrue();
        assertThat(Isolation.keepsCapabilitiesOfRoot(Isolation.tokenize(Isolation.defaultBubblewrapTemplate(p -> true))))
                .isFalse();
        assertThat(Isolation.keepsCapabilitiesOfRoot(Isolation.tokenize("bwrap --unshare-user --uid 1000 sh {cmd}")))
                .isFalse();
        assertThat(Isolation.keepsCapabilitiesOfRoot(Isolation.tokenize("firejail sh {cmd}"))).isFalse();
    }

    @Test
    void defaultTemplateLeavesOutOptionalDirectoriesThatDoNotExist() {
        String t = Isolation.defaultBubblewrapTemplate(p -> false);
        assertThat(t).doesNotContain("/lib64").doesNotContain("/etc/ssl").contains("--ro-bind /lib /lib");
        assertThat(Isolation.tokenize(t)).doesNotContain("/etc/ssl");
    }

    @Test
    void engineReportsItsIsolation() {
        Isolation iso = Isolation.custom("wrap {cmd}");
        try (ExecEngine e = ExecEngine.builder().isolation(iso).build()) {
            assertThat(e.isolation()).isSameAs(iso);
        }
        assertThat(List.of(iso.toString(), Isolation.none().toString())).containsExactly("Isolation[custom: wrap {cmd}]",
                "Isolation[none]");
    }

    @Test
    void cwdIsRefusedWhereTheWrapperDoesNotGiveTheCommandToAShell(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("sub"));
        Isolation direct = Isolation.fromConfig(IsolationMode.CUSTOM, "env {cmd}", k -> k.equals("PATH") ? "/usr/bin:/bin" : null);
        assertThat(direct.takesShellCommand()).isFalse();
        try (ExecEngine e = ExecEngine.builder().isolation(direct).build()) {
            assertThatThrownBy(() -> e.run(new ExecRequest("s", "true", TestRoots.root(dir), Map.of(), 30_000L, null, null,
                    null, "sub")))
                    .isInstanceOfSatisfying(ToolException.class, t -> assertThat(t.code()).isEqualTo(ErrorCode.INVALID_PARAMS))
                    .hasMessageContaining("cannot change into 'cwd'");
            if (Files.exists(dir.resolve(".worktarget"))) {
                try (java.util.stream.Stream<Path> files = Files.walk(dir.resolve(".worktarget"))) {
                    assertThat(files.filter(Files::isRegularFile)).as("no output files of the refused job").isEmpty();
                }
            }
            assertThat(e.list("s").jobs()).as("no job").isEmpty();
            assertThat(e.run(new ExecRequest("s", "true", TestRoots.root(dir), Map.of(), 30_000L, null, null, null, "."))
                    .exitCode()).as("the work directory itself needs no change").isZero();
        }
    }
}
