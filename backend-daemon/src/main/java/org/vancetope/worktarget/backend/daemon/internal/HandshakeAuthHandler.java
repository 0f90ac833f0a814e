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
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.LogLimiter;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.Authenticator;

/**
 * Checks the upgrade request before the WebSocket handshake: the path, the
 * {@code Authorization: Bearer} token through the {@link Authenticator}, the
 * {@code X-WorkTarget-Profile} header, and that it is a WebSocket upgrade at all. A refused request gets a
 * plain HTTP answer (404, 401, 400 or 405) that says what to send, and the connection closes without an
 * upgrade. On success the principal and profile are stored on
 * the channel and the handler removes itself.
 *
 * <p>The whole upgrade request must arrive within the upgrade timeout, counted from the moment the
 * connection is accepted (TLS handshake included): a peer that sends its headers a byte at a time, or
 * nothing at all, gets HTTP 408 and is closed. Once the request passed, the WebSocket handshake and
 * then the hello timeout take over. Refusals are logged at INFO at most once per
 * {@link #REFUSAL_LOG_WINDOW} (the others at DEBUG, counted), timeouts at DEBUG: a peer without a token
 * can cause them at will.
 */
public final class HandshakeAuthHandler extends ChannelInboundHandlerAdapter {
    /** The authenticated principal of a channel. */
    public static final AttributeKey<AuthPrincipal> PRINCIPAL = AttributeKey.valueOf("worktarget.principal");
    /** The profile the upgrade request declared. */
    public static final AttributeKey<String> PROFILE = AttributeKey.valueOf("worktarget.profile");
    /**
     * The header on every refusal of an upgrade by a WorkTarget server, so a client tells it apart from
     * another service's HTTP error (a wrong port); its value is the endpoint's path.
     */
    public static final String SERVER_HEADER = "X-WorkTarget-Endpoint";
    /** The default of the upgrade timeout: 10 s for the whole upgrade request. */
    public static final Duration DEFAULT_UPGRADE_TIMEOUT = Duration.ofSeconds(10);
    /** At most one refusal (and one authenticator failure) per window is logged above DEBUG. */
    public static final Duration REFUSAL_LOG_WINDOW = Duration.ofSeconds(10);
    private static final Logger LOG = LoggerFactory.getLogger(HandshakeAuthHandler.class);
    private static final LogLimiter REFUSALS = new LogLimiter(REFUSAL_LOG_WINDOW.toNanos(), System::nanoTime);
    private static final LogLimiter AUTH_FAILURES = new LogLimiter(REFUSAL_LOG_WINDOW.toNanos(), System::nanoTime);

    private final String path;
    private final Authenticator authenticator;
    private final Duration upgradeTimeout;
    private ScheduledFuture<?> deadline;

    /**
     * Creates the handler with the default upgrade timeout.
     *
     * @param path the WebSocket path
     * @param authenticator the token check
     */
    public HandshakeAuthHandler(String path, Authenticator authenticator) {
        this(path, authenticator, DEFAULT_UPGRADE_TIMEOUT);
    }

    /**
     * Creates the handler.
     *
     * @param path the WebSocket path
     * @param authenticator the token check
     * @param upgradeTimeout how long the whole upgrade request may take from the accept
     */
    public HandshakeAuthHandler(String path, Authenticator authenticator, Duration upgradeTimeout) {
        this.path = path;
        this.authenticator = authenticator;
        this.upgradeTimeout = upgradeTimeout;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        deadline = ctx.executor().schedule(() -> timedOut(ctx), upgradeTimeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancelDeadline();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelDeadline();
        ctx.fireChannelInactive();
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    private void timedOut(ChannelHandlerContext ctx) {
        deadline = null;
        if (!ctx.channel().isActive() || ctx.isRemoved()) {
            return;
        }
        LOG.debug("Closing {}: no complete upgrade request within {} ms", ctx.channel(), upgradeTimeout.toMillis());
        SslHandler tls = ctx.pipeline().get(SslHandler.class);
        if (tls != null && !tls.handshakeFuture().isSuccess()) {
            ctx.close();    // no TLS yet: nothing can be answered
            return;
        }
        respond(ctx, HttpResponseStatus.REQUEST_TIMEOUT, "The whole upgrade request must arrive within "
                + upgradeTimeout.toMillis() + " ms.");
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest req)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (!ctx.channel().isActive()) {
            req.release();      // a request cut short by the peer's close: nobody to answer, nothing to log
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
                long folded = AUTH_FAILURES.tryLoud();
                if (folded >= 0) {
                    LOG.warn("The authenticator failed; refusing the connection from {}{}", ctx.channel().remoteAddress(),
                            folded > 0 ? " (and " + folded + " more since the last report)" : "", e);
                } else {
                    LOG.debug("The authenticator failed; refusing the connection from {}: {}",
                            ctx.channel().remoteAddress(), PeerFailures.brief(e));
                }
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
            String notAnUpgrade = notAnUpgrade(req);
            if (notAnUpgrade != null) {
                refuse(ctx, HttpMethod.GET.equals(req.method()) ? HttpResponseStatus.BAD_REQUEST
                        : HttpResponseStatus.METHOD_NOT_ALLOWED, notAnUpgrade);
                return;
            }
            ctx.channel().attr(PRINCIPAL).set(principal.get());
            ctx.channel().attr(PROFILE).set(profile);
            HttpGuards.ConnectionCap.trusted(ctx.channel());     // no longer counts against its address
            ctx.pipeline().remove(this);
            ctx.fireChannelRead(ReferenceCountUtil.retain(req));
        } finally {
            req.release();
        }
    }

    /**
     * Why an authenticated request is not a WebSocket upgrade (RFC 6455) the handshake can take, or null when it
     * is one. Left to the handshake, such a request got Netty's terse 400 (without the endpoint header), and one
     * without {@code Sec-WebSocket-Version} was taken for a pre-RFC handshake and refused for a missing
     * {@code Origin} header, which sends its client looking in the wrong place.
     */
    private String notAnUpgrade(FullHttpRequest req) {
        String open = " The WorkTarget endpoint " + path + " takes WebSocket connections only: connect with a WebSocket "
                + "client (a WorkTarget foot or daemon), which sends GET with 'Upgrade: websocket', 'Connection: "
                + "Upgrade', 'Sec-WebSocket-Key' and 'Sec-WebSocket-Version: 13'.";
        if (!HttpMethod.GET.equals(req.method())) {
            return "Method " + req.method() + " is not allowed." + open;
        }
        if (!req.headers().containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true)) {
            return "The request has no 'Upgrade: websocket' header." + open;
        }
        if (!req.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true)) {
            return "The request's Connection header does not name 'Upgrade'." + open;
        }
        if (!req.headers().contains(HttpHeaderNames.SEC_WEBSOCKET_KEY)) {
            return "The request has no 'Sec-WebSocket-Key' header." + open;
        }
        if (!req.headers().contains(HttpHeaderNames.SEC_WEBSOCKET_VERSION)) {
            return "The request has no 'Sec-WebSocket-Version' header." + open;
        }
        return null;
    }

    private void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String text) {
        long folded = REFUSALS.tryLoud();
        if (folded >= 0) {
            LOG.info("Refused upgrade from {}: {} {}{}", ctx.channel().remoteAddress(), status.code(), text,
                    folded > 0 ? " (" + folded + " more refusals since the last report, at DEBUG)" : "");
        } else {
            LOG.debug("Refused upgrade from {}: {} {}", ctx.channel().remoteAddress(), status.code(), text);
        }
        respond(ctx, status, text);
    }

    private void respond(ChannelHandlerContext ctx, HttpResponseStatus status, String text) {
        cancelDeadline();
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(text + "\n", StandardCharsets.UTF_8));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, res.content().readableBytes());
        res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        res.headers().set(SERVER_HEADER, path);
        if (status == HttpResponseStatus.UNAUTHORIZED) {
            res.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
        }
        if (status == HttpResponseStatus.METHOD_NOT_ALLOWED) {
            res.headers().set(HttpHeaderNames.ALLOW, HttpMethod.GET);
        }
        ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
    }
}
