package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.WebSocketHandshakeException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;

class HandshakeTest {
    private TestServer t;

    @BeforeEach
    void start() throws Exception {
        t = new TestServer();
    }

    @AfterEach
    void stop() {
        t.close();
    }

    private static int refusedStatus(ThrowingConnect connect) {
        Throwable e = org.assertj.core.api.Assertions.catchThrowable(connect::run);
        while (e != null && !(e instanceof WebSocketHandshakeException)) {
            e = e.getCause();
        }
        assertThat(e).as("handshake refused").isInstanceOf(WebSocketHandshakeException.class);
        return ((WebSocketHandshakeException) e).getResponse().statusCode();
    }

    @FunctionalInterface
    private interface ThrowingConnect {
        void run() throws Exception;
    }

    @Test
    void upgradeWithoutTokenIsRefusedWith401() {
        assertThat(refusedStatus(() -> RawClient.connect(t.uri(), null, "daemon"))).isEqualTo(401);
    }

    @Test
    void upgradeWithABadTokenIsRefusedWith401() {
        assertThat(refusedStatus(() -> RawClient.connect(t.uri(), "not-a-valid-token", "daemon"))).isEqualTo(401);
    }

    @Test
    void upgradeOnAnotherPathIsRefusedWith404() {
        URI wrong = URI.create("ws://127.0.0.1:" + t.server.port() + "/other");
        assertThat(refusedStatus(() -> RawClient.connect(wrong, TestServer.DAEMON_TOKEN, "daemon"))).isEqualTo(404);
    }

    @Test
    void upgradeWithoutProfileIsRefusedWith400() {
        assertThat(refusedStatus(() -> RawClient.connect(t.uri(), TestServer.DAEMON_TOKEN, null))).isEqualTo(400);
    }

    @Test
    void clientWithABadTokenStopsWithARefusalInsteadOfRetrying() throws Exception {
        WorkTargetClient c = t.track(WorkTargetClient.builder().uri(t.uri()).token("wrong-token-123").daemon("acme", "proj", "box")
                .build().start());
        assertThatThrownBy(() -> c.terminated().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(ServerRefusedException.class)
                .satisfies(e -> assertThat(((ServerRefusedException) e).status()).isEqualTo(401));
        assertThat(c.isConnected()).isFalse();
    }

    @Test
    void daemonForAProjectItsTokenDoesNotGrantIsForbidden() throws Exception {
        WorkTargetClient c = t.track(WorkTargetClient.builder().uri(t.uri()).token(TestServer.OTHER_TOKEN)
                .daemon("acme", "proj", "box").build().start());
        assertThatThrownBy(() -> c.terminated().get(10, TimeUnit.SECONDS))
                .cause().isInstanceOf(ServerRefusedException.class).hasMessageContaining("forbidden")
                .satisfies(e -> assertThat(((ServerRefusedException) e).status()).isEqualTo(4403));
        assertThat(t.server.peers().find(new DaemonKey("acme", "proj", "box"))).isEmpty();
    }

    @Test
    void daemonOfAnotherTenantIsForbidden() throws Exception {
        WorkTargetClient c = t.track(WorkTargetClient.builder().uri(t.uri()).token(TestServer.DAEMON_TOKEN)
                .daemon("globex", "proj", "box").build().start());
        assertThatThrownBy(() -> c.terminated().get(10, TimeUnit.SECONDS)).cause()
                .isInstanceOf(ServerRefusedException.class)
                .satisfies(e -> assertThat(((ServerRefusedException) e).status()).isEqualTo(4403));
    }

    @Test
    void grantedDaemonIsOnlineWithItsManifest() throws Exception {
        t.daemon("box", List.of(TestServer.echoRead("box")));
        Endpoint s = t.server.peers().find(new DaemonKey("acme", "proj", "box")).orElseThrow();
        assertThat(s.isStale()).isFalse();
        assertThat(s.manifest()).extracting(x -> x.name()).containsExactly("client_file_read");
        assertThat(t.server.peers().onlineDaemons("acme", "proj")).containsExactly("box");
        assertThat(t.server.connections()).singleElement().satisfies(ci -> {
            assertThat(ci.profile()).isEqualTo("daemon");
            assertThat(ci.subject()).isEqualTo("box");
        });
    }

    @Test
    void helloWithAnUnsupportedVersionIsClosed4426() throws Exception {
        try (RawClient c = RawClient.connect(t.uri(), TestServer.DAEMON_TOKEN, "daemon")) {
            c.send("{\"type\":\"hello\",\"protocolVersion\":9,\"profile\":\"daemon\",\"tenant\":\"acme\","
                    + "\"project\":\"proj\",\"daemonName\":\"box\"}");
            assertThat(c.next()).contains("\"error\"", "version 9");
            assertThat(c.awaitClose()).isEqualTo(4426);
        }
    }

    @Test
    void noHelloInTimeCloses4408() throws Exception {
        try (TestServer quick = new TestServer(b -> b.helloTimeout(java.time.Duration.ofMillis(200)));
             RawClient c = RawClient.connect(quick.uri(), TestServer.DAEMON_TOKEN, "daemon")) {
            assertThat(c.next()).contains("No hello");
            assertThat(c.awaitClose()).isEqualTo(4408);
        }
    }

    @Test
    void aClientAcceptedOnceStillCountsAsHavingConnectedAfterTheConnectionDropped() throws Exception {
        TestServer other = new TestServer();
        WorkTargetClient c = other.started(other.daemonBuilder("box", List.of()));
        other.server.close();
        long end = System.nanoTime() + TestServer.WAIT.toNanos();
        while (c.isConnected() && System.nanoTime() < end) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        assertThat(c.isConnected()).as("dropped").isFalse();
        assertThat(c.awaitConnected(java.time.Duration.ZERO)).as("connected now").isFalse();
        assertThat(c.awaitFirstConnection(java.time.Duration.ZERO)).as("accepted once").isTrue();
        other.close();
    }

    @Test
    void aClientNeverAcceptedHasNoFirstConnection() throws Exception {
        WorkTargetClient c = t.track(WorkTargetClient.builder().uri(t.uri()).token("wrong-token-123")
                .daemon("acme", "proj", "box").build().start());
        c.terminated().handle((v, e) -> null).get(10, TimeUnit.SECONDS);
        assertThat(c.awaitFirstConnection(java.time.Duration.ofMillis(50))).isFalse();
    }
}
