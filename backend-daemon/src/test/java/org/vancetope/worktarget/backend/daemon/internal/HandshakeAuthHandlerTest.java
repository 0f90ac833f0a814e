package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.Authenticator;

class HandshakeAuthHandlerTest {
    private static final AuthPrincipal BOX = new AuthPrincipal("box", "acme", Set.of("proj"), null);
    private static final Authenticator AUTH = token -> "good-token".equals(token) ? Optional.of(BOX) : Optional.empty();

    private static FullHttpRequest upgrade(String path, String auth, String profile) {
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path);
        req.headers().set(HttpHeaderNames.UPGRADE, "websocket").set(HttpHeaderNames.CONNECTION, "keep-alive, Upgrade")
                .set(HttpHeaderNames.SEC_WEBSOCKET_KEY, "dGhlIHNhbXBsZSBub25jZQ==")
                .set(HttpHeaderNames.SEC_WEBSOCKET_VERSION, "13");
        if (auth != null) {
            req.headers().set(HttpHeaderNames.AUTHORIZATION, auth);
        }
        if (profile != null) {
            req.headers().set(Wire.PROFILE_HEADER, profile);
        }
        return req;
    }

    private static int status(EmbeddedChannel ch) {
        FullHttpResponse res = ch.readOutbound();
        try {
            return res.status().code();
        } finally {
            res.release();
        }
    }

    @Test
    void validTokenStoresThePrincipalAndPassesTheRequestOn() {
        EmbeddedChannel ch = new EmbeddedChannel(new HandshakeAuthHandler("/worktarget/v1", AUTH));
        ch.writeInbound(upgrade("/worktarget/v1?x=1", "Bearer good-token", "Daemon"));
        FullHttpRequest passed = ch.readInbound();
        assertThat(passed).isNotNull();
        passed.release();
        assertThat(ch.attr(HandshakeAuthHandler.PRINCIPAL).get()).isEqualTo(BOX);
        assertThat(ch.attr(HandshakeAuthHandler.PROFILE).get()).isEqualTo("daemon");
        assertThat(ch.pipeline().get(HandshakeAuthHandler.class)).isNull();
        ch.finishAndReleaseAll();
    }

    @Test
    void missingTokenIs401WithAChallengeAndCloses() {
        EmbeddedChannel ch = new EmbeddedChannel(new HandshakeAuthHandler("/worktarget/v1", AUTH));
        ch.writeInbound(upgrade("/worktarget/v1", null, "daemon"));
        FullHttpResponse res = ch.readOutbound();
        assertThat(res.status().code()).isEqualTo(401);
        assertThat(res.headers().get(HttpHeaderNames.WWW_AUTHENTICATE)).isEqualTo("Bearer");
        res.release();
        Object passed = ch.readInbound();
        assertThat(passed).isNull();
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void rejectedTokenIs401() {
        EmbeddedChannel ch = new EmbeddedChannel(new HandshakeAuthHandler("/worktarget/v1", AUTH));
        ch.writeInbound(upgrade("/worktarget/v1", "Bearer bad-token", "daemon"));
        assertThat(status(ch)).isEqualTo(401);
    }

    @Test
    void failingAuthenticatorIs401NotACrash() {
        EmbeddedChannel ch = new EmbeddedChannel(new HandshakeAuthHandler("/worktarget/v1", token -> {
            throw new IllegalStateException("user store down");
        }));
        ch.writeInbound(upgrade("/worktarget/v1", "Bearer good-token", "daemon"));
        assertThat(status(ch)).isEqualTo(401);
    }

    @Test
    void basicAuthIsNotABearerToken() {
        EmbeddedChannel ch = new EmbeddedChannel(new HandshakeAuthHandler("/worktarget/v1", AUTH));
        ch.writeInbound(upgrade("/worktarget/v1", "Basic Z29vZC10b2tlbg==", "daemon"));
        assertThat(status(ch)).isEqualTo(401);
    }

    @Test
    void unknownProfileIs400() {
        EmbeddedChannel ch = new EmbeddedChannel(new HandshakeAuthHandler("/worktarget/v1", AUTH));
        ch.writeInbound(upgrade("/worktarget/v1", "Bearer good-token", "brain"));
        assertThat(status(ch)).isEqualTo(400);
    }

    @Test
    void otherPathIs404EvenWithAValidToken() {
        EmbeddedChannel ch = new EmbeddedChannel(new HandshakeAuthHandler("/worktarget/v1", AUTH));
        ch.writeInbound(upgrade("/worktarget/v2", "Bearer good-token", "daemon"));
        assertThat(status(ch)).isEqualTo(404);
    }

    /** The refusal of this request from a client with a valid token: status, the endpoint header, the text. */
    private static FullHttpResponse refusalOf(FullHttpRequest req) {
        EmbeddedChannel ch = new EmbeddedChannel(new HandshakeAuthHandler("/worktarget/v1", AUTH));
        ch.writeInbound(req);
        FullHttpResponse res = ch.readOutbound();
        Object passed = ch.readInbound();
        assertThat(passed).as("nothing passed on to the handshake").isNull();
        assertThat(ch.isOpen()).isFalse();
        assertThat(res.headers().get(HandshakeAuthHandler.SERVER_HEADER)).isEqualTo("/worktarget/v1");
        assertThat(res.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
        return res;
    }

    private static String text(FullHttpResponse res) {
        try {
            return res.content().toString(StandardCharsets.UTF_8);
        } finally {
            res.release();
        }
    }

    @Test
    void aPlainGetWithAValidTokenIs400SayingToConnectWithAWebSocketClient() {
        FullHttpRequest req = upgrade("/worktarget/v1", "Bearer good-token", "daemon");
        req.headers().remove(HttpHeaderNames.UPGRADE).set(HttpHeaderNames.CONNECTION, "keep-alive");
        FullHttpResponse res = refusalOf(req);
        assertThat(res.status().code()).isEqualTo(400);
        assertThat(text(res)).contains("no 'Upgrade: websocket' header", "connect with a WebSocket client");
    }

    @Test
    void aPostIs405AllowingGet() {
        FullHttpRequest req = upgrade("/worktarget/v1", "Bearer good-token", "daemon");
        req.setMethod(HttpMethod.POST);
        FullHttpResponse res = refusalOf(req);
        assertThat(res.status().code()).isEqualTo(405);
        assertThat(res.headers().get(HttpHeaderNames.ALLOW)).isEqualTo("GET");
        assertThat(text(res)).contains("Method POST is not allowed", "takes WebSocket connections only");
    }

    @Test
    void aConnectionHeaderWithoutUpgradeIs400() {
        FullHttpRequest req = upgrade("/worktarget/v1", "Bearer good-token", "daemon");
        req.headers().set(HttpHeaderNames.CONNECTION, "keep-alive");
        assertThat(text(refusalOf(req))).contains("Connection header does not name 'Upgrade'");
    }

    @Test
    void anUpgradeWithoutItsKeyIs400NamingTheKey() {
        FullHttpRequest req = upgrade("/worktarget/v1", "Bearer good-token", "daemon");
        req.headers().remove(HttpHeaderNames.SEC_WEBSOCKET_KEY);
        assertThat(text(refusalOf(req))).contains("no 'Sec-WebSocket-Key' header");
    }

    @Test
    void anUpgradeWithoutAVersionIs400NamingTheVersionNotAnOriginHeader() {
        FullHttpRequest req = upgrade("/worktarget/v1", "Bearer good-token", "daemon");
        req.headers().remove(HttpHeaderNames.SEC_WEBSOCKET_VERSION);
        assertThat(text(refusalOf(req))).contains("no 'Sec-WebSocket-Version' header", "Sec-WebSocket-Version: 13")
                .doesNotContainIgnoringCase("origin");
    }

    @Test
    void headerValuesAreMatchedWithoutRegardToCase() {
        EmbeddedChannel ch = new EmbeddedChannel(new HandshakeAuthHandler("/worktarget/v1", AUTH));
        FullHttpRequest req = upgrade("/worktarget/v1", "Bearer good-token", "daemon");
        req.headers().set(HttpHeaderNames.UPGRADE, "WebSocket").set(HttpHeaderNames.CONNECTION, "UPGRADE");
        ch.writeInbound(req);
        FullHttpRequest passed = ch.readInbound();
        assertThat(passed).isNotNull();
        passed.release();
        ch.finishAndReleaseAll();
    }
}
