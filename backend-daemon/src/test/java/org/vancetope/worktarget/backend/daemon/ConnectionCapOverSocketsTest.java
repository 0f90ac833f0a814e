package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.testfixtures.Await;
import org.vancetope.worktarget.testfixtures.RawHttp;

/**
 * The connection cap of the WebSocket port, with raw sockets on loopback: sockets that send nothing fill it,
 * one more is closed at once, the daemon already connected keeps working, and a closed socket makes room.
 */
class ConnectionCapOverSocketsTest {
    private static final int READ_BOUND_MS = 15_000;
    /** The one tool of the test daemons. */
    private static final BackendTool READ = BackendTool.of(ToolCatalog.backend("client_file_read").orElseThrow(),
            (p, c) -> Map.of("content", "still here"));

    private static Socket open(TestServer t) throws IOException {
        Socket s = new Socket("127.0.0.1", t.server.port());
        s.setSoTimeout(READ_BOUND_MS);
        return s;
    }

    /** Whether a new connection is served: a request for a wrong path gets the server's 404. */
    private static boolean served(TestServer t) {
        try (Socket s = open(t)) {
            s.getOutputStream().write("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            return RawHttp.readUntilClosed(s).startsWith("HTTP/1.1 404");
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void aConnectionOverTheCapIsClosedAtOnceAndTheConnectedDaemonKeepsWorking() throws Exception {
        try (TestServer t = new TestServer(b -> b.maxConnections(3))) {
            WorkTargetClient daemon = t.started(t.daemonBuilder("box-1", List.of(READ)));
            List<Socket> idle = new ArrayList<>();
            try {
                idle.add(open(t));
                idle.add(open(t));

                try (Socket over = open(t)) {
                    assertThat(RawHttp.readUntilClosed(over)).as("what the connection over the cap got").isEmpty();
                }

                assertThat(daemon.isConnected()).isTrue();
                assertThat(t.server.connections()).hasSize(1);
            } finally {
                for (Socket s : idle) {
                    s.close();
                }
            }
            Await.until("a new connection is served once the idle ones closed", () -> served(t));
            assertThat(daemon.isConnected()).isTrue();
        }
    }

    @Test
    void oneHostWithoutATokenCannotKeepTheDaemonsOfAnotherOut() throws Exception {
        try (TestServer t = new TestServer(b -> b.maxConnections(100).maxUnauthenticatedPerAddress(2))) {
            List<Socket> flood = new ArrayList<>();
            try {
                flood.add(RawHttp.connectFrom(t.server.port(), "127.0.0.2", READ_BOUND_MS));
                flood.add(RawHttp.connectFrom(t.server.port(), "127.0.0.2", READ_BOUND_MS));
                flood.add(RawHttp.connectFrom(t.server.port(), "127.0.0.2", READ_BOUND_MS));
                assertThat(RawHttp.readUntilClosed(flood.get(0))).as("the oldest of the flooding host's").isEmpty();

                WorkTargetClient daemon = t.started(t.daemonBuilder("box-1", List.of(READ)));

                assertThat(daemon.isConnected()).isTrue();
            } finally {
                for (Socket s : flood) {
                    s.close();
                }
            }
        }
    }

    @Test
    void socketsThatSendNothingFromTheDaemonsOwnAddressCannotKeepItOut() throws Exception {
        // on a loopback bind (the default), or behind a proxy, every client has the same address
        try (TestServer t = new TestServer(b -> b.maxConnections(100).maxUnauthenticatedPerAddress(2))) {
            List<Socket> idle = new ArrayList<>();
            try {
                idle.add(open(t));
                idle.add(open(t));

                WorkTargetClient daemon = t.started(t.daemonBuilder("box-1", List.of(READ)));

                assertThat(daemon.isConnected()).isTrue();
                assertThat(RawHttp.readUntilClosed(idle.get(0))).as("the oldest idle one made room").isEmpty();
            } finally {
                for (Socket s : idle) {
                    s.close();
                }
            }
        }
    }

    @Test
    void anAuthenticatedConnectionNoLongerCountsAgainstItsHost() throws Exception {
        try (TestServer t = new TestServer(b -> b.maxConnections(100).maxUnauthenticatedPerAddress(2))) {
            WorkTargetClient daemon = t.started(t.daemonBuilder("box-1", List.of(READ)));
            List<Socket> idle = new ArrayList<>();
            try {
                idle.add(open(t));
                idle.add(open(t));
                Socket second = idle.get(1);
                second.getOutputStream().write("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                assertThat(RawHttp.readUntilClosed(second)).as("the second one is served").startsWith("HTTP/1.1 404");
                assertThat(daemon.isConnected()).as("the daemon's connection was not taken for an idle one").isTrue();
            } finally {
                for (Socket s : idle) {
                    s.close();
                }
            }
        }
    }

    @Test
    void theCapMustBeAtLeastOne() {
        assertThatThrownBy(() -> WorkTargetServer.builder().authenticator(TokenAuthenticator.builder().build())
                .maxConnections(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConnections must be at least 1");
    }
}
