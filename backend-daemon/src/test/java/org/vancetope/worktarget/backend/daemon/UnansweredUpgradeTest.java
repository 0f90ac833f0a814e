package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.testfixtures.Await;

/** A client whose server takes the connection and never answers the upgrade says so, not that the server closed it. */
class UnansweredUpgradeTest {

    @Test
    void aServerThatAcceptsAndNeverAnswersIsReportedAsNotAnsweringTheUpgrade() throws Exception {
        List<Socket> held = new CopyOnWriteArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!silent.isClosed()) {
                    try {
                        held.add(silent.accept());      // held open, never read, never answered
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            try (WorkTargetClient client = WorkTargetClient.builder()
                    .uri(URI.create("ws://127.0.0.1:" + silent.getLocalPort() + "/worktarget/v1"))
                    .token("a-token-nobody-checks").daemon("acme", "proj", "box").tools(List.of())
                    .handshakeTimeout(Duration.ofMillis(300))
                    .reconnectBackoff(Duration.ofSeconds(30), Duration.ofSeconds(30)).build()) {
                client.start();
                Await.until("the upgrade timed out", () -> client.lastFailure().isPresent());
                assertThat(client.lastFailure().orElseThrow())
                        .isInstanceOf(java.util.concurrent.TimeoutException.class)
                        .hasMessageContaining("accepted the connection but did not answer the WebSocket upgrade "
                                + "within 300 ms");
            }
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }
}
