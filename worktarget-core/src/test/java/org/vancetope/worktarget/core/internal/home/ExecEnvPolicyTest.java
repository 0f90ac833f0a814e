package org.vancetope.worktarget.core.internal.home;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
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
        assertThat(env).containsOnlyKeys("PATH", "LANG", "LC_CTYPE", "TERM", "HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME");
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
        assertThat(env).containsOnlyKeys("AWS_SECRET_ACCESS_KEY", "PATH");
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
