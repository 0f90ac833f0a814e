package org.vancetope.worktarget.core.internal.home;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

class ExecEnvPolicyTest {
    static final Map<String, String> HOST = Map.of("PATH", "/host/bin", "LANG", "C.UTF-8", "LC_CTYPE", "de_DE",
            "HOME", "/root", "USER", "brain", "AWS_SECRET_ACCESS_KEY", "s3cr3t", "TERM", "xterm");
    static final Path HOME = Path.of("/homes/acme/shop");

    @Test
    void workEnvironmentHoldsOnlyTheAllowListAndTheScopedHome() throws ToolException {
        Map<String, String> env = ExecEnvPolicy.work(HOST).environment(HOME, Map.of());
        assertThat(env.keySet()).containsExactlyInAnyOrder(with(ExecEnvPolicy.NON_INTERACTIVE.keySet(), "PATH", "LANG",
                "LC_CTYPE", "TERM", "HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"));
        assertThat(env).containsEntry("HOME", "/homes/acme/shop")
                .containsEntry("XDG_CACHE_HOME", "/homes/acme/shop/.cache")
                .containsEntry("XDG_CONFIG_HOME", "/homes/acme/shop/.config");
    }

    @Test
    void hostSecretIsInvisible() throws ToolException {
        assertThat(ExecEnvPolicy.work(HOST).environment(HOME, Map.of())).doesNotContainKey("AWS_SECRET_ACCESS_KEY")
                .doesNotContainValue("s3cr3t").doesNotContainValue("/root");
    }

    @Test
    void extrasOverrideHomeAndPath() throws ToolException {
        Map<String, String> env = ExecEnvPolicy.work(HOST).environment(HOME, Map.of("HOME", "/pinned", "PATH", "/x", "CI", "1"));
        assertThat(env).containsEntry("HOME", "/pinned").containsEntry("PATH", "/x").containsEntry("CI", "1");
    }

    @Test
    void missingHostPathGetsADefault() throws ToolException {
        assertThat(ExecEnvPolicy.work(Map.of()).environment(HOME, Map.of())).containsEntry("PATH", ExecEnvPolicy.DEFAULT_PATH);
    }

    @Test
    void clientKeepsTheUsersHome() throws ToolException {
        Map<String, String> env = ExecEnvPolicy.client(HOST).environment(HOME, Map.of());
        assertThat(env).containsEntry("HOME", "/root").containsEntry("USER", "brain")
                .doesNotContainKey("XDG_CACHE_HOME").doesNotContainKey("AWS_SECRET_ACCESS_KEY");
        assertThat(ExecEnvPolicy.client(HOST).keepsHostHome()).isTrue();
    }

    @Test
    void ownAllowListWithPrefix() throws ToolException {
        Map<String, String> env = ExecEnvPolicy.of(HOST, Set.of("AWS_*"), false).environment(null, Map.of());
        assertThat(env.keySet()).containsExactlyInAnyOrder(with(ExecEnvPolicy.NON_INTERACTIVE.keySet(),
                "AWS_SECRET_ACCESS_KEY", "PATH"));
    }

    private static String[] with(Set<String> more, String... names) {
        Set<String> all = new TreeSet<>(more);
        all.addAll(List.of(names));
        return all.toArray(String[]::new);
    }

    @Test
    void everyJobIsToldThatNoOneAnswersItsEditorOrPrompts() throws ToolException {
        for (Map<String, String> env : List.of(ExecEnvPolicy.work(HOST).environment(HOME, Map.of()),
                ExecEnvPolicy.client(HOST).environment(HOME, Map.of()))) {
            assertThat(env).containsEntry("GIT_EDITOR", "true").containsEntry("EDITOR", "true")
                    .containsEntry("VISUAL", "true").containsEntry("GIT_PAGER", "cat").containsEntry("PAGER", "cat")
                    .containsEntry("GIT_TERMINAL_PROMPT", "0").containsEntry("DEBIAN_FRONTEND", "noninteractive")
                    .containsEntry("PYTHONUNBUFFERED", "1");
        }
    }

    @Test
    void anEditorTheHostAllowsOrTheCallerSetsWins() throws ToolException {
        Map<String, String> host = Map.of("EDITOR", "ed", "PATH", "/bin");
        assertThat(ExecEnvPolicy.of(host, Set.of("EDITOR"), false).environment(null, Map.of()))
                .containsEntry("EDITOR", "ed").containsEntry("GIT_EDITOR", "true");
        assertThat(ExecEnvPolicy.work(host).environment(HOME, Map.of("GIT_EDITOR", "nano")))
                .containsEntry("GIT_EDITOR", "nano").containsEntry("EDITOR", "true");
    }

    @Test
    void extraWithAnEqualsSignInItsNameIsRefused() {
        assertThatThrownBy(() -> ExecEnvPolicy.work(HOST).environment(HOME, Map.of("A=B", "x")))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS));
    }

    @Test
    void extraWithNulInItsValueIsRefused() {
        assertThatThrownBy(() -> ExecEnvPolicy.work(HOST).environment(HOME, Map.of("A", "x\0y")))
                .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_PARAMS));
    }
}
