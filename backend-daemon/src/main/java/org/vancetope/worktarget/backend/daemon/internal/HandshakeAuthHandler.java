package org.vancetope.worktarget.backend.daemon.internal;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.Authenticator;

/**
 * Checks the upgrade request before the WebSocket handshake (PROTOCOL.md §2): the path, the
 * {@code Authorization: Bearer} token through the {@link Authenticator}, and the
 * {@code X-WorkTarget-Profile} header. A refused request gets a plain HTTP answer (404, 401 or 400)
 * and the connection closes without an upgrade. On success the principal and profile are stored on
 * the channel and the handler removes itself.
 */
public final class HandshakeAuthHandler extends ChannelInboundHandlerAdapter {
    /** The authenticated principal of a channel. */
    public static final AttributeKey<AuthPrincipal> PRINCIPAL = AttributeKey.valueOf("worktarget.principal");
    /** The profile the upgrade request declared. */
    public static final AttributeKey<String> PROFILE = AttributeKey.valueOf("worktarget.profile");
    private static final Logger LOG = LoggerFactory.getLogger(HandshakeAuthHandler.class);

    private final String path;
    private final Authenticator authenticator;

    /**
     * Creates the handler.
     *
     * @param path the WebSocket path
     * @param authenticator the token check
     */
    public HandshakeAuthHandler(String path, Authenticator authenticator) {
        this.path = path;
        this.authenticator = authenticator;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest req)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            if (!path.equals(new QueryStringDecoder(req.uri()).path())) {
                refuse(ctx, HttpResponseStatus.NOT_FOUND, "Not found. The WorkTarget endpoint is " + path + ".");
                return;
            }
            String auth = req.headers().get(HttpHeaderNames.AUTHORIZATION);
            if (auth == null || !auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
                refuse(ctx, HttpResponseStatus.UNAUTHORIZED, "Missing 'Authorization: Bearer <token>' header.");
                return;
            }
            Optional<AuthPrincipal> principal;
            try {
                principal = authenticator.authenticate(auth.substring(7).trim());
            } catch (RuntimeException e) {
                LOG.warn("The authenticator failed; refusing the connection from {}", ctx.channel().remoteAddress(), e);
                principal = Optional.empty();
            }
            if (principal == null || principal.isEmpty()) {
                refuse(ctx, HttpResponseStatus.UNAUTHORIZED, "The token was rejected.");
                return;
            }
            String profile = req.headers().get(Wire.PROFILE_HEADER);
            profile = profile == null ? null : profile.trim().toLowerCase(Locale.ROOT);
            if (!Wire.PROFILE_FOOT.equals(profile) && !Wire.PROFILE_DAEMON.equals(profile)) {
                refuse(ctx, HttpResponseStatus.BAD_REQUEST, "Header " + Wire.PROFILE_HEADER + " must be 'foot' or 'daemon'.");
                return;
            }
            ctx.channel().attr(PRINCIPAL).set(principal.get());
            ctx.channel().attr(PROFILE).set(profile);
            ctx.pipeline().remove(this);
            ctx.fireChannelRead(ReferenceCountUtil.retain(req));
        } finally {
            req.release();
        }
    }

    private static void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String text) {
        LOG.info("Refused upgrade from {}: {} {}", ctx.channel().remoteAddress(), status.code(), text);
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(text + "\n", StandardCharsets.UTF_8));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, res.content().readableBytes());
        res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        if (status == HttpResponseStatus.UNAUTHORIZED) {
            res.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        }
        ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
    }
}
