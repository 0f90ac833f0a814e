package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.DaemonKey;

/**
 * {@code maxConnectionsPerSubject}: one token's subject holds at most that many open connections; one more is
 * told to try again later, a reconnect of its own peer still supersedes, and other subjects are not touched.
 */
class SubjectConnectionCapTest {
    private static final int CAP = 2;
    private static final AuthPrincipal BOX = new AuthPrincipal("box", "acme", Set.of("proj"), null);
    private static final AuthPrincipal OTHER = new AuthPrincipal("other", "acme", Set.of("proj"), null);

    private final ServerCore core = new ServerCore(new ServerSettings("/worktarget/v1", 2 << 20, 65536,
            Duration.ofSeconds(15), 3, Duration.ofSeconds(10), 3, Duration.ofSeconds(10), Set.of(), Map.of(),
            token -> Optional.empty(), null, System::nanoTime, Duration.ofSeconds(10), 8192, 1 << 20, CAP));
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    @AfterEach
    void closeChannels() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    private EmbeddedChannel upgraded(AuthPrincipal principal) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.attr(HandshakeAuthHandler.PRINCIPAL).set(principal);
        ch.attr(HandshakeAuthHandler.PROFILE).set("daemon");
        ch.pipeline().addLast(new ServerConnectionHandler(core));
        ch.pipeline().fireUserEventTriggered(
                new WebSocketServerProtocolHandler.HandshakeComplete("/worktarget/v1", new DefaultHttpHeaders(), null));
        channels.add(ch);
        return ch;
    }

    private EmbeddedChannel hello(AuthPrincipal principal, String daemonName) {
        return hello(upgraded(principal), daemonName);
    }

    private static EmbeddedChannel hello(EmbeddedChannel ch, String daemonName) {
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"hello\",\"protocolVersion\":1,\"profile\":\"daemon\","
                + "\"tenant\":\"acme\",\"project\":\"proj\",\"daemonName\":\"" + daemonName + "\",\"capabilities\":[],"
                + "\"tools\":[]}"));
        return ch;
    }

    private static String text(EmbeddedChannel ch) {
        TextWebSocketFrame f = ch.readOutbound();
        try {
            return f.text();
        } finally {
            f.release();
        }
    }

    private static int closeCode(EmbeddedChannel ch) {
        Object o = ch.readOutbound();
        assertThat(o).isInstanceOf(CloseWebSocketFrame.class);
        CloseWebSocketFrame f = (CloseWebSocketFrame) o;
        try {
            return f.statusCode();
        } finally {
            f.release();
        }
    }

    private boolean online(String daemonName) {
        return core.peers().connection(new DaemonKey("acme", "proj", daemonName)).isPresent();
    }

    @Test
    void theConnectionOverTheCapIsToldToTryAgainLaterAndNamesTheCap() {
        assertThat(text(hello(BOX, "box-1"))).contains("\"type\":\"welcome\"");
        assertThat(text(hello(BOX, "box-2"))).contains("\"type\":\"welcome\"");

        EmbeddedChannel third = hello(BOX, "box-3");

        assertThat(text(third)).contains("\"code\":\"size_limit\"", "'box'", "maxConnectionsPerSubject", "(2,");
        assertThat(closeCode(third)).isEqualTo(1013);
        assertThat(online("box-3")).isFalse();
        assertThat(core.subjectConnections("box")).isEqualTo(CAP);
    }

    @Test
    void anotherSubjectIsNotCountedAgainstTheCap() {
        hello(BOX, "box-1");
        hello(BOX, "box-2");

        assertThat(text(hello(OTHER, "other-1"))).contains("\"type\":\"welcome\"");
        assertThat(online("other-1")).isTrue();
    }

    @Test
    void aClosedConnectionMakesRoomForTheNextOne() {
        EmbeddedChannel first = hello(BOX, "box-1");
        hello(BOX, "box-2");
        first.close();
        assertThat(core.subjectConnections("box")).isEqualTo(1);

        assertThat(text(hello(BOX, "box-3"))).contains("\"type\":\"welcome\"");
        assertThat(online("box-3")).isTrue();
    }

    @Test
    void aReconnectOfItsOwnDaemonAtTheCapSupersedesTheOldConnection() {
        EmbeddedChannel old = hello(BOX, "box-1");
        text(old);
        hello(BOX, "box-2");

        EmbeddedChannel again = hello(BOX, "box-1");

        assertThat(text(again)).contains("\"type\":\"welcome\"");
        assertThat(text(old)).contains("\"code\":\"superseded\"");
        assertThat(closeCode(old)).isEqualTo(4409);
        assertThat(core.subjectConnections("box")).as("the superseded one gave its place back").isEqualTo(CAP);
    }

    @Test
    void upgradesThatNeverSendHelloAreCappedPerSubjectToo() {
        upgraded(BOX);
        upgraded(BOX);

        EmbeddedChannel third = upgraded(BOX);

        assertThat(text(third)).contains("\"code\":\"size_limit\"", "waiting to send hello", "maxConnectionsPerSubject");
        assertThat(closeCode(third)).isEqualTo(1013);
        assertThat(text(hello(OTHER, "other-1"))).as("another subject").contains("\"type\":\"welcome\"");
    }

    @Test
    void aHelloMovesTheConnectionFromWaitingToOpenAndACloseGivesBothBack() {
        EmbeddedChannel first = upgraded(BOX);
        EmbeddedChannel second = upgraded(BOX);
        assertThat(text(hello(first, "box-1"))).contains("\"type\":\"welcome\"");

        assertThat(text(hello(BOX, "box-2"))).as("the hello gave its waiting place back")
                .contains("\"type\":\"welcome\"");
        second.close();
        first.close();
        assertThat(text(hello(BOX, "box-3"))).contains("\"type\":\"welcome\"");
        assertThat(core.subjectConnections("box")).isEqualTo(2);
    }

    @Test
    void refusedConnectionsHoldNoPlace() {
        hello(BOX, "box-1");
        hello(BOX, "box-2");
        for (int i = 0; i < 5; i++) {
            hello(BOX, "extra-" + i).close();
        }
        assertThat(core.subjectConnections("box")).isEqualTo(CAP);
    }
}
