package org.vancetope.worktarget.backend.daemon.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.vancetope.worktarget.backend.daemon.ConnectionInfo;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.FrameChannel;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * One client connection after its {@code hello} was accepted, as the server sees it: who the peer
 * is, its manifest and liveness, and the {@link Endpoint} its calls run on. The calls themselves are
 * the connection's {@link PeerConnection}, the class the client end uses too; a result is matched only
 * against this connection's pending calls, so a result arriving on another connection can never
 * complete a call. Thread-safe.
 */
public final class ServerConnection implements Endpoint {

    private final NettyFrameChannel frames;
    private final PeerConnection calls;
    private final Message.Hello hello;
    private final AuthPrincipal principal;
    private final Instant connectedAt;
    private final boolean sendProcessEnd;
    private final PeerKey key;
    private volatile List<ToolSpec> manifest;
    private volatile int silentIntervals;

    /**
     * Creates the connection state.
     *
     * @param frames the channel
     * @param hello the accepted hello
     * @param principal the authenticated principal
     * @param capabilities the capabilities negotiated with the peer
     * @param ids the id source
     * @param maxFrameBytes the largest frame sent to the peer; a larger invocation fails {@code size_limit}
     */
    public ServerConnection(NettyFrameChannel frames, Message.Hello hello, AuthPrincipal principal,
                            Set<String> capabilities, Ids ids, int maxFrameBytes) {
        this.frames = frames;
        this.hello = hello;
        this.principal = principal;
        this.sendProcessEnd = capabilities.contains(Wire.CAP_PROCESS_END);
        this.key = Wire.PROFILE_DAEMON.equals(hello.profile())
                ? new DaemonKey(hello.tenant(), hello.project(), hello.daemonName())
                : new SessionKey(hello.tenant(), hello.sessionId());
        this.calls = new PeerConnection(frames, new PeerConnection.Names(key.describe(), "server",
                key instanceof DaemonKey ? "dt-" : "ct-"), ids, capabilities.contains(Wire.CAP_INVOKE_CONTEXT),
                maxFrameBytes, null);
        this.manifest = hello.tools();
        this.connectedAt = Instant.now();
    }

    /**
     * The connection id.
     *
     * @return the connection id
     */
    public String id() {
        return frames.id();
    }

    /**
     * The frame channel.
     *
     * @return the frame channel
     */
    public NettyFrameChannel frames() {
        return frames;
    }

    /**
     * The peer's routing key: a {@link DaemonKey} for a daemon, a {@link SessionKey} for a foot.
     *
     * @return the key
     */
    public PeerKey key() {
        return key;
    }

    /**
     * The principal the connection authenticated as.
     *
     * @return the principal
     */
    public AuthPrincipal principal() {
        return principal;
    }

    @Override
    public String describe() {
        return key.describe();
    }

    @Override
    public Optional<FrameChannel<String>> transferChannel() {
        return calls.isClosed() ? Optional.empty() : Optional.of(frames);
    }

    /**
     * The accepted hello.
     *
     * @return the accepted hello
     */
    public Message.Hello hello() {
        return hello;
    }

    @Override
    public List<ToolSpec> manifest() {
        return manifest;
    }

    /**
     * Replaces the manifest.
     *
     * @param tools the new manifest
     */
    public void replaceManifest(List<ToolSpec> tools) {
        this.manifest = List.copyOf(tools);
    }

    /**
     * Records the liveness state: the number of ping intervals without any inbound traffic.
     *
     * @param intervals 0 after traffic arrived
     */
    public void silentIntervals(int intervals) {
        this.silentIntervals = intervals;
    }

    /**
     * Stale after two silent intervals: a ping went unanswered for a whole interval.
     *
     * @return true while the open connection is stale
     */
    @Override
    public boolean isStale() {
        return !calls.isClosed() && silentIntervals >= 2;
    }

    /**
     * Whether the connection is closed or closing.
     *
     * @return whether the connection is closed or closing
     */
    public boolean isClosed() {
        return calls.isClosed();
    }

    /**
     * A snapshot for listings.
     *
     * @return a snapshot for listings
     */
    public ConnectionInfo info() {
        return new ConnectionInfo(id(), hello.profile(), hello.tenant(), hello.project(), hello.daemonName(),
                hello.sessionId(), hello.clientName(), principal.subject(),
                String.valueOf(frames.channel().remoteAddress()), connectedAt,
                isStale() ? ConnectionInfo.State.STALE : ConnectionInfo.State.ONLINE, calls.pendingCalls(),
                manifest.stream().map(ToolSpec::name).toList());
    }

    /**
     * Sends an invocation to the peer and waits for its result, on the caller's thread (never an I/O
     * thread). Correlation ids start with {@code dt-} for a daemon, {@code ct-} for a foot.
     *
     * @param tool the tool name
     * @param params the parameters
     * @param context the calling process
     * @param timeout how long to wait
     * @return the result
     * @throws ToolException {@code offline} when the connection is or becomes closed, {@code timeout},
     *         {@code cancelled} when the calling thread is interrupted, or the tool's own failure
     */
    @Override
    public Map<String, Object> invoke(String tool, Map<String, Object> params, ToolContext context, Duration timeout)
            throws ToolException {
        checkGranted(context);
        return calls.call(tool, params, context, timeout);
    }

    /**
     * A peer serves only the projects its token grants: a foot is found by its session alone, and a process
     * of another project in that session must not reach it (nor see what it answers).
     */
    /**
     * Whether this peer's token grants the project of a calling process.
     *
     * @param context the calling process
     * @return true when the peer may serve it
     */
    public boolean mayServe(ToolContext context) {
        return principal.mayServe(context.tenant(), context.project());
    }

    private void checkGranted(ToolContext context) throws ToolException {
        if (!mayServe(context)) {
            throw new ToolException(ErrorCode.FORBIDDEN, "The " + (key instanceof DaemonKey ? "daemon" : "client")
                    + " connected for this session may not serve project '" + context.project() + "': its token "
                    + "grants " + new java.util.TreeSet<>(principal.projects()) + " of tenant '" + principal.tenant()
                    + "'. Connect a client whose token grants that project, or call from a process of a granted "
                    + "project; nothing was sent to the client.");
        }
    }

    /**
     * Sends a call to the peer without waiting for it (for a call forwarded from another server node):
     * see {@link PeerConnection#callAsync}.
     *
     * @param tool the tool name
     * @param params the parameters
     * @param context the calling process
     * @param timeout how long the call may take
     * @return the result, to come; cancel it to stop the call on the peer
     */
    public CompletableFuture<Map<String, Object>> invokeAsync(String tool, Map<String, Object> params,
                                                             ToolContext context, Duration timeout) {
        try {
            checkGranted(context);
        } catch (ToolException e) {
            return CompletableFuture.failedFuture(e);
        }
        return calls.callAsync(tool, params, context, timeout);
    }

    /**
     * Tells the peer that a process ended, when it negotiated {@code process.end}; a peer without it is
     * not told (it frees a process's jobs by its own idle expiry).
     *
     * @param process the process
     * @return true when the frame was sent
     */
    public boolean processEnded(ToolContext process) {
        if (calls.isClosed() || !sendProcessEnd) {
            return false;
        }
        calls.send(new Message.ProcessEnd(process));
        return true;
    }

    /**
     * Completes the pending call a result belongs to; a result for an unknown (late, cancelled or
     * foreign) id is dropped and logged.
     *
     * @param result the result frame
     */
    public void complete(Message.Result result) {
        calls.complete(result);
    }

    /**
     * Marks the connection closed and fails every pending call at once.
     *
     * @param code the code the calls fail with
     * @param message the message they fail with
     */
    public void failAll(ErrorCode code, String message) {
        calls.close(code, message);
    }

    /**
     * Tells the peer it was replaced and closes it; pending calls fail at once.
     *
     * @param peer how to name the peer in messages
     */
    public void supersede(String peer) {
        failAll(ErrorCode.SUPERSEDED, "A newer connection of " + peer + " replaced the one this call ran on; the call "
                + "may or may not have run there. Check its effect, then retry.");
        Channel ch = frames.channel();
        ch.write(new TextWebSocketFrame(Wire.encode(new Message.ErrorFrame(ErrorCode.SUPERSEDED.wire(),
                "A newer connection with the same name took over; this one is closed."), ch.alloc())));
        ch.writeAndFlush(new CloseWebSocketFrame(Wire.CLOSE_SUPERSEDED, "superseded"))
                .addListener(ChannelFutureListener.CLOSE);
    }

    /**
     * Tells the peer why it may not stay and closes it with a final code; pending calls fail at once.
     *
     * @param code the error code, for the calls and the peer
     * @param message what the peer is told, and what to do
     * @param closeCode the close code
     */
    public void refuse(ErrorCode code, String message, int closeCode) {
        failAll(code, message);
        Channel ch = frames.channel();
        ch.write(new TextWebSocketFrame(Wire.encode(new Message.ErrorFrame(code.wire(), message), ch.alloc())));
        ch.writeAndFlush(new CloseWebSocketFrame(closeCode, code.wire())).addListener(ChannelFutureListener.CLOSE);
    }

    /**
     * Closes the connection because the server shuts down: pending calls fail {@code offline} at once,
     * the peer gets close 1001 and may reconnect to another server.
     *
     * @return completes when the channel is closed
     */
    public io.netty.channel.ChannelFuture goAway() {
        failAll(ErrorCode.OFFLINE, "The server shut down while the call ran on " + hello.profile() + " "
                + (hello.daemonName() != null ? "'" + hello.daemonName() + "'" : "of session '" + hello.sessionId() + "'")
                + "; the call may or may not have run there. Retry when the server is back.");
        Channel ch = frames.channel();
        ch.writeAndFlush(new CloseWebSocketFrame(Wire.CLOSE_GOING_AWAY, "server shutdown"))
                .addListener(ChannelFutureListener.CLOSE);
        return ch.closeFuture();
    }

    /**
     * The number of calls waiting for a result.
     *
     * @return the number of calls waiting for a result
     */
    public int pendingCalls() {
        return calls.pendingCalls();
    }
}
