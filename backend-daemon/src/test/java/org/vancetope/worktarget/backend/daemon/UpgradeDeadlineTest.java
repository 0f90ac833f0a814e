package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.testfixtures.RawHttp;

/**
 * The upgrade timeout of the WebSocket port, with raw sockets: a peer that sends nothing, or its
 * headers one byte at a time, is answered 408 and closed; a client that upgraded in time keeps its
 * connection past the deadline.
 */
class UpgradeDeadlineTest {
    private static final Duration SHORT = Duration.ofMillis(300);
    /** The bound of every read: far beyond the deadline, so only a missing deadline reaches it. */
    private static final int READ_BOUND_MS = 15_000;

    private static TestServer server(Duration upgradeTimeout) throws IOException {
        return new TestServer(b -> b.upgradeTimeout(upgradeTimeout));
    }

    private static Socket open(TestServer t) throws IOException {
        Socket s = new Socket("127.0.0.1", t.server.port());
        s.setSoTimeout(READ_BOUND_MS);
        return s;
    }

    @Test
    void silentPeerGets408AndIsClosedAfterTheUpgradeTimeout() throws Exception {
        try (TestServer t = server(SHORT); Socket s = open(t)) {
            assertThat(RawHttp.readUntilClosed(s)).startsWith("HTTP/1.1 408").contains("within 300 ms");
        }
    }

    @Test
    void slowlorisPeerSendingAHeaderByteNowAndThenIsClosedAfterTheUpgradeTimeout() throws Exception {
        try (TestServer t = server(SHORT); Socket s = open(t)) {
            AtomicInteger sent = new AtomicInteger();
            Thread slow = new Thread(() -> {
                byte[] head = ("GET /worktarget/v1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + "a".repeat(4000))
                        .getBytes(StandardCharsets.US_ASCII);
                try {
                    OutputStream out = s.getOutputStream();
                    for (byte c : head) {
                        out.write(c);
                        out.flush();
                        sent.incrementAndGet();
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                    }
                } catch (IOException closed) {
                    // the server closed the connection: what the test waits for
                }
            }, "slowloris");
            slow.setDaemon(true);
            slow.start();
            String answer = RawHttp.readUntilClosed(s);
            slow.join(READ_BOUND_MS);
            assertThat(answer).startsWith("HTTP/1.1 408");
            assertThat(sent.get()).as("header bytes sent before the close").isPositive().isLessThan(4000);
        }
    }

    @Test
    void twoHundredSilentPeersAreAllClosed() throws Exception {
        // all from one address: over the default cap of unauthenticated connections per address, which is not
        // what this test is about
        try (TestServer t = new TestServer(b -> b.upgradeTimeout(SHORT).maxUnauthenticatedPerAddress(0))) {
            List<Socket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < 200; i++) {
                    sockets.add(open(t));
                }
                for (Socket s : sockets) {
                    assertThat(RawHttp.readUntilClosed(s)).startsWith("HTTP/1.1 408");
                }
            } finally {
                for (Socket s : sockets) {
                    s.close();
                }
            }
        }
    }

    @Test
    void peerWithAValidTokenButAnUnfinishedRequestIsClosedToo() throws Exception {
        try (TestServer t = server(SHORT); Socket s = open(t)) {
            s.getOutputStream().write(("GET /worktarget/v1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + TestServer.DAEMON_TOKEN + "\r\nX-WorkTarget-Profile: daemon\r\n").getBytes(StandardCharsets.US_ASCII));
            assertThat(RawHttp.readUntilClosed(s)).startsWith("HTTP/1.1 408");
        }
    }

    @Test
    void upgradedConnectionOutlivesTheUpgradeTimeout() throws Exception {
        Duration timeout = Duration.ofSeconds(1);
        try (TestServer t = server(timeout); SocketPeer p = SocketPeer.connect(t.uri(), TestServer.DAEMON_TOKEN, "daemon")) {
            LockSupport.parkNanos(timeout.multipliedBy(2).toNanos());
            p.sendText("{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"daemon\",\"tenant\":\"acme\","
                    + "\"project\":\"proj\",\"daemonName\":\"box\",\"tools\":[]}");
            assertThat(p.next().text()).contains("\"welcome\"");
        }
    }

    @Test
    void anUpgradeWithAQueryStringIsUpgradedInsteadOfLeftHanging() throws Exception {
        try (TestServer t = server(SHORT);
             SocketPeer p = SocketPeer.connect(java.net.URI.create(t.uri() + "?client=x"), TestServer.DAEMON_TOKEN,
                     "daemon")) {
            p.sendText("{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"daemon\",\"tenant\":\"acme\","
                    + "\"project\":\"proj\",\"daemonName\":\"box\",\"tools\":[]}");
            assertThat(p.next().text()).contains("\"welcome\"");
        }
    }

    @Test
    void anUpgradeOfAPathBelowTheEndpointIs404() throws Exception {
        try (TestServer t = server(SHORT); Socket s = open(t)) {
            OutputStream out = s.getOutputStream();
            out.write(("GET " + t.uri().getPath() + "/more HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    + "Sec-WebSocket-Version: 13\r\nAuthorization: Bearer " + TestServer.DAEMON_TOKEN + "\r\n"
                    + "X-WorkTarget-Profile: daemon\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(RawHttp.readUntilClosed(s)).startsWith("HTTP/1.1 404");
        }
    }

    @Test
    void daemonClientConnectsAndStaysOnlineWithAShortUpgradeTimeout() throws Exception {
        Duration timeout = Duration.ofSeconds(1);
        try (TestServer t = server(timeout)) {
            WorkTargetClient c = t.daemon("box", List.of(TestServer.echoRead("box")));
            LockSupport.parkNanos(timeout.multipliedBy(2).toNanos());
            assertThat(c.isConnected()).isTrue();
            assertThat(TestServer.online(t.server, new DaemonKey("acme", "proj", "box"))).isTrue();
        }
    }

    @Test
    void upgradeTimeoutMustBePositive() {
        assertThatThrownBy(() -> WorkTargetServer.builder().authenticator(token -> java.util.Optional.empty())
                .upgradeTimeout(Duration.ZERO).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("upgradeTimeout");
    }
}
