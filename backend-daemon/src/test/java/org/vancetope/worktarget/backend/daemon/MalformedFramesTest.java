package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.DaemonKey;

/** The framing rules on real sockets: bad frames are answered, the server stays up, others are unaffected. */
class MalformedFramesTest {
    private static final DaemonKey GOOD = new DaemonKey("acme", "proj", "good");
    private TestServer t;

    @BeforeEach
    void start() throws Exception {
        t = new TestServer();
        t.daemon("good", List.of(TestServer.echoRead("good")));
    }

    @AfterEach
    void stop() {
        t.close();
    }

    private void othersStillWork() throws Exception {
        assertThat(TestServer.invoke(t.server, GOOD, "client_file_read", Map.of("path", "x"), TestServer.ctx(),
                Duration.ofSeconds(10))).containsEntry("content", "good:x");
    }

    @Test
    void badJsonIsAnsweredBadFrameAndTheConnectionStaysOpen() throws Exception {
        try (RawClient raw = RawClient.daemon(t.uri(), "raw", RawClient.READ_TOOL)) {
            raw.send("{\"type\": oops");
            assertThat(raw.next()).contains("\"type\":\"error\"", "\"code\":\"bad_frame\"");
            raw.send("{\"type\":\"tool_manifest\",\"tools\":[]}");
            assertThat(raw.isOpen()).isTrue();
        }
        othersStillWork();
    }

    @Test
    void unknownTypeIsAnsweredBadFrame() throws Exception {
        try (RawClient raw = RawClient.daemon(t.uri(), "raw", RawClient.READ_TOOL)) {
            raw.send("{\"type\":\"transfer_chunk\",\"seq\":0}");
            assertThat(raw.next()).contains("bad_frame", "transfer_chunk");
            assertThat(raw.isOpen()).isTrue();
        }
        othersStillWork();
    }

    @Test
    void binaryFrameWithoutTheCapabilityIsAnsweredBadFrame() throws Exception {
        try (RawClient raw = RawClient.daemon(t.uri(), "raw", RawClient.READ_TOOL)) {
            raw.sendBinary(new byte[] {1, 2, 3, 4});
            assertThat(raw.next()).contains("bad_frame", "transfer.binary");
            assertThat(raw.isOpen()).isTrue();
        }
        othersStillWork();
    }

    @Test
    void threeBadFramesCloseTheConnectionWith1008() throws Exception {
        try (RawClient raw = RawClient.daemon(t.uri(), "raw", RawClient.READ_TOOL)) {
            for (int i = 0; i < 3; i++) {
                raw.send("[]");
                assertThat(raw.next()).contains("bad_frame");
            }
            assertThat(raw.awaitClose()).isEqualTo(1008);
        }
        othersStillWork();
    }

    @Test
    void oversizeFrameClosesTheConnectionWith1009() throws Exception {
        try (RawClient raw = RawClient.daemon(t.uri(), "raw", RawClient.READ_TOOL)) {
            String big = "{\"type\":\"tool_manifest\",\"pad\":\"" + "x".repeat(2 * 1024 * 1024 + 16) + "\"}";
            raw.send(big);
            assertThat(raw.awaitClose()).isEqualTo(1009);
        }
        assertThat(t.server.peers().onlineDaemons("acme", "proj")).containsExactly("good");
        othersStillWork();
    }

    @Test
    void frameJustBelowTheLimitIsAccepted() throws Exception {
        try (RawClient raw = RawClient.daemon(t.uri(), "raw", RawClient.READ_TOOL)) {
            // a result nobody waits for is dropped without an answer: the frame itself is what is tested
            String big = "{\"type\":\"client_tool_result\",\"correlationId\":\"nobody\",\"ok\":true,\"result\":{\"pad\":\""
                    + "x".repeat(2 * 1024 * 1024 - 128) + "\"}}";
            assertThat(big.length()).isLessThan(2 * 1024 * 1024);
            raw.send(big);
            raw.send("{\"type\":\"make_coffee\"}");
            assertThat(raw.next()).contains("make_coffee");
            assertThat(t.server.peers().find(new DaemonKey("acme", "proj", "raw"))).isPresent();
        }
    }

    private static SocketPeer helloedSocketPeer(TestServer t, String name) throws Exception {
        SocketPeer peer = SocketPeer.connect(t.uri(), TestServer.DAEMON_TOKEN, "daemon");
        peer.sendText("{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"daemon\",\"tenant\":\"acme\","
                + "\"project\":\"proj\",\"daemonName\":\"" + name + "\",\"tools\":" + RawClient.READ_TOOL + "}");
        assertThat(peer.next().text()).contains("\"welcome\"");
        return peer;
    }

    @Test
    void textFrameThatIsNotValidUtf8ClosesTheConnectionWith1007() throws Exception {
        try (SocketPeer peer = helloedSocketPeer(t, "raw")) {
            byte[] frame = "{\"type\":\"tool_manifest\",\"tools\":[],\"note\":\"..\"}".getBytes(StandardCharsets.US_ASCII);
            frame[frame.length - 4] = (byte) 0xC0;     // an overlong form of '.'
            frame[frame.length - 3] = (byte) 0xAE;
            peer.send(SocketPeer.TEXT, frame);
            assertThat(peer.awaitClose().closeCode()).isEqualTo(1007);
        }
        assertThat(t.server.peers().onlineDaemons("acme", "proj")).containsExactly("good");
        othersStillWork();
    }

    @Test
    void chunkSizedTextFrameWithOneInvalidByteAtTheEndClosesWith1007() throws Exception {
        try (SocketPeer peer = helloedSocketPeer(t, "raw")) {
            byte[] frame = ("{\"type\":\"tool_manifest\",\"tools\":[],\"pad\":\"" + "A".repeat(90_000) + "?\"}")
                    .getBytes(StandardCharsets.US_ASCII);
            frame[frame.length - 3] = (byte) 0xFF;
            peer.send(SocketPeer.TEXT, frame);
            assertThat(peer.awaitClose().closeCode()).isEqualTo(1007);
        }
        othersStillWork();
    }

    @Test
    void textFrameWithMultiByteUtf8IsAccepted() throws Exception {
        try (SocketPeer peer = helloedSocketPeer(t, "raw")) {
            peer.sendText("{\"type\":\"tool_manifest\",\"tools\":[{\"name\":\"client_file_read\","
                    + "\"description\":\"na\u00efve \u20ac \ud83d\ude80\",\"paramsSchema\":{\"type\":\"object\"}}]}");
            peer.sendText("{\"type\":\"make_coffee\"}");
            assertThat(peer.next().text()).contains("bad_frame", "make_coffee");
            assertThat(t.server.peers().find(new DaemonKey("acme", "proj", "raw")).orElseThrow().manifest())
                    .extracting(s -> s.description()).containsExactly("na\u00efve \u20ac \ud83d\ude80");
        }
    }

    @Test
    void frameBeforeHelloClosesWith4400() throws Exception {
        try (RawClient raw = RawClient.connect(t.uri(), TestServer.DAEMON_TOKEN, "daemon")) {
            raw.send("{\"type\":\"client_tool_result\",\"correlationId\":\"dt-x\",\"ok\":true}");
            assertThat(raw.next()).contains("first frame must be 'hello'");
            assertThat(raw.awaitClose()).isEqualTo(4400);
        }
        othersStillWork();
    }
}
