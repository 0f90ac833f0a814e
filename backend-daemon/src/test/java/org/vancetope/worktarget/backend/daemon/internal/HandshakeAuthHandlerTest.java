package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
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
}
