package org.vancetope.worktarget.backend.daemon.internal;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.FrameExtension;
import org.vancetope.worktarget.core.internal.LogLimiter;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.ErrorCode;

/**
 * The server's per-connection frame handler, last in the pipeline: waits for {@code hello} (10 s),
 * validates it against the authenticated principal, answers {@code welcome}, registers the
 * connection, then routes results, manifests and extension frames. The steps both ends share (UTF-8
 * check, decoding, {@code bad_frame} answers against the protocol-error budget, the extension
 * hand-off, pings, writability) are {@link FrameHandler}'s; the server's budget closes with 1008.
 * It runs on the I/O thread and never runs tool work.
 */
public final class ServerConnectionHandler extends FrameHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ServerConnectionHandler.class);
    /** Refused hellos: a client may retry without end; one line per 10 s at its level, the others at DEBUG. */
    private static final LogLimiter REFUSALS = new LogLimiter(TimeUnit.SECONDS.toNanos(10), System::nanoTime);

    private enum State { HANDSHAKE, AWAITING_HELLO, OPEN, CLOSING }

    private final ServerCore core;
    private final ServerSettings settings;
    private State state = State.HANDSHAKE;
    private ScheduledFuture<?> helloTimer;
    private ServerConnection connection;
    private boolean detached;
    /** The size of the text frame being handled. */
    private int textBytes;
    /** The manifest bytes this connection took from the server's budget. */
    private long manifestBytes;
    /** The subject whose connection count this connection holds ({@link ServerCore#takeSubjectConnection}), or null. */
    private String subjectHeld;
    /** The subject whose count of connections before hello this one holds ({@link ServerCore#takePendingSubject}). */
    private String pendingHeld;
    /** Lines this connection's peer causes as often as it likes: one per 10 s at their level, the others at DEBUG. */
    private final LogLimiter peerLines = new LogLimiter(TimeUnit.SECONDS.toNanos(10), System::nanoTime);

    /**
     * Creates the handler of one connection.
     *
     * @param core the server core
     */
    public ServerConnectionHandler(ServerCore core) {
        super(new ProtocolErrorBudget(core.settings().protocolErrorLimit(),
                core.settings().protocolErrorWindow().toNanos(), core.settings().nanoClock()),
                core.settings().silentIntervalsBeforeClose());
        this.core = core;
        this.settings = core.settings();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof WebSocketServerProtocolHandler.HandshakeComplete) {
            state = State.AWAITING_HELLO;
            AuthPrincipal principal = ctx.channel().attr(HandshakeAuthHandler.PRINCIPAL).get();
            if (principal != null) {
                if (!core.takePendingSubject(principal.subject())) {
                    REFUSALS.warn(LOG, "Refusing a connection from {}: subject {} holds {} connections that have not "
                            + "sent hello yet, as many as it may (maxConnectionsPerSubject)", ctx.channel().remoteAddress(),
                            principal.subject(), settings.maxConnectionsPerSubject());
                    refuse(ctx, ErrorCode.SIZE_LIMIT, "The token of '" + principal.subject() + "' holds as many "
                            + "connections waiting to send hello as it may (" + settings.maxConnectionsPerSubject()
                            + ", maxConnectionsPerSubject). Send hello on those, or close them; this client retries "
                            + "later.", Wire.CLOSE_TRY_AGAIN_LATER);
                    return;
                }
                pendingHeld = principal.subject();
            }
            helloTimer = ctx.executor().schedule(() -> helloTimedOut(ctx), settings.helloTimeout().toNanos(),
                    TimeUnit.NANOSECONDS);
        } else {
            super.userEventTriggered(ctx, evt);
        }
    }

    @Override
    protected boolean reading() {
        return state != State.CLOSING;
    }

    @Override
    protected boolean watchingSilence() {
        return state != State.HANDSHAKE && state != State.CLOSING;
    }

    @Override
    protected void silentIntervals(int intervals) {
        if (connection != null) {
            connection.silentIntervals(intervals);
        }
    }

    @Override
    protected void silenceLimitReached(ChannelHandlerContext ctx, int intervals) {
        LOG.info("Closing {}: no traffic for {} ping intervals", ctx.channel(), intervals);
        close(ctx, Wire.CLOSE_GOING_AWAY, "no traffic");
    }

    @Override
    protected String binaryFrameRefusal() {
        return "Binary frames are only allowed after the capability 'transfer.binary' was negotiated, and it was "
                + "not. Send JSON text frames.";
    }

    @Override
    protected FrameExtension extension() {
        return settings.extension();
    }

    @Override
    protected NettyFrameChannel frames() {
        return connection == null ? null : connection.frames();
    }

    @Override
    protected boolean admitText(ChannelHandlerContext ctx, int bytes) {
        textBytes = bytes;
        if (state == State.AWAITING_HELLO && bytes > settings.maxManifestBytes()) {
            // refused before it is parsed: the one frame allowed now is hello, and a hello is mostly its manifest
            refuse(ctx, ErrorCode.SIZE_LIMIT, manifestTooLarge("hello", bytes), Wire.CLOSE_BAD_FRAME);
            return false;
        }
        return true;
    }

    private String manifestTooLarge(String frame, int bytes) {
        return "The " + frame + " frame is " + bytes + " bytes; this server takes a tool manifest of at most "
                + settings.maxManifestBytes() + " bytes (the whole frame). Serve fewer tools or shorter schemas and "
                + "descriptions, or ask the operator to raise maxManifestBytes.";
    }

    @Override
    protected void onMessage(ChannelHandlerContext ctx, Message m) {
        if (state == State.AWAITING_HELLO) {
            if (m instanceof Message.Hello h) {
                onHello(ctx, h);
            } else {
                refuse(ctx, ErrorCode.BAD_FRAME, "The first frame must be 'hello', got '" + m.type() + "'.",
                        Wire.CLOSE_BAD_FRAME);
            }
            return;
        }
        if (m instanceof Message.Result r) {
            connection.complete(r);
        } else if (m instanceof Message.ToolManifest t) {
            replaceManifest(ctx, t);
        } else if (m instanceof Message.ErrorFrame e) {
            peerLines.info(LOG, "Connection {} reported an error: {} {}", connection.id(), LogLimiter.printable(e.code()),
                    LogLimiter.printable(e.message()));
        } else if (m instanceof Message.Other o) {
            if (!handOff(ctx, settings.extension(), o)) {
                badFrame(ctx, "Unknown frame type '" + o.type() + "'.");
            }
        } else {
            badFrame(ctx, "A client must not send '" + m.type() + "' frames"
                    + (m instanceof Message.Hello ? " after welcome." : "."));
        }
    }

    private void replaceManifest(ChannelHandlerContext ctx, Message.ToolManifest t) {
        int bytes = textBytes;
        if (bytes > settings.maxManifestBytes()) {
            badFrame(ctx, manifestTooLarge("tool_manifest", bytes) + " The connection keeps its manifest.");
            return;
        }
        if (bytes > manifestBytes && !core.takeManifestBytes(bytes - manifestBytes)) {
            peerLines.warn(LOG, "Connection {} keeps its manifest: the new one ({} bytes) does not fit the server's manifest "
                    + "budget ({} bytes for every connection, {} held)", connection.id(), bytes,
                    settings.manifestBudgetBytes(), core.manifestBytesHeld());
            ctx.writeAndFlush(new TextWebSocketFrame(Wire.encode(new Message.ErrorFrame(ErrorCode.SIZE_LIMIT.wire(),
                    budgetFull(bytes) + " The connection keeps its manifest."), ctx.alloc())));
            return;
        }
        if (bytes < manifestBytes) {
            core.releaseManifestBytes(manifestBytes - bytes);
        }
        manifestBytes = bytes;
        connection.replaceManifest(t.tools());
        core.peers().manifestChanged(connection);
        peerLines.info(LOG, "Connection {} replaced its manifest ({} tools)", connection.id(), t.tools().size());
    }

    private String budgetFull(int bytes) {
        return "The server holds as many tool manifests as its memory allows (manifestBudgetBytes "
                + settings.manifestBudgetBytes() + ", " + core.manifestBytesHeld() + " held); this one of " + bytes
                + " bytes does not fit. Try again later, or ask the operator to raise manifestBudgetBytes.";
    }

    private void onHello(ChannelHandlerContext ctx, Message.Hello h) {
        if (helloTimer != null) {
            helloTimer.cancel(false);
        }
        releasePending();
        AuthPrincipal principal = ctx.channel().attr(HandshakeAuthHandler.PRINCIPAL).get();
        String profile = ctx.channel().attr(HandshakeAuthHandler.PROFILE).get();
        if (h.protocolVersion() != Wire.PROTOCOL_VERSION) {
            refuse(ctx, ErrorCode.BAD_FRAME, "Protocol version " + h.protocolVersion() + " is not supported; this "
                    + "server speaks version " + Wire.PROTOCOL_VERSION + ".", Wire.CLOSE_UNSUPPORTED_VERSION);
            return;
        }
        if (!profile.equals(h.profile())) {
            refuse(ctx, ErrorCode.BAD_FRAME, "hello.profile '" + h.profile() + "' does not match the header "
                    + Wire.PROFILE_HEADER + " '" + profile + "'.", Wire.CLOSE_BAD_FRAME);
            return;
        }
        boolean daemon = Wire.PROFILE_DAEMON.equals(profile);
        String missing = h.tenant() == null || h.tenant().isBlank() ? "tenant"
                : daemon && (h.project() == null || h.project().isBlank()) ? "project"
                : daemon && h.daemonName() == null ? "daemonName"
                : !daemon && (h.sessionId() == null || h.sessionId().isBlank()) ? "sessionId" : null;
        if (missing != null) {
            refuse(ctx, ErrorCode.BAD_FRAME, "hello of a " + profile + " needs '" + missing + "'.", Wire.CLOSE_BAD_FRAME);
            return;
        }
        // tenant and project name directories and registry keys: the one segment rule, before any grant is looked up
        String unsafe = Segments.problem(h.tenant()) != null
                ? Segments.message("hello.tenant", Segments.problem(h.tenant()))
                : h.project() != null ? Segments.projectMessage("hello.project", h.project()) : null;
        if (unsafe != null) {
            refuse(ctx, ErrorCode.BAD_FRAME, unsafe + " Use the name the server's token grants.", Wire.CLOSE_BAD_FRAME);
            return;
        }
        if (daemon && !DaemonKey.isValidName(h.daemonName())) {
            refuse(ctx, ErrorCode.BAD_FRAME, "Daemon names are " + DaemonKey.NAME_RULE + "; got '" + h.daemonName()
                    + "'.", Wire.CLOSE_BAD_FRAME);
            return;
        }
        if (!principal.mayServe(h.tenant(), h.project())) {
            REFUSALS.warn(LOG, "Refusing the {} from {} with {} (forbidden): the token of '{}' grants tenant '{}' and projects {}, "
                    + "it asked for {}. Give the token that project (or \"*\") in the tokens file, or connect with a "
                    + "project it grants", daemon ? "daemon '" + h.daemonName() + "'" : "foot", ctx.channel().remoteAddress(),
                    Wire.CLOSE_FORBIDDEN, principal.subject(), principal.tenant(), principal.projects(),
                    h.project() == null ? "tenant '" + h.tenant() + "'" : "project '" + h.project() + "' of tenant '"
                    + h.tenant() + "'");
            refuse(ctx, ErrorCode.FORBIDDEN, "The token of '" + principal.subject() + "' does not grant "
                    + (h.project() == null ? "tenant '" + h.tenant() + "'" : "project '" + h.project() + "' of tenant '"
                    + h.tenant() + "'") + ".", Wire.CLOSE_FORBIDDEN);
            return;
        }
        int outbound = Math.min(settings.maxFrameBytes(), Wire.PROTOCOL_MAX_FRAME_BYTES);
        Object announced = h.limits().get(Wire.LIMIT_MAX_FRAME_BYTES);
        if (announced != null) {
            if (!(announced instanceof Number n) || n.longValue() < Wire.MIN_FRAME_BYTES) {
                refuse(ctx, ErrorCode.BAD_FRAME, "hello.limits." + Wire.LIMIT_MAX_FRAME_BYTES + " must be a number of "
                        + "at least " + Wire.MIN_FRAME_BYTES + " bytes (or left out); got " + announced + ".",
                        Wire.CLOSE_BAD_FRAME);
                return;
            }
            outbound = (int) Math.min(outbound, n.longValue());
        }
        if (!core.takeManifestBytes(textBytes)) {
            REFUSALS.warn(LOG, "Refusing the {} from {}: its manifest ({} bytes) does not fit the server's manifest budget ({} "
                    + "bytes for every connection, {} held)", profile, ctx.channel().remoteAddress(), textBytes,
                    settings.manifestBudgetBytes(), core.manifestBytesHeld());
            refuse(ctx, ErrorCode.SIZE_LIMIT, budgetFull(textBytes), Wire.CLOSE_TRY_AGAIN_LATER);
            return;
        }
        manifestBytes = textBytes;
        Set<String> caps = new LinkedHashSet<>(h.capabilities());
        caps.retainAll(settings.capabilities());
        String id = core.ids().next("c-");
        // invocations are held to the smallest of our limit, the protocol's and the one the client announced
        connection = new ServerConnection(new NettyFrameChannel(ctx.channel(), id, caps, outbound, h.limits()), h, principal,
                caps, core.ids(), outbound);
        ServerConnection open = core.peers().connection(connection.key()).orElse(null);
        boolean replacing = open != null && !open.isClosed() && open.principal().subject().equals(principal.subject());
        if (!core.takeSubjectConnection(principal.subject(), replacing)) {
            connection = null;
            REFUSALS.warn(LOG, "Refusing the {} from {}: subject {} holds {} connections, as many as it may "
                    + "(maxConnectionsPerSubject)", profile, ctx.channel().remoteAddress(), principal.subject(),
                    core.subjectConnections(principal.subject()));
            refuse(ctx, ErrorCode.SIZE_LIMIT, "The token of '" + principal.subject() + "' holds as many connections "
                    + "to this server as it may (" + settings.maxConnectionsPerSubject() + ", maxConnectionsPerSubject). "
                    + "Close one, or ask the operator to raise the cap; this client retries later.",
                    Wire.CLOSE_TRY_AGAIN_LATER);
            return;
        }
        subjectHeld = principal.subject();
        state = State.OPEN;
        // register first: invokes from other threads are queued behind this task, so welcome still goes first,
        // and a client that saw welcome always finds itself registered
        ServerConnection holder = core.peers().register(connection);
        if (holder != null) {
            connection = null;
            REFUSALS.warn(LOG, "Refusing the foot of session '{}' of tenant '{}' from {} (subject {}): the session is served by "
                    + "connection {} of subject {}", LogLimiter.printable(h.sessionId()), h.tenant(),
                    ctx.channel().remoteAddress(), principal.subject(), holder.id(), holder.principal().subject());
            refuse(ctx, ErrorCode.FORBIDDEN, "The session '" + h.sessionId() + "' is served by a connection of "
                    + "another token's subject; a foot may only replace a connection of its own subject. Connect with "
                    + "the session id your host gave this user.", Wire.CLOSE_FORBIDDEN);
            return;
        }
        opened(settings.extension());
        ctx.writeAndFlush(new TextWebSocketFrame(Wire.encode(new Message.Welcome(Wire.PROTOCOL_VERSION, id, caps,
                settings.limits()), ctx.alloc())));
        LOG.info("Accepted {} {} of {} (subject {}) as connection {}", profile,
                LogLimiter.printable(String.valueOf(connection.key())), ctx.channel().remoteAddress(),
                principal.subject(), id);
    }

    private void helloTimedOut(ChannelHandlerContext ctx) {
        if (state == State.AWAITING_HELLO) {
            refuse(ctx, ErrorCode.BAD_FRAME, "No hello within " + settings.helloTimeout().toMillis() + " ms.",
                    Wire.CLOSE_HELLO_TIMEOUT);
        }
    }

    private void refuse(ChannelHandlerContext ctx, ErrorCode code, String message, int closeCode) {
        REFUSALS.info(LOG, "Refusing {}: {} {}", ctx.channel(), code.wire(), LogLimiter.printable(message));
        ctx.write(new TextWebSocketFrame(Wire.encode(new Message.ErrorFrame(code.wire(), message), ctx.alloc())));
        close(ctx, closeCode, code.wire());
    }

    @Override
    protected void close(ChannelHandlerContext ctx, int code, String reason) {
        state = State.CLOSING;
        detach();   // offline before the peer can see the close frame; pending calls fail now
        writeClose(ctx, code, reason);
    }

    /** Takes the connection out of service once: fails its pending calls, unregisters it, tells the extension. */
    private void releasePending() {
        if (pendingHeld != null) {
            core.releasePendingSubject(pendingHeld);
            pendingHeld = null;
        }
    }

    private void detach() {
        releasePending();
        core.releaseManifestBytes(manifestBytes);
        manifestBytes = 0;
        if (subjectHeld != null) {
            core.releaseSubjectConnection(subjectHeld);
            subjectHeld = null;
        }
        ServerConnection c = connection;
        if (c == null || detached) {
            return;
        }
        detached = true;
        c.failAll(ErrorCode.OFFLINE, "The connection to the " + c.hello().profile() + " closed before it answered; "
                + "the call may or may not have run there. Reconnect it, or call work_target_set to switch targets.");
        core.peers().unregister(c);
        c.frames().writabilityChanged();
        FrameExtension ext = settings.extension();
        if (ext != null) {
            try {
                ext.onClose(c.frames());
            } catch (RuntimeException e) {
                LOG.warn("The frame extension failed on close of connection {}", c.id(), e);
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        state = State.CLOSING;
        if (helloTimer != null) {
            helloTimer.cancel(false);
        }
        detach();
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (state == State.CLOSING) {
            LOG.debug("Ignoring a failure of closing {}: {}", ctx.channel(), cause.toString());
        } else if (cause instanceof CorruptedWebSocketFrameException c) {
            // e.g. a frame over maxFrameBytes: 1009; the decoder discards the rest of the stream
            LOG.info("Closing {}: {}", ctx.channel(), c.getMessage());
            close(ctx, c.closeStatus().code(), c.closeStatus().reasonText());
        } else if (cause instanceof TooLongFrameException) {
            LOG.info("Closing {}: a message exceeded {} bytes", ctx.channel(), settings.maxFrameBytes());
            close(ctx, Wire.CLOSE_TOO_BIG, "frame too big");
        } else {
            if (state == State.HANDSHAKE || PeerFailures.isNetwork(cause)) {
                // a reset, a broken pipe, bytes that are not TLS, or anything before the upgrade: a peer can cause
                // these at will, so one short line at DEBUG (the registry reports a daemon or foot going offline)
                LOG.debug("Closing {}: {}", ctx.channel(), PeerFailures.brief(cause));
            } else {
                LOG.warn("Closing {} after an unexpected failure", ctx.channel(), cause);
            }
            state = State.CLOSING;
            detach();
            ctx.close();
        }
    }
}
