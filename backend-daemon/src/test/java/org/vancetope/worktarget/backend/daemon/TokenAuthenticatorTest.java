package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
    void aTenantOrProjectNoConnectionCouldNameIsRefusedWhenTheTokenIsAdded() {
        for (AuthPrincipal p : List.of(new AuthPrincipal("x", ".hidden", Set.of(), null),
                new AuthPrincipal("x", "acme", Set.of("../up"), null), new AuthPrincipal("x", "acme", Set.of("a:b"), null))) {
            assertThatThrownBy(() -> TokenAuthenticator.builder().token("long-enough-1", p)).as(p.toString())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no connection could use");
        }
        assertThat(TokenAuthenticator.builder().token("long-enough-1", new AuthPrincipal("x", "acme", Set.of("*", "p-1"),
                null)).build().authenticate("long-enough-1")).isPresent();
    }

    @Test
    void duplicateTokensAreRefused() {
        TokenAuthenticator.Builder b = TokenAuthenticator.builder()
                .token("same-token-1", new AuthPrincipal("a", "t", Set.of(), null));
        assertThatThrownBy(() -> b.token("same-token-1", new AuthPrincipal("b", "t", Set.of(), null)))
                .hasMessageContaining("twice");
    }

    @Test
    void aFootTokenWithAnExplicitlyEmptyProjectListAndANullUserIsAccepted() throws Exception {
        Path f = Files.writeString(dir.resolve("foot.json"), "{\"tokens\":[{\"token\":\"foot-secret-1\","
                + "\"tenant\":\"acme\",\"projects\":[],\"user\":null}]}");
        AuthPrincipal foot = TokenAuthenticator.fromJson(f).authenticate("foot-secret-1").orElseThrow();
        assertThat(foot.mayServe("acme", null)).isTrue();
        assertThat(foot.mayServe("acme", "proj")).isFalse();
        assertThat(foot.user()).isNull();
    }

    @Test
    void strictReadingNamesTheLineAndTheKeyOfEachMistake() throws Exception {
        String entry = "{\"token\":\"long-enough-1\",\"tenant\":\"acme\",\"projects\":[\"p\"]";
        assertRefused("{\"tokens\":[],\n\"users\":[]}", "line 1: \"tokens\" is empty");
        assertRefused("{\"tokenz\":[" + entry + "}]}", "line 1: unknown key 'tokenz' at the top level (did you mean "
                + "'tokens'?). The file has one key, \"tokens\".");
        assertRefused("{\"tokens\":[\n" + entry + ",\n\"tenant\":\"other\"}]}", "line 3: 'tenant' is given twice in "
                + "tokens[0]; keep one.");
        assertRefused("{\"tokens\":[" + entry + ",\"user\":7}]}", "line 1: 'user' in tokens[0] must be a string or "
                + "null, got a number.");
        assertRefused("{\"tokens\":[" + entry + ",\"subject\":\" \"}]}", "line 1: 'subject' in tokens[0] is empty; give "
                + "a value or leave the key out.");
        assertRefused("{\"tokens\":[\n" + entry + "},\n{\"token\":\"long-enough-1\",\"tenant\":\"acme\",\"projects\":[]}]}",
                "line 3: tokens[1]: The same token is listed twice (second for acme).");
        assertRefused("{\"tokens\":[" + entry + ",\"projects\":[\"\"]}]}", "'projects' is given twice");
        assertRefused("{\"tokens\":[{\"token\":\"long-enough-1\",\"tenant\":\"acme\",\"projects\":[\"\"]}]}",
                "line 1: 'projects' in tokens[0] must hold non-empty project names, got an empty one.");
        assertRefused("{\"tokens\":[\n{\"token\":\"long-enough-1\",\"subject\":\"box\",\"tenant\":\"../x\",\"projects\":[]}]}",
                "line 2: tokens[0]: The tenant '../x' of the token of box is a name no connection could use: it must "
                + "be a single name");
        assertRefused("{\"tokens\":[{\"token\":\"long-enough-1\",\"tenant\":\"acme\",\"projects\":[\"p\",\"a/b\"]}]}",
                "tokens[0]: The project 'a/b' of the token of acme is a name no connection could use: it must be a "
                + "single name of 1 to 128 characters");
        assertRefused("{\"tokens\":[" + entry + "}]} {}", "line 1: unexpected text after the closing '}'");
        assertRefused("{\"tokens\":[" + entry + "}", "t.json, line 1: not valid JSON (");
    }

    private void assertRefused(String json, String message) throws Exception {
        Path f = Files.writeString(dir.resolve("t.json"), json);
        assertThatThrownBy(() -> TokenAuthenticator.fromJson(f)).as(json).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message).hasMessageNotContaining("long-enough-1");
    }
}
