package org.vancetope.worktarget.backend.daemon.internal;

import java.util.LinkedHashSet;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientHandshakeException;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.ServerRefusedException;
import org.vancetope.worktarget.core.internal.LogLimiter;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The client connector's engine: connects, says hello, answers invocations on a worker pool (never
 * on the I/O thread), honours cancels, and reconnects with exponential back-off (each delay drawn at
 * random from the upper half of the current step) until closed or refused for good.
 */
public final class ClientSession {
    private static final Logger LOG = LoggerFactory.getLogger(ClientSession.class);
    private static final Set<Integer> FINAL_CLOSE_CODES = Set.of(Wire.CLOSE_BAD_FRAME, Wire.CLOSE_UNAUTHORIZED,
            Wire.CLOSE_FORBIDDEN, Wire.CLOSE_SUPERSEDED, Wire.CLOSE_UNSUPPORTED_VERSION);

    /** The source of correlation ids of the calls a client sends; today the server sends them all. */
    private static final Ids IDS = new Ids();
    /** How many calls may wait for a worker, per worker thread, before one more is refused. */
    static final int QUEUED_CALLS_PER_WORKER = 4;

    private final ClientSettings settings;
    private volatile Map<String, BackendTool> tools;
    private final ToolContext fallbackContext;
    private final EventLoopGroup group;
    private final ThreadPoolExecutor workers;
    private final SslContext ssl;
    private final String host;
    private final int port;
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private final AtomicInteger attempts = new AtomicInteger();
    private final Object connectedLock = new Object();
    /** Whether a server has welcomed this session at least once. */
    private volatile boolean welcomedOnce;
    private volatile Connection current;
    private volatile boolean closing;
    private volatile Throwable lastFailure;

    /**
     * Creates the session (not yet connecting).
     *
     * @param settings the settings
     * @throws IllegalArgumentException when a {@code wss://} URI needs a TLS context that cannot be built
     */
    public ClientSession(ClientSettings settings) {
        this.settings = settings;
        this.tools = byName(settings.tools());
        this.fallbackContext = new ToolContext("remote", settings.sessionId(), settings.tenant(),
                settings.project() == null ? "" : settings.project(), null);
        boolean tls = "wss".equalsIgnoreCase(settings.uri().getScheme());
        this.host = settings.uri().getHost();
        this.port = settings.uri().getPort() > 0 ? settings.uri().getPort() : tls ? 443 : 80;
        try {
            this.ssl = !tls ? null : settings.sslContext() != null ? settings.sslContext()
                    : SslContextBuilder.forClient().build();
        } catch (SSLException e) {
            throw new IllegalArgumentException("Cannot build a TLS context for " + settings.uri() + ": " + e.getMessage(), e);
        }
        NettyVersionCheck.require("WorkTargetClient");
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("worktarget-client-io", true),
                NioIoHandler.newFactory());
        // the calls that wait for a worker are bounded: each holds its parameters (up to a frame), so a server
        // that sends calls faster than they run cannot fill the heap; one more is refused size_limit
        this.workers = new ThreadPoolExecutor(settings.workerThreads(), settings.workerThreads(), 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(QUEUED_CALLS_PER_WORKER * settings.workerThreads()),
                new DefaultThreadFactory("worktarget-client-worker", true));
        this.workers.allowCoreThreadTimeOut(true);
    }

    private static Map<String, BackendTool> byName(List<BackendTool> list) {
        Map<String, BackendTool> byName = new LinkedHashMap<>();
        for (BackendTool t : list) {
            if (byName.putIfAbsent(t.spec().name(), t) != null) {
                throw new IllegalArgumentException("Two tools are named '" + t.spec().name() + "'; serve only one.");
            }
        }
        return java.util.Collections.unmodifiableMap(byName);
    }

    /**
     * Replaces the tools served and, when connected, sends the new manifest ({@code tool_manifest}). Calls
     * already running finish with the tool they started with.
     *
     * @param list the new tools
     * @throws IllegalArgumentException when two tools share a name
     */
    public void replaceTools(List<BackendTool> list) {
        Map<String, BackendTool> next = byName(list);
        this.tools = next;
        Connection c = current;
        if (c != null && c.welcomed) {
            c.calls.send(new Message.ToolManifest(next.values().stream().map(BackendTool::spec).toList()));
        }
    }

    /** Starts the first connection attempt. */
    public void start() {
        connect();
    }

    /**
     * Completes on {@link #close()}, or exceptionally with a {@link ServerRefusedException}.
     *
     * @return completes on {@link #close()}, or exceptionally with a {@link ServerRefusedException}
     */
    public CompletableFuture<Void> terminated() {
        return terminated;
    }

    /**
     * Whether a welcome was received on the current connection.
     *
     * @return whether a welcome was received on the current connection
     */
    public boolean isConnected() {
        Connection c = current;
        return c != null && c.welcomed && c.channel.isActive();
    }

    /**
     * Waits until connected.
     *
     * @param timeout the longest wait
     * @return true when connected, false on timeout or when the session terminated
     * @throws InterruptedException when interrupted
     */
    public boolean awaitConnected(Duration timeout) throws InterruptedException {
        return await(this::isConnected, timeout);
    }

    /**
     * Waits until a server has welcomed this session at least once; unlike {@link #awaitConnected(Duration)},
     * a connection that was accepted and dropped again before the wait returns still counts.
     *
     * @param timeout the longest wait
     * @return true once welcomed, false on timeout or when the session terminated without a welcome
     * @throws InterruptedException when interrupted
     */
    public boolean awaitWelcomedOnce(Duration timeout) throws InterruptedException {
        return await(() -> welcomedOnce, timeout);
    }

    /** Waits, woken by {@link #signalConnected()}, until {@code state} holds, the timeout passes or the session ends. */
    private boolean await(BooleanSupplier state, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (connectedLock) {
            while (!state.getAsBoolean() && !terminated.isDone()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(connectedLock, left);
            }
        }
        return state.getAsBoolean();
    }

    /**
     * Why the last connection attempt failed (it could not connect, or the connection failed), if one did.
     *
     * @return the failure, or null
     */
    public Throwable lastFailure() {
        return lastFailure;
    }

    /**
     * The number of calls running on the worker pool.
     *
     * @return the number of calls running on the worker pool
     */
    public int runningCalls() {
        Connection c = current;
        PeerConnection open = c == null ? null : c.calls;
        return open == null ? 0 : open.runningCalls();
    }

    /**
     * Closes the connection with 1000, cancels running calls, stops reconnecting and releases the
     * threads. Idempotent.
     */
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        Connection c = current;
        if (c != null && c.channel.isActive()) {
            c.channel.writeAndFlush(new CloseWebSocketFrame(1000, "client shutdown"))
                    .addListener(ChannelFutureListener.CLOSE);
            c.channel.closeFuture().awaitUninterruptibly(2, TimeUnit.SECONDS);
            c.channel.close();
        }
        workers.shutdownNow();
        ClosingWaits.await(group.shutdownGracefully(0, 2, TimeUnit.SECONDS), "the client's event loop");
        try {
            workers.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        terminated.complete(null);
        signalConnected();
    }

    private void signalConnected() {
        synchronized (connectedLock) {
            connectedLock.notifyAll();
        }
    }

    private void connect() {
        if (closing || terminated.isDone()) {
            return;
        }
        HttpHeaders headers = new DefaultHttpHeaders()
                .set(HttpHeaderNames.AUTHORIZATION, "Bearer " + settings.token())
                .set(Wire.PROFILE_HEADER, settings.profile());
        WebSocketClientProtocolConfig ws = WebSocketClientProtocolConfig.newBuilder()
                .webSocketUri(settings.uri())
                .customHeaders(headers)
                .maxFramePayloadLength(settings.maxFrameBytes())
                .handshakeTimeoutMillis(settings.handshakeTimeout().toMillis())
                .handleCloseFrames(false)
                .dropPongFrames(false)
                .withUTF8Validator(false)           // Utf8.isValid checks whole text frames, ASCII first
                .build();
        long pingMillis = settings.pingInterval().toMillis();
        Bootstrap b = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(settings.lowWaterMark(), settings.highWaterMark()))
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) settings.handshakeTimeout().toMillis())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ChannelPipeline p = ch.pipeline();
                        if (ssl != null) {
                            p.addLast("tls", ssl.newHandler(ch.alloc(), host, port));
                        }
                        p.addLast("http", new HttpClientCodec());
                        p.addLast("http-aggregator", new HttpObjectAggregator(64 * 1024));
                        p.addLast("websocket", new WebSocketClientProtocolHandler(ws));
                        p.addLast("ws-aggregator", new WebSocketFrameAggregator(settings.maxFrameBytes()));
                        p.addLast("liveness", new IdleStateHandler(pingMillis, 0, 0, TimeUnit.MILLISECONDS));
                        // behind Netty's frame encoder: masks text and binary frames in place instead of copying them
                        p.addLast("masked-frames", new ClientFrameEncoder());
                        p.addLast("frames", new Connection(ch));
                    }
                });
        b.connect(host, port).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                lastFailure = f.cause();
                LOG.info("Could not connect to {}: {}", settings.uri(), f.cause().getMessage());
                retryLater();
            }
        });
    }

    private void retryLater() {
        if (closing || terminated.isDone()) {
            return;
        }
        int n = Math.min(attempts.getAndIncrement(), 30);
        long initial = settings.initialBackoff().toMillis();
        long max = settings.maxBackoff().toMillis();
        long base = Math.min(max, initial << Math.min(n, 20));
        long delay = base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1);
        LOG.info("Reconnecting to {} in {} ms", settings.uri(), delay);
        try {
            group.schedule(this::connect, delay, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("Not reconnecting: the client is shutting down");
        }
    }

    private void refused(ServerRefusedException e) {
        LOG.error("The server refused this client for good: {}", e.getMessage());
        terminated.completeExceptionally(e);
        signalConnected();
    }

    /** The handler of one connection attempt, last in the pipeline. */
    private final class Connection extends FrameHandler {
        final Channel channel;
        volatile boolean welcomed;
        /** Whether the server answered the upgrade (with 101). */
        boolean upgraded;
        /** Whether this attempt recorded why it failed in {@code lastFailure}. */
        boolean failureRecorded;
        boolean sendsContext;
        int closeCode = -1;
        String closeReason = "";
        Message.ErrorFrame lastError;
        ServerRefusedException refusal;
        NettyFrameChannel frames;
        /** The calls of the connection, once welcomed. */
        volatile PeerConnection calls;

        Connection(Channel channel) {
            super(null, settings.silentIntervalsBeforeClose());
            this.channel = channel;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
                upgraded = true;
                List<ToolSpec> specs = tools.values().stream().map(BackendTool::spec).toList();
                Message.Hello hello = new Message.Hello(Wire.PROTOCOL_VERSION, settings.profile(), settings.tenant(),
                        settings.project(), settings.daemonName(), settings.sessionId(), settings.clientName(),
                        settings.capabilities(), specs,
                        Map.of(Wire.LIMIT_MAX_FRAME_BYTES, settings.maxFrameBytes()));
                ctx.writeAndFlush(new TextWebSocketFrame(Wire.encode(hello, ctx.alloc())));
                ctx.executor().schedule(() -> {
                    if (!welcomed && ctx.channel().isActive()) {
                        LOG.warn("No welcome from {} within {} ms; reconnecting", settings.uri(),
                                settings.handshakeTimeout().toMillis());
                        ctx.close();
                    }
                }, settings.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } else if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT) {
                // the server took the connection and said nothing: not a close of the server's (a stopped or
                // overloaded server, or a port of something that waits for the client to speak first)
                lastFailure = new java.util.concurrent.TimeoutException("the server accepted the connection but did "
                        + "not answer the WebSocket upgrade within " + settings.handshakeTimeout().toMillis() + " ms: it "
                        + "is stopped or overloaded, or the port is not a WorkTarget server's");
                failureRecorded = true;
                super.userEventTriggered(ctx, evt);
            } else {
                super.userEventTriggered(ctx, evt);
            }
        }

        @Override
        protected boolean watchingSilence() {
            return welcomed;
        }

        @Override
        protected void silenceLimitReached(ChannelHandlerContext ctx, int intervals) {
            LOG.warn("No traffic from {} for {} intervals; reconnecting", settings.uri(), intervals);
            ctx.close();
        }

        @Override
        protected String binaryFrameRefusal() {
            return "Binary frames were not negotiated.";
        }

        @Override
        protected org.vancetope.worktarget.backend.daemon.FrameExtension extension() {
            return settings.extension();
        }

        @Override
        protected NettyFrameChannel frames() {
            return frames;
        }

        @Override
        protected void onCloseFrame(ChannelHandlerContext ctx, CloseWebSocketFrame close) {
            closeCode = close.statusCode();
            closeReason = close.reasonText();
            ctx.writeAndFlush(new CloseWebSocketFrame(closeCode == -1 ? 1000 : closeCode, ""))
                    .addListener(ChannelFutureListener.CLOSE);
        }

        @Override
        protected void close(ChannelHandlerContext ctx, int code, String reason) {
            writeClose(ctx, code, reason);
        }

        @Override
        protected void undecodable(ChannelHandlerContext ctx, String problem) {
            LOG.warn("Bad frame from the server: {}", problem);
            badFrame(ctx, problem);
        }

        @Override
        protected void onMessage(ChannelHandlerContext ctx, Message m) {
            if (m instanceof Message.Welcome w && welcomed) {
                badFrame(ctx, "A second 'welcome' on one connection; the first one stands.");
            } else if (m instanceof Message.Welcome w && w.protocolVersion() != Wire.PROTOCOL_VERSION) {
                // no call state is set up: the connection ends and this client does not retry a server it cannot speak to
                refusal = new ServerRefusedException(Wire.CLOSE_UNSUPPORTED_VERSION, "The server speaks protocol version "
                        + w.protocolVersion() + "; this client speaks version " + Wire.PROTOCOL_VERSION
                        + ". Use a client and a server of the same protocol version.");
                writeClose(ctx, Wire.CLOSE_UNSUPPORTED_VERSION, "unsupported protocol version");
            } else if (m instanceof Message.Welcome w) {
                sendsContext = w.capabilities().contains(Wire.CAP_INVOKE_CONTEXT);
                // the largest frame sent: this client's limit and the server's, 2 MiB when it announced none
                int maxOutbound = Math.min(settings.maxFrameBytes(), Wire.PROTOCOL_MAX_FRAME_BYTES);
                if (w.limits().get(Wire.LIMIT_MAX_FRAME_BYTES) instanceof Number announced && announced.longValue() > 0) {
                    maxOutbound = (int) Math.min(settings.maxFrameBytes(), announced.longValue());
                }
                Set<String> negotiated = new LinkedHashSet<>(w.capabilities());
                negotiated.retainAll(settings.capabilities());
                frames = new NettyFrameChannel(channel, w.connectionId(), negotiated, maxOutbound, w.limits());
                calls = new PeerConnection(frames, new PeerConnection.Names("the server " + settings.uri(),
                        settings.profile(), "st-"), IDS, sendsContext, maxOutbound, settings.cancelHook());
                opened(settings.extension());
                welcomed = true;
                attempts.set(0);
                current = this;
                welcomedOnce = true;
                LOG.info("Connected to {} as {} (connection {})", settings.uri(), describe(),
                        LogLimiter.printable(w.connectionId()));
                signalConnected();
            } else if (m instanceof Message.Invoke inv && calls != null) {
                onInvoke(inv);
            } else if (m instanceof Message.Cancel c && calls != null) {
                calls.cancelled(c.correlationId());
            } else if (m instanceof Message.ProcessEnd e) {
                onProcessEnd(e.context());
            } else if (m instanceof Message.ErrorFrame e) {
                lastError = e;
                LOG.warn("The server reported {}: {}", LogLimiter.printable(e.code()), LogLimiter.printable(e.message()));
            } else if (!(m instanceof Message.Other o && handOff(ctx, settings.extension(), o))) {
                badFrame(ctx, "Unexpected frame type '" + m.type() + "' for a client.");
            }
        }

        private void onInvoke(Message.Invoke inv) {
            BackendTool tool = tools.get(inv.name());
            if (tool == null) {
                calls.refuse(inv, ErrorCode.UNKNOWN_TOOL, "This " + settings.profile() + " does not offer the tool '"
                        + inv.name() + "'. It offers: " + String.join(", ", tools.keySet())
                        + ". Call work_target_get and pick another target.");
                return;
            }
            calls.answer(inv, tool, sendsContext && inv.context() != null ? inv.context() : fallbackContext, workers);
        }

        /** The server says a process ended: the hook frees its state, on a worker (it may kill process trees). */
        private void onProcessEnd(ToolContext process) {
            java.util.function.Consumer<ToolContext> hook = settings.processEndHook();
            if (hook == null) {
                LOG.debug("Ignored process_end of {}: no hook (the capability was not offered)", process.processId());
                return;
            }
            try {
                workers.execute(() -> {
                    try {
                        hook.accept(process);
                    } catch (Throwable t) {
                        LOG.warn("Freeing the state of ended process {} failed", process.processId(), t);
                    }
                });
            } catch (RejectedExecutionException closing) {
                LOG.debug("Ignored process_end of {}: the client is closing", process.processId());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof WebSocketClientHandshakeException h && h.response() != null
                    && h.response().status().code() >= 400 && h.response().status().code() < 500) {
                int status = h.response().status().code();
                refusal = !h.response().headers().contains(HandshakeAuthHandler.SERVER_HEADER)
                        ? new ServerRefusedException(status, settings.uri() + " answered HTTP " + status + " without the "
                                + HandshakeAuthHandler.SERVER_HEADER + " header: it is not a WorkTarget server's WebSocket "
                                + "port (is it the admin API's, or another service's?). Check the port in the URI.", false)
                        : new ServerRefusedException(status, "The server refused the upgrade with HTTP " + status
                                + (status == 401 ? ": the token is missing or was rejected. Check the client's token against the "
                                + "server's token file (daemon: $WORKTARGET_TOKEN or --token)."
                                : status == 404 ? ": the path is wrong; the server's endpoint is "
                                + h.response().headers().get(HandshakeAuthHandler.SERVER_HEADER) + "." : "."));
            } else if (cause instanceof TooLongFrameException) {
                LOG.warn("The server sent a frame over {} bytes; reconnecting", settings.maxFrameBytes());
            } else {
                lastFailure = cause;
                failureRecorded = true;
                LOG.warn("Connection to {} failed: {}", settings.uri(), cause.toString());
            }
            ctx.close();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (current == this) {
                current = null;
            }
            PeerConnection open = calls;
            if (open != null) {
                open.close(ErrorCode.OFFLINE, "The connection to the server " + settings.uri() + " closed.");
            }
            if (frames != null) {
                frames.writabilityChanged();
                if (settings.extension() != null) {
                    try {
                        settings.extension().onClose(frames);
                    } catch (RuntimeException e) {
                        LOG.warn("The frame extension failed on close", e);
                    }
                }
            }
            signalConnected();
            if (refusal == null && FINAL_CLOSE_CODES.contains(closeCode)) {
                // the server's words, as text that cannot forge log lines or drive the terminal
                String said = LogLimiter.printable(lastError != null ? lastError.code() + ": " + lastError.message()
                        : closeReason);
                refusal = new ServerRefusedException(closeCode, "The server closed the connection with " + closeCode
                        + " (" + said + ").");
            }
            if (closing) {
                LOG.info("Disconnected from {}", settings.uri());
            } else if (refusal != null) {
                refused(refusal);
            } else {
                if (!upgraded && !failureRecorded) {
                    // closed without an answer to the upgrade and without an error: what a start-up deadline
                    // reports (a server at its connection cap does this, and so do some proxies)
                    lastFailure = new java.io.IOException("the server closed the connection before answering the "
                            + "WebSocket upgrade");
                }
                LOG.info("Disconnected from {}{}", settings.uri(), closeCode > 0 ? " (close " + closeCode + ")" : "");
                retryLater();
            }
            super.channelInactive(ctx);
        }
    }

    private String describe() {
        return Wire.PROFILE_DAEMON.equals(settings.profile())
                ? "daemon " + settings.tenant() + "/" + settings.project() + "/" + settings.daemonName()
                : "foot of session " + settings.sessionId();
    }
}
