package org.vancetope.worktarget.backend.daemon.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 * One client connection after its {@code hello} was accepted: who it is, its manifest, and the
 * invocations sent on it. A result is matched only against this connection's pending calls, so a
 * result arriving on another connection can never complete a call. Thread-safe.
 */
public final class ServerConnection implements Endpoint {
    private static final Logger LOG = LoggerFactory.getLogger(ServerConnection.class);

    private final NettyFrameChannel frames;
    private final Message.Hello hello;
    private final AuthPrincipal principal;
    private final Instant connectedAt;
    private final boolean sendContext;
    private final boolean sendProcessEnd;
    private final Ids ids;
    private final PeerKey key;
    private final int maxFrameBytes;
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private volatile List<ToolSpec> manifest;
    private volatile boolean closed;
    private volatile int silentIntervals;

    private static final class Pending {
        final CompletableFuture<Map<String, Object>> future = new CompletableFuture<>();
        final String tool;

        Pending(String tool) {
            this.tool = tool;
        }
    }

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
        this.maxFrameBytes = maxFrameBytes;
        this.hello = hello;
        this.principal = principal;
        this.sendContext = capabilities.contains(Wire.CAP_INVOKE_CONTEXT);
        this.sendProcessEnd = capabilities.contains(Wire.CAP_PROCESS_END);
        this.ids = ids;
        this.key = Wire.PROFILE_DAEMON.equals(hello.profile())
                ? new DaemonKey(hello.tenant(), hello.project(), hello.daemonName())
                : new SessionKey(hello.tenant(), hello.sessionId());
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

    @Override
    public String describe() {
        return key.describe();
    }

    @Override
    public Optional<FrameChannel<String>> transferChannel() {
        return closed ? Optional.empty() : Optional.of(frames);
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
        return !closed && silentIntervals >= 2;
    }

    /**
     * Whether the connection is closed or closing.
     *
     * @return whether the connection is closed or closing
     */
    public boolean isClosed() {
        return closed;
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
                isStale() ? ConnectionInfo.State.STALE : ConnectionInfo.State.ONLINE, pending.size(),
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
        String prefix = key instanceof DaemonKey ? "dt-" : "ct-";
        String peer = key.describe();
        if (frames.channel().eventLoop().inEventLoop()) {
            throw new IllegalStateException("invoke must not be called on an I/O thread; it blocks");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        if (closed) {
            throw offline(peer);
        }
        awaitWritable(peer, tool, deadline);
        String id = ids.next(prefix);
        Channel ch = frames.channel();
        long remaining = Math.max(1, deadline - System.nanoTime());
        Message.Invoke invoke = new Message.Invoke(id, tool, params, Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)),
                sendContext ? context : null);
        ByteBuf frame = encode(invoke, peer, ch);
        Pending call = new Pending(tool);
        pending.put(id, call);
        if (closed) {
            pending.remove(id);
            frame.release();
            throw offline(peer);
        }
        ch.writeAndFlush(new TextWebSocketFrame(frame)).addListener(f -> {
            if (!f.isSuccess()) {
                fail(id, new ToolException(ErrorCode.OFFLINE, "Could not send " + tool + " to " + peer
                        + ": the connection failed. Retry when it is back, or switch the work target."));
            }
        });
        // The caller blocks anyway, so it keeps the deadline itself: no timer task per call on the event loop.
        try {
            return call.future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            if (pending.remove(id) != null) {
                sendCancel(id);
                throw new ToolException(ErrorCode.TIMEOUT, "The call of " + tool + " on " + peer + " did not finish within "
                        + timeout.toMillis() + " ms; it was cancelled on the peer. For long-running commands start a "
                        + "background job and poll it, or retry with a smaller request.");
            }
            return outcome(call, peer);     // the result won the race with the deadline
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (pending.remove(id) != null) {
                sendCancel(id);
            }
            throw new ToolException(ErrorCode.CANCELLED, "The call of " + tool + " on " + peer
                    + " was cancelled because the calling thread was interrupted; the peer was asked to stop it.");
        } catch (ExecutionException e) {
            throw failure(e, tool, peer);
        }
    }

    /**
     * The invocation frame, measured before anything is sent: a call whose frame would pass the limit
     * fails alone, and the connection (with every other call on it) is untouched.
     */
    private ByteBuf encode(Message.Invoke invoke, String peer, Channel ch) throws ToolException {
        try {
            return Wire.encode(invoke, ch.alloc(), maxFrameBytes);
        } catch (FrameTooLargeException e) {
            LOG.info("Refused call {} of {} on connection {}: its frame would exceed {} bytes", invoke.correlationId(),
                    invoke.name(), id(), maxFrameBytes);
            throw new ToolException(ErrorCode.SIZE_LIMIT, invoke.name() + " was not sent to " + peer + ": its parameters "
                    + "make a message larger than " + Wire.describeBytes(maxFrameBytes) + ", the limit of one message on "
                    + "the connection (maxFrameBytes). Nothing ran. Send less per call; to put a large file there, write "
                    + "it on the WORK target and copy it with client_file_download, which moves files of any size in "
                    + "chunks.");
        } catch (Throwable e) {
            LOG.error("Could not encode call {} of {} for connection {}", invoke.correlationId(), invoke.name(), id(), e);
            throw new ToolException(ErrorCode.INTERNAL, invoke.name() + " was not sent to " + peer + ": its parameters "
                    + "could not be encoded (" + e.getClass().getSimpleName() + "). Nothing ran. Pass plain JSON values "
                    + "only (strings, numbers, booleans, lists, objects).", e);
        }
    }

    /** The outcome of a call whose future is complete or about to be (its pending entry is gone). */
    private static Map<String, Object> outcome(Pending call, String peer) throws ToolException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return call.future.get();
                } catch (InterruptedException e) {
                    interrupted = true;     // completion is imminent: whoever removed the entry completes it
                } catch (ExecutionException e) {
                    throw failure(e, call.tool, peer);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static ToolException failure(ExecutionException e, String tool, String peer) {
        if (e.getCause() instanceof ToolException te) {
            return te;
        }
        return new ToolException(ErrorCode.INTERNAL, "The call of " + tool + " on " + peer + " failed unexpectedly.",
                e.getCause());
    }

    private void awaitWritable(String peer, String tool, long deadline) throws ToolException {
        if (frames.isWritable() || !frames.isOpen()) {
            return;
        }
        CompletableFuture<Void> writable = new CompletableFuture<>();
        frames.whenWritable(() -> writable.complete(null));
        try {
            writable.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ToolException(ErrorCode.CANCELLED, "The call of " + tool + " on " + peer
                    + " was cancelled before it was sent: the calling thread was interrupted.");
        } catch (TimeoutException e) {
            throw new ToolException(ErrorCode.TIMEOUT, "The connection to " + peer + " stayed congested, so " + tool
                    + " could not even be sent before its timeout. Retry later.");
        } catch (ExecutionException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Tells the peer that a process ended, when it negotiated {@code process.end}; a peer without it is
     * not told (it frees a process's jobs by its own idle expiry).
     *
     * @param process the process
     * @return true when the frame was sent
     */
    public boolean processEnded(ToolContext process) {
        if (closed || !sendProcessEnd) {
            return false;
        }
        Channel ch = frames.channel();
        ch.writeAndFlush(new TextWebSocketFrame(Wire.encode(new Message.ProcessEnd(process), ch.alloc())));
        return true;
    }

    private void sendCancel(String id) {
        if (!closed) {
            Channel ch = frames.channel();
            ch.writeAndFlush(new TextWebSocketFrame(Wire.encode(new Message.Cancel(id), ch.alloc())));
        }
    }

    private void fail(String id, ToolException e) {
        Pending call = pending.remove(id);
        if (call != null) {
            call.future.completeExceptionally(e);
        }
    }

    /**
     * Completes the pending call a result belongs to; a result for an unknown (late, cancelled or
     * foreign) id is dropped and logged.
     *
     * @param result the result frame
     */
    public void complete(Message.Result result) {
        Pending call = pending.remove(result.correlationId());
        if (call == null) {
            LOG.info("Dropped a late or unknown client_tool_result {} on connection {}", result.correlationId(), id());
            return;
        }
        if (result.ok()) {
            call.future.complete(result.result());
        } else {
            ErrorCode code = ErrorCode.fromWire(result.errorCode()).orElse(ErrorCode.INTERNAL);
            call.future.completeExceptionally(new ToolException(code, result.errorMessage()));
        }
    }

    /**
     * Marks the connection closed and fails every pending call at once.
     *
     * @param code the code the calls fail with
     * @param message the message they fail with
     */
    public void failAll(ErrorCode code, String message) {
        closed = true;
        for (String id : new ArrayList<>(pending.keySet())) {
            fail(id, new ToolException(code, message));
        }
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
        return pending.size();
    }

    private static ToolException offline(String peer) {
        return new ToolException(ErrorCode.OFFLINE, "The connection to " + peer + " closed; the call did not run. "
                + "Reconnect it, or call work_target_set to switch to another target.");
    }
}
