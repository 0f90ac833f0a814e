package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * Who a real server lets in, over real sockets: a foot never takes over another subject's session, and
 * tool manifests are held to a size per connection and a budget for all of them.
 */
class PeerAdmissionTest {
    private static final Duration CALL = Duration.ofSeconds(10);

    /** A manifest of every tool of the catalog with a body that echoes: about 30 KiB on the wire. */
    private static List<BackendTool> wholeCatalog() {
        return ToolCatalog.backendTools().stream().filter(s -> s.name().startsWith(ToolCatalog.CLIENT_PREFIX)).map(s -> BackendTool.of(s, (p, c) -> Map.of())).toList();
    }

    @Test
    void aFootOfAnotherSubjectIsRefusedAndTheSessionKeepsItsFoot() throws Exception {
        try (TestServer t = new TestServer()) {
            t.started(WorkTargetClient.builder().uri(t.uri()).token(TestServer.FOOT_TOKEN).foot("acme", "proj", "s-1")
                    .tools(List.of(TestServer.echoRead("alice"))));
            WorkTargetClient intruder = t.track(WorkTargetClient.builder().uri(t.uri()).token(TestServer.OTHER_TOKEN)
                    .foot("acme", "other", "s-1").tools(List.of(TestServer.echoRead("intruder")))
                    .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200)).build());
            intruder.start();

            assertThatThrownBy(() -> intruder.terminated().get(10, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(ServerRefusedException.class)
                    .satisfies(e -> assertThat(((ServerRefusedException) e).status()).isEqualTo(4403))
                    .hasMessageContaining("another token's subject");
            Map<String, Object> r = TestServer.invoke(t.server, new SessionKey("acme", "s-1"), "client_file_read",
                    Map.of("path", "a.txt"), new ToolContext("p-1", "s-1", "acme", "proj", "alice"), CALL);
            assertThat(r).containsEntry("content", "alice:a.txt");
        }
    }

    @Test
    void aDaemonWhoseManifestIsOverTheServersLimitStopsWithSizeLimit() throws Exception {
        try (TestServer t = new TestServer(b -> b.maxManifestBytes(8192))) {
            WorkTargetClient big = t.track(t.daemonBuilder("box", wholeCatalog()).build());
            big.start();

            assertThatThrownBy(() -> big.terminated().get(10, TimeUnit.SECONDS)).cause()
                    .isInstanceOf(ServerRefusedException.class)
                    .satisfies(e -> assertThat(((ServerRefusedException) e).status()).isEqualTo(4400))
                    .hasMessageContaining("size_limit").hasMessageContaining("at most 8192 bytes");
            assertThat(TestServer.online(t.server, new DaemonKey("acme", "proj", "box"))).isFalse();
        }
    }

    @Test
    void aDaemonThatDoesNotFitTheManifestBudgetRetriesAndConnectsOnceThereIsRoom() throws Exception {
        try (TestServer t = new TestServer(b -> b.maxManifestBytes(40_000).manifestBudgetBytes(40_000))) {
            WorkTargetClient first = t.daemon("box-1", wholeCatalog());
            WorkTargetClient second = t.track(t.daemonBuilder("box-2", wholeCatalog()).build());
            second.start();

            assertThat(second.awaitConnected(Duration.ofMillis(500))).isFalse();
            assertThat(second.terminated()).isNotDone();
            first.close();

            assertThat(second.awaitConnected(TestServer.WAIT)).isTrue();
            assertThat(TestServer.online(t.server, new DaemonKey("acme", "proj", "box-2"))).isTrue();
        }
    }

    @Test
    void theBuilderRefusesAManifestLimitBelow4KiBAndABudgetBelowTheLimit() {
        assertThatThrownBy(() -> WorkTargetServer.builder().authenticator(token -> java.util.Optional.empty())
                .maxManifestBytes(4095).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxManifestBytes");
        assertThatThrownBy(() -> WorkTargetServer.builder().authenticator(token -> java.util.Optional.empty())
                .maxManifestBytes(65536).manifestBudgetBytes(65535).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("manifestBudgetBytes");
    }
}
