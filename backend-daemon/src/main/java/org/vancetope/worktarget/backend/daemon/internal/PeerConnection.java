package org.vancetope.worktarget.backend.daemon.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.CancelledCall;
import org.vancetope.worktarget.core.internal.LogLimiter;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The calls of one open WorkTarget connection, in both directions, on either end. Outbound: an
 * invocation ({@code client_tool_invoke}) is sent and its caller waits for the result that completes
 * it ({@code client_tool_result}), or tells the peer to stop it ({@code client_tool_cancel}) when its
 * deadline passes or its thread is interrupted. Inbound: an invocation from the peer runs on a worker
 * pool and is answered exactly once; the peer's cancel interrupts it. The connection's frame channel is
 * also its transfer lane ({@link #frames()}). The server's {@link ServerConnection} sends calls on it,
 * the client connector's connection answers them; both sides use this one class.
 *
 * <p>Every message is measured against the connection's frame limit before it is sent: an invocation
 * too large fails its call with {@code size_limit} and a result too large is answered as a
 * {@code size_limit} error of its call, so the connection and every other call on it carry on. A result
 * is matched only against this connection's own pending calls. Thread-safe.
 */
public final class PeerConnection {
    private static final Logger LOG = LoggerFactory.getLogger(PeerConnection.class);

    private final NettyFrameChannel frames;
    private final Names names;
    private final Ids ids;
    private final boolean sendContext;
    private final int maxOutboundBytes;
    private final Consumer<CancelledCall> cancelHook;
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    private final Map<String, Running> running = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /**
     * How the two ends are named in the messages of failed calls.
     *
     * @param peer the other end, e.g. {@code daemon 'box' of project 'proj'}
     * @param self this end, e.g. {@code daemon}
     * @param idPrefix the prefix of the correlation ids of the calls this end sends, e.g. {@code dt-}
     */
    public record Names(String peer, String self, String idPrefix) {
        /** Validates. */
        public Names {
            Objects.requireNonNull(peer, "peer");
            Objects.requireNonNull(self, "self");
            Objects.requireNonNull(idPrefix, "idPrefix");
        }
    }

    private static final class Pending {
        final CompletableFuture<Map<String, Object>> future = new CompletableFuture<>();
        final String tool;

        Pending(String tool) {
            this.tool = tool;
        }
    }

    private static final class Running {
        final Message.Invoke invoke;
        final ToolContext context;
        final AtomicBoolean started = new AtomicBoolean();
        volatile Future<?> future;

        Running(Message.Invoke invoke, ToolContext context) {
            this.invoke = invoke;
            this.context = context;
        }
    }

    /**
     * The calls of an open connection.
     *
     * @param frames the connection's frame channel
     * @param names how the ends are named
     * @param ids the source of correlation ids for the calls this end sends
     * @param sendContext whether invocations carry the calling process (capability {@code invoke.context})
     * @param maxOutboundBytes the largest frame sent to the peer
     * @param cancelHook told of every inbound call cancelled by the peer or by the connection's close;
     *                   null for none
     */
    public PeerConnection(NettyFrameChannel frames, Names names, Ids ids, boolean sendContext, int maxOutboundBytes,
                          Consumer<CancelledCall> cancelHook) {
        this.frames = Objects.requireNonNull(frames, "frames");
        this.names = Objects.requireNonNull(names, "names");
        this.ids = Objects.requireNonNull(ids, "ids");
        this.sendContext = sendContext;
        this.maxOutboundBytes = maxOutboundBytes;
        this.cancelHook = cancelHook;
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
     * The connection's frame channel: its base-protocol frames and its transfer lane.
     *
     * @return the frame channel
     */
    public NettyFrameChannel frames() {
        return frames;
    }

    /**
     * Whether the connection closed ({@link #close}).
     *
     * @return whether the connection closed
     */
    public boolean isClosed() {
        return closed;
    }

    /**
     * The number of calls sent and waiting for their result.
     *
     * @return the number of outbound calls pending
     */
    public int pendingCalls() {
        return pending.size();
    }

    /**
     * The number of inbound calls accepted and not yet answered.
     *
     * @return the number of inbound calls running or queued
     */
    public int runningCalls() {
        return running.size();
    }

    // ---- outbound calls ----

    /**
     * Sends an invocation to the peer and waits for its result, on the caller's thread (never an I/O
     * thread).
     *
     * @param tool the tool name
     * @param params the parameters
     * @param context the calling process
     * @param timeout how long to wait
     * @return the result
     * @throws ToolException {@code offline} when the connection is or becomes closed, {@code size_limit}
     *         when the invocation is larger than a frame may be, {@code timeout}, {@code cancelled} when the
     *         calling thread is interrupted, or the tool's own failure
     * @throws IllegalStateException when called on the connection's I/O thread
     */
    public Map<String, Object> call(String tool, Map<String, Object> params, ToolContext context, Duration timeout)
            throws ToolException {
        String peer = names.peer();
        Channel ch = frames.channel();
        if (ch.eventLoop().inEventLoop()) {
            throw new IllegalStateException("call must not be made on an I/O thread; it blocks");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        if (closed) {
            throw offline(peer);
        }
        awaitWritable(peer, tool, deadline);
        String id = ids.next(names.idPrefix());
        long remaining = Math.max(1, deadline - System.nanoTime());
        Message.Invoke invoke = new Message.Invoke(id, tool, params, Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)),
                sendContext ? context : null);
        ByteBuf frame = encode(invoke, peer, ch);
        Pending call = register(id, tool, peer, frame);
        send(ch, frame, id, tool, peer);
        // The caller blocks anyway, so it keeps the deadline itself: no timer task per call on the event loop.
        try {
            return call.future.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            if (pending.remove(id) != null) {
                sendCancel(id);
                throw timedOut(tool, peer, timeout);
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
     * Sends an invocation to the peer without waiting: what {@link #call} does, for a caller that must
     * not hold a thread per call (a call forwarded from another server node). The deadline is kept by a
     * timer on the connection's event loop: when it passes, the call fails {@code timeout} and the peer
     * is told to stop it. Cancelling the returned future (a caller that gave up) removes the call and
     * tells the peer to stop it ({@code client_tool_cancel}); its late result is then dropped.
     *
     * @param tool the tool name
     * @param params the parameters
     * @param context the calling process
     * @param timeout how long the call may take
     * @return completes with the result, or exceptionally with a {@link ToolException} as {@link #call}
     *         throws it; completed on the connection's event loop or the calling thread
     */
    public CompletableFuture<Map<String, Object>> callAsync(String tool, Map<String, Object> params,
                                                            ToolContext context, Duration timeout) {
        String peer = names.peer();
        Channel ch = frames.channel();
        if (closed) {
            return CompletableFuture.failedFuture(offline(peer));
        }
        String id = ids.next(names.idPrefix());
        Message.Invoke invoke = new Message.Invoke(id, tool, params, Math.max(1, timeout.toMillis()),
                sendContext ? context : null);
        ByteBuf frame;
        Pending call;
        try {
            frame = encode(invoke, peer, ch);
            call = register(id, tool, peer, frame);
        } catch (ToolException e) {
            return CompletableFuture.failedFuture(e);
        }
        io.netty.util.concurrent.Future<?> timer = ch.eventLoop().schedule(() -> {
            if (pending.remove(id, call)) {
                sendCancel(id);
                call.future.completeExceptionally(timedOut(tool, peer, timeout));
            }
        }, Math.max(1, timeout.toNanos()), TimeUnit.NANOSECONDS);
        call.future.whenComplete((v, e) -> {
            timer.cancel(false);
            if (e instanceof java.util.concurrent.CancellationException && pending.remove(id, call)) {
                sendCancel(id);     // the caller gave up
            }
        });
        // a congested connection sends when it drains; the timer bounds the wait
        frames.whenWritable(() -> {
            if (!pending.containsKey(id)) {
                frame.release();
                return;
            }
            send(ch, frame, id, tool, peer);
        });
        return call.future;
    }

    /**
     * Registers a call as pending before its frame is sent; a connection that closed meanwhile fails it
     * {@code offline} and releases the frame (closing fails only the calls it finds registered).
     */
    private Pending register(String id, String tool, String peer, ByteBuf frame) throws ToolException {
        Pending call = new Pending(tool);
        pending.put(id, call);
        if (closed) {
            pending.remove(id);
            frame.release();
            throw offline(peer);
        }
        return call;
    }

    /** Writes a call's frame; a write that fails fails the call {@code offline}. */
    private void send(Channel ch, ByteBuf frame, String id, String tool, String peer) {
        ch.writeAndFlush(new TextWebSocketFrame(frame)).addListener(f -> {
            if (!f.isSuccess()) {
                fail(id, new ToolException(ErrorCode.OFFLINE, "Could not send " + tool + " to " + peer
                        + ": the connection failed. Retry when it is back, or switch the work target."));
            }
        });
    }

    private static ToolException timedOut(String tool, String peer, Duration timeout) {
        return new ToolException(ErrorCode.TIMEOUT, "The call of " + tool + " on " + peer + " did not finish within "
                + timeout.toMillis() + " ms; it was cancelled on the peer. For long-running commands start a "
                + "background job and poll it, or retry with a smaller request.");
    }

    /**
     * The invocation frame, measured before anything is sent: a call whose frame would pass the limit
     * fails alone, and the connection (with every other call on it) is untouched.
     */
    private ByteBuf encode(Message.Invoke invoke, String peer, Channel ch) throws ToolException {
        try {
            return Wire.encode(invoke, ch.alloc(), maxOutboundBytes);
        } catch (FrameTooLargeException e) {
            LOG.info("Refused call {} of {} on connection {}: its frame would exceed {} bytes", invoke.correlationId(),
                    invoke.name(), id(), maxOutboundBytes);
            throw new ToolException(ErrorCode.SIZE_LIMIT, invoke.name() + " was not sent to " + peer + ": its parameters "
                    + "make a message larger than " + Wire.describeBytes(maxOutboundBytes) + ", the limit of one message "
                    + "on the connection (maxFrameBytes). Nothing ran. Send less per call; to put a large file there, "
                    + "write it on the WORK target and copy it with client_file_download, which moves files of any size "
                    + "in chunks.");
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

    private void sendCancel(String id) {
        if (!closed) {
            send(new Message.Cancel(id));
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
            LOG.info("Dropped a late or unknown client_tool_result {} on connection {}",
                    LogLimiter.printable(result.correlationId()), id());
            return;
        }
        if (result.ok()) {
            call.future.complete(result.result());
        } else {
            ErrorCode code = ErrorCode.fromWire(result.errorCode()).orElse(ErrorCode.INTERNAL);
            call.future.completeExceptionally(new ToolException(code, result.errorMessage()));
        }
    }

    // ---- inbound calls ----

    /**
     * Runs an invocation from the peer on a worker and answers it once: with the tool's result, its
     * failure, {@code cancelled} when the peer cancelled it before it started, or {@code offline} when the
     * workers no longer take work.
     *
     * @param invoke the invocation
     * @param tool the tool it names
     * @param context the calling process
     * @param workers where the tool runs (never the I/O thread)
     */
    public void answer(Message.Invoke invoke, BackendTool tool, ToolContext context, Executor workers) {
        Running r = new Running(invoke, context);
        if (running.putIfAbsent(invoke.correlationId(), r) != null) {
            // the running call keeps its entry: its cancel and the connection's end still reach it
            refuse(invoke, ErrorCode.INVALID_PARAMS, "A call with correlationId '" + invoke.correlationId()
                    + "' is still running on this connection; every invocation needs an id of its own.");
            return;
        }
        FutureTask<Void> task = new FutureTask<>(() -> run(r, tool), null);
        r.future = task;
        try {
            workers.execute(task);
        } catch (RejectedExecutionException e) {
            running.remove(invoke.correlationId());
            if (workers instanceof java.util.concurrent.ThreadPoolExecutor pool && !pool.isShutdown()) {
                refuse(invoke, ErrorCode.SIZE_LIMIT, "The " + names.self() + " runs " + pool.getActiveCount()
                        + " calls and has " + pool.getQueue().size() + " more waiting for a worker, as many as it "
                        + "queues; this one was not run. Retry when calls have ended (or cancel some).");
            } else {
                refuse(invoke, ErrorCode.OFFLINE, "The " + names.self() + " is shutting down; retry when it is back.");
            }
        }
    }

    /**
     * Answers an invocation with an error without running anything, e.g. for a tool this end does not offer.
     *
     * @param invoke the invocation
     * @param code the error code
     * @param message the message, saying what to do
     */
    public void refuse(Message.Invoke invoke, ErrorCode code, String message) {
        send(new Message.Result(invoke.correlationId(), false, null, code.wire(), message));
    }

    private void run(Running r, BackendTool tool) {
        if (!r.started.compareAndSet(false, true)) {
            return;
        }
        Message.Invoke inv = r.invoke;
        Message.Result result;
        boolean cancelled;
        try {
            Map<String, Object> out = tool.invoke(inv.params(), r.context);
            result = new Message.Result(inv.correlationId(), true, out == null ? Map.of() : out, null, null);
        } catch (ToolException e) {
            result = new Message.Result(inv.correlationId(), false, null, e.code().wire(), e.getMessage());
        } catch (Throwable e) {
            // Errors too (StackOverflowError, OutOfMemoryError): every invocation gets its one answer
            LOG.error("Tool {} failed unexpectedly on call {}", inv.name(), inv.correlationId(), e);
            result = internal(inv, "failed unexpectedly (" + e.getClass().getSimpleName() + ")");
        } finally {
            // a cancel (or the connection's close) removed the entry: the caller forgot the call already
            cancelled = running.remove(inv.correlationId()) == null;
        }
        if (cancelled) {
            LOG.debug("Not answering call {} of {}: it was cancelled while it ran", inv.correlationId(), inv.name());
            return;
        }
        sendResult(inv, result);
    }

    /**
     * Holds the worker (never the heap) while the peer does not read what was sent: a result can be a
     * thousand times its invocation, so answering regardless would let a peer that stops reading fill this
     * end's memory. The calls behind wait in the bounded queue of the workers. Gives up waiting after
     * {@value #WRITABLE_WAIT_SECONDS} s, when the connection closes, or when the worker is interrupted.
     */
    private void awaitWritable(Message.Invoke inv) {
        if (frames.isWritable() || !frames.isOpen()) {
            return;
        }
        java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1);
        frames.whenWritable(ready::countDown);
        try {
            if (!ready.await(WRITABLE_WAIT_SECONDS, java.util.concurrent.TimeUnit.SECONDS)) {
                LOG.warn("The {} has not read what this end sent for {} s; sending the result of call {} anyway",
                        names.peer(), WRITABLE_WAIT_SECONDS, inv.correlationId());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** How long a result waits for the connection to take more. */
    static final int WRITABLE_WAIT_SECONDS = 60;

    private Message.Result internal(Message.Invoke inv, String what) {
        return new Message.Result(inv.correlationId(), false, null, ErrorCode.INTERNAL.wire(), "The tool "
                + inv.name() + " " + what + ". See the " + names.self() + "'s log; retrying may not help.");
    }

    /**
     * Sends the answer to an invocation, measured before it is sent: a result larger than the frame
     * limit is answered as a {@code size_limit} error of that call instead, so the connection and
     * every other call on it carry on.
     */
    private void sendResult(Message.Invoke inv, Message.Result result) {
        awaitWritable(inv);
        Channel channel = frames.channel();
        int limit = maxOutboundBytes;
        ByteBuf frame;
        try {
            frame = Wire.encode(result, channel.alloc(), limit);
        } catch (FrameTooLargeException e) {
            LOG.warn("The result of {} (call {}) is larger than {} bytes; answering size_limit", inv.name(),
                    inv.correlationId(), limit);
            frame = Wire.encode(new Message.Result(inv.correlationId(), false, null, ErrorCode.SIZE_LIMIT.wire(),
                    "The result of " + inv.name() + " is larger than " + Wire.describeBytes(limit) + ", the limit "
                            + "of one message on the connection (maxFrameBytes), so it was not sent back; the tool "
                            + "itself ran. Ask for less per call: a narrower path or pathGlob, a lower limit, fewer "
                            + "context lines, or a window of a file (startLine, maxLines)."), channel.alloc());
        } catch (Throwable e) {
            LOG.error("The result of {} (call {}) cannot be encoded", inv.name(), inv.correlationId(), e);
            frame = Wire.encode(internal(inv, "returned a result that cannot be sent ("
                    + e.getClass().getSimpleName() + ")"), channel.alloc());
        }
        if (channel.isActive()) {
            channel.writeAndFlush(new TextWebSocketFrame(frame));
        } else {
            frame.release();
        }
    }

    /**
     * The peer cancelled an inbound call: its worker is interrupted, the cancel hook is told, and a call
     * that had not started yet is answered {@code cancelled}; a call that was running is not answered
     * (the peer forgot it when it cancelled). A cancel for a call that finished or was never sent is
     * ignored.
     *
     * @param correlationId the call's correlation id
     */
    public void cancelled(String correlationId) {
        Running r = running.remove(correlationId);
        if (r == null) {
            LOG.debug("Cancel for {} which is not running (finished or unknown)", correlationId);
            return;
        }
        cancel(r, true);
    }

    private void cancel(Running r, boolean answer) {
        Message.Invoke inv = r.invoke;
        LOG.info("Cancelling {} ({})", inv.correlationId(), inv.name());
        boolean notStarted = r.started.compareAndSet(false, true);
        Future<?> f = r.future;
        if (f != null) {
            f.cancel(true);
        }
        if (cancelHook != null) {
            try {
                cancelHook.accept(new CancelledCall(inv.correlationId(), inv.name(), inv.params(), r.context));
            } catch (RuntimeException e) {
                LOG.warn("The cancel hook failed for {}", inv.correlationId(), e);
            }
        }
        if (notStarted && answer) {
            refuse(inv, ErrorCode.CANCELLED, "The call was cancelled before it started.");
        }
    }

    // ---- both ----

    /**
     * Sends a frame of the base protocol, when the connection is still active.
     *
     * @param message the message
     */
    public void send(Message message) {
        Channel ch = frames.channel();
        if (ch.isActive()) {
            ch.writeAndFlush(new TextWebSocketFrame(Wire.encode(message, ch.alloc())));
        }
    }

    /**
     * Marks the connection closed: every outbound call fails at once with the code and message, and
     * every inbound call is cancelled (interrupted, told to the cancel hook, not answered).
     *
     * @param code the code the outbound calls fail with
     * @param message the message they fail with
     */
    public void close(ErrorCode code, String message) {
        closed = true;
        for (String id : new ArrayList<>(pending.keySet())) {
            fail(id, new ToolException(code, message));
        }
        for (String id : new ArrayList<>(running.keySet())) {
            Running r = running.remove(id);
            if (r != null) {
                cancel(r, false);
            }
        }
    }

    private static ToolException offline(String peer) {
        return new ToolException(ErrorCode.OFFLINE, "The connection to " + peer + " closed; the call did not run. "
                + "Reconnect it, or call work_target_set to switch to another target.");
    }
}
