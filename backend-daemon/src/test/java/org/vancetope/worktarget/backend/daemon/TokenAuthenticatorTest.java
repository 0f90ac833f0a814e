package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.spi.AuthPrincipal;

class TokenAuthenticatorTest {
    @TempDir
    Path dir;

    @Test
    void tokenFileMapsTokensToPrincipals() throws Exception {
        Path f = Files.writeString(dir.resolve("tokens.json"), "{\"tokens\":["
                + "{\"token\":\"daemon-secret-1\",\"subject\":\"box\",\"tenant\":\"acme\",\"projects\":[\"p1\",\"p2\"]},"
                + "{\"token\":\"foot-secret-22\",\"tenant\":\"acme\",\"projects\":[\"*\"],\"user\":\"alice\"}]}");
        TokenAuthenticator auth = TokenAuthenticator.fromJson(f);
        assertThat(auth.authenticate("daemon-secret-1")).contains(new AuthPrincipal("box", "acme", Set.of("p1", "p2"), null));
        AuthPrincipal alice = auth.authenticate("foot-secret-22").orElseThrow();
        assertThat(alice.user()).isEqualTo("alice");
        assertThat(alice.subject()).isEqualTo("acme");
        assertThat(alice.mayServe("acme", "anything")).isTrue();
    }

    @Test
    void unknownEmptyOrPrefixTokensAreRejected() {
        TokenAuthenticator auth = TokenAuthenticator.builder()
                .token("daemon-secret-1", new AuthPrincipal("box", "acme", Set.of("p"), null)).build();
        assertThat(auth.authenticate("daemon-secret-2")).isEmpty();
        assertThat(auth.authenticate("daemon-secret-")).isEmpty();
        assertThat(auth.authenticate("")).isEmpty();
        assertThat(auth.authenticate(null)).isEmpty();
    }

    @Test
    void fileWithoutTokensArrayIsRefusedNamingTheFile() throws Exception {
        Path f = Files.writeString(dir.resolve("bad.json"), "{\"users\":[]}");
        assertThatThrownBy(() -> TokenAuthenticator.fromJson(f)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad.json");
    }

    @Test
    void entryWithoutTenantIsRefusedNamingTheEntry() throws Exception {
        Path f = Files.writeString(dir.resolve("t.json"), "{\"tokens\":[{\"token\":\"long-enough-1\"}]}");
        assertThatThrownBy(() -> TokenAuthenticator.fromJson(f)).hasMessageContaining("tokens[0]")
                .hasMessageNotContaining("long-enough-1");
    }

    @Test
    void shortTokensAreRefused() {
        assertThatThrownBy(() -> TokenAuthenticator.builder().token("short", new AuthPrincipal("x", "t", Set.of(), null)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 8");
    }

    @Test
    void duplicateTokensAreRefused() {
        TokenAuthenticator.Builder b = TokenAuthenticator.builder()
                .token("same-token-1", new AuthPrincipal("a", "t", Set.of(), null));
        assertThatThrownBy(() -> b.token("same-token-1", new AuthPrincipal("b", "t", Set.of(), null)))
                .hasMessageContaining("twice");
    }
}
