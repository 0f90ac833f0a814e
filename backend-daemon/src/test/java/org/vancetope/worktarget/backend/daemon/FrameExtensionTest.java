package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.FrameChannel;

/** Frames of other types travel both ways through the pluggable extension, over a real connection. */
class FrameExtensionTest {
    private final BlockingQueue<String> serverGot = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> clientGot = new LinkedBlockingQueue<>();
    private final CompletableFuture<String> serverSawClose = new CompletableFuture<>();
    private final CompletableFuture<String> clientSawClose = new CompletableFuture<>();
    private final BlockingQueue<String> serverOpened = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> clientOpened = new LinkedBlockingQueue<>();
    private TestServer t;

    private static FrameExtension recorder(BlockingQueue<String> got, CompletableFuture<String> closed,
                                           BlockingQueue<String> opened) {
        return new FrameExtension() {
            @Override
            public boolean handles(String type) {
                return type.startsWith("transfer_");
            }

            @Override
            public void onOpen(WireChannel channel) {
                opened.add(channel.id());
            }

            @Override
            public void onFrame(WireChannel channel, String type, String frame) {
                got.add("open " + opened.contains(channel.id()) + ": " + frame);
            }

            @Override
            public void onClose(WireChannel channel) {
                closed.complete(channel.id());
            }
        };
    }

    @BeforeEach
    void start() throws Exception {
        t = new TestServer(b -> b.frameExtension(recorder(serverGot, serverSawClose, serverOpened)));
    }

    @AfterEach
    void stop() {
        t.close();
    }

    @Test
    void extensionFramesTravelBothWaysOnTheDaemonsChannel() throws Exception {
        WorkTargetClient box = t.started(t.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                .frameExtension(recorder(clientGot, clientSawClose, clientOpened)));
        FrameChannel<String> toDaemon = t.server.peers().find(new DaemonKey("acme", "proj", "box"))
                .flatMap(Endpoint::transferChannel).orElseThrow();
        assertThat(toDaemon.isOpen()).isTrue();
        assertThat(toDaemon.isWritable()).isTrue();
        String init = "{\"type\":\"transfer_init\",\"transferId\":\"t-1\",\"totalSize\":3}";
        toDaemon.send(init).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(clientGot.poll(10, TimeUnit.SECONDS)).isEqualTo("open true: " + init);
        assertThat(serverGot).isEmpty();
        box.close();
        assertThat(serverSawClose.get(10, TimeUnit.SECONDS)).isEqualTo(toDaemon.id());
        assertThat(clientSawClose.get(10, TimeUnit.SECONDS)).isEqualTo(toDaemon.id());
        assertThat(toDaemon.isOpen()).isFalse();
    }

    @Test
    void framesFromTheClientReachTheServerExtension() throws Exception {
        try (RawClient raw = RawClient.daemon(t.uri(), "raw", RawClient.READ_TOOL)) {
            String chunk = "{\"type\":\"transfer_chunk\",\"transferId\":\"t-9\",\"seq\":0,\"data\":\"AAEC\"}";
            raw.send(chunk);
            assertThat(serverGot.poll(10, TimeUnit.SECONDS)).isEqualTo("open true: " + chunk);
        }
    }

    @Test
    void eachEndAnnouncesTheOpenConnectionOnceBeforeAnyFrame() throws Exception {
        t.started(t.daemonBuilder("box", List.of(TestServer.echoRead("box")))
                .frameExtension(recorder(clientGot, clientSawClose, clientOpened)));
        String id = t.server.peers().find(new DaemonKey("acme", "proj", "box"))
                .flatMap(Endpoint::transferChannel).orElseThrow().id();
        assertThat(serverOpened.poll(10, TimeUnit.SECONDS)).isEqualTo(id);
        assertThat(clientOpened.poll(10, TimeUnit.SECONDS)).isEqualTo(id);
        assertThat(serverOpened).isEmpty();
        assertThat(clientOpened).isEmpty();
    }
}
