package org.vancetope.worktarget.mcp.internal;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.HttpHeaders;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStreamableServerSession;
import io.modelcontextprotocol.spec.McpStreamableServerTransport;
import io.modelcontextprotocol.spec.McpStreamableServerTransportProvider;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.internal.ClosingWaits;
import org.vancetope.worktarget.backend.daemon.internal.HttpGuards;
import org.vancetope.worktarget.backend.daemon.internal.NettyVersionCheck;
import org.vancetope.worktarget.backend.daemon.internal.PlainTextExposure;
import org.vancetope.worktarget.core.internal.LogLimiter;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.Authenticator;
import reactor.core.publisher.Mono;

/**
 * The MCP Streamable HTTP transport on Netty (the SDK's own HTTP transports need a servlet container):
 * {@code POST /mcp} carries one JSON-RPC message (a request is answered on an SSE stream that carries its
 * progress notifications and ends with the response; a notification or response gets 202), {@code GET /mcp}
 * opens the session's stream for server-initiated messages, {@code DELETE /mcp} ends the session. Every
 * request needs {@code Authorization: Bearer …} accepted by the {@link Authenticator} (401 otherwise); a
 * session belongs to the principal that opened it (403 for another, 404 for an unknown session).
 */
public final class StreamableHttpTransport implements McpStreamableServerTransportProvider, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StreamableHttpTransport.class);
    private static final int MAX_BODY = 16 * 1024 * 1024;
    /** How long {@link #close} waits for the interrupted calls to be answered. */
    static final int CLOSE_WAIT_SECONDS = 5;
    /** The JSON-RPC error code of a request refused because the server runs as many as it may (a server error). */
    /** The principal the {@link Gate} found for the request the {@link Handler} gets next on the channel. */
    private static final AttributeKey<AuthPrincipal> PRINCIPAL = AttributeKey.valueOf("worktarget-mcp-principal");
    /** The subject a connection is counted for among its principal's connections. */
    private static final AttributeKey<String> SUBJECT_HELD = AttributeKey.valueOf("worktarget-mcp-subject-held");
    private static final String PATH = "/mcp";

    /** What the server learns of sessions. */
    public interface Sessions {
        /**
         * A session was opened by a principal.
         *
         * @param sessionId the session
         * @param principal who opened it
         */
        void opened(String sessionId, AuthPrincipal principal);

        /**
         * A session ended (deleted by its client, or the server closes).
         *
         * @param sessionId the session
         */
        void closed(String sessionId);
    }

    /** A session, its owner, and what keeps it from expiring. */
    private static final class Open {
        final McpStreamableServerSession session;
        final AuthPrincipal principal;
        final AtomicLong lastSeen = new AtomicLong(System.nanoTime());
        final AtomicInteger streams = new AtomicInteger();

        Open(McpStreamableServerSession session, AuthPrincipal principal) {
            this.session = session;
            this.principal = principal;
        }

        McpStreamableServerSession session() {
            return session;
        }

        AuthPrincipal principal() {
            return principal;
        }
    }

    private final McpJsonMapper json;
    private final Authenticator authenticator;
    private final CallRegistry calls;
    private final Sessions listener;
    private final Duration idle;
    private final Duration requestTimeout;
    private final int maxCalls;
    private final Semaphore callSlots;
    /** The calls each principal (by subject) has running; at most {@link #maxCallsPerPrincipal} each. */
    private final Map<String, Integer> callsBySubject = new ConcurrentHashMap<>();
    private final LogLimiter originRefusals = new LogLimiter(Duration.ofSeconds(10).toNanos(), System::nanoTime);
    /** The connections each principal (by subject) holds, counted from its first request with a token. */
    private final Map<String, Integer> connectionsBySubject = new ConcurrentHashMap<>();
    private final int maxConnections;
    private final int maxConnectionsPerPrincipal;
    private final int maxCallsPerPrincipal;
    private final int maxSessions;
    private final HttpGuards.ConnectionCap cap;
    private final Object sessionsOpening = new Object();
    private final ExecutorService callThreads = Executors.newCachedThreadPool(
            new DefaultThreadFactory("worktarget-mcp-http-call", true));
    private final AllowedOrigins origins;
    private final Map<String, Open> sessions = new ConcurrentHashMap<>();
    private volatile McpStreamableServerSession.Factory factory;
    private EventLoopGroup group;
    private Channel server;

    /**
     * A transport (not bound yet).
     *
     * @param json the SDK's mapper
     * @param authenticator checks bearer tokens
     * @param calls the running calls, for cancellation
     * @param listener told when sessions open and end
     * @param idle how long a session may go without a request and without an open stream before it ends
     * @param requestTimeout how long a whole request may take to arrive, from the connection or the previous
     *                       answer on it (then 408, and the connection closes)
     * @param maxCalls how many requests may run at a time (each on a thread of its own); one more is answered
     *                 with an error at once
     * @param maxSessions how many sessions one principal may have open; one more ends the principal's least
     *                    recently used idle session, or is refused when all are busy
     * @param origins the browser origins served (a request with another {@code Origin} gets 403)
     * @param maxConnections how many connections the server holds at once; one more is closed at once
     * @param maxUnauthenticatedPerAddress how many of them one remote address may hold before it sent a request
     *                                     with an accepted token (0: no such cap); one more is closed at once
     */
    public StreamableHttpTransport(McpJsonMapper json, Authenticator authenticator, CallRegistry calls,
                                   Sessions listener, Duration idle, Duration requestTimeout, int maxCalls,
                                   int maxSessions, AllowedOrigins origins, int maxConnections,
                                   int maxUnauthenticatedPerAddress) {
        this.maxConnections = maxConnections;
        this.maxConnectionsPerPrincipal = Math.max(1, maxConnections / 4);
        this.cap = new HttpGuards.ConnectionCap("the MCP HTTP server (httpMaxConnections, "
                + "httpMaxUnauthenticatedPerAddress)", maxConnections, maxUnauthenticatedPerAddress);
        this.maxSessions = maxSessions;
        this.idle = idle;
        this.requestTimeout = requestTimeout;
        this.maxCalls = maxCalls;
        this.callSlots = new Semaphore(maxCalls);
        this.maxCallsPerPrincipal = perPrincipal(maxCalls);
        this.origins = origins;
        this.json = json;
        this.authenticator = authenticator;
        this.calls = calls;
        this.listener = listener;
    }

    @Override
    public void setSessionFactory(McpStreamableServerSession.Factory sessionFactory) {
        this.factory = sessionFactory;
    }

    /**
     * Binds the port.
     *
     * @param host the interface
     * @param port the port, 0 for any
     * @return the bound address
     * @throws IOException when the port cannot be bound
     */
    public InetSocketAddress start(String host, int port) throws IOException {
        NettyVersionCheck.require("the MCP HTTP server");
        group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        try {
            server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class).handler(cap)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpGuards.InOrder(),
                                    new HttpGuards.RequestDeadline(requestTimeout, StreamableHttpTransport.this::timedOut),
                                    new Gate(), new HttpGuards.BodyLimit(MAX_BODY, StreamableHttpTransport::tooLarge),
                                    new Handler());
                        }
                    }).bind(host, port).sync().channel();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IOException("Interrupted while binding " + host + ":" + port, e);
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IOException("Cannot bind the MCP HTTP server to " + host + ":" + port + ": " + e.getMessage(), e);
        }
        long every = Math.max(1, Math.min(idle.toMillis() / 4, 60_000));
        group.scheduleAtFixedRate(this::expireIdle, every, every, TimeUnit.MILLISECONDS);
        InetSocketAddress bound = (InetSocketAddress) server.localAddress();
        String exposed = PlainTextExposure.warning("The MCP HTTP server", bound, "It has no TLS of its own: bind "
                + "127.0.0.1 behind a proxy that terminates TLS.");
        if (exposed != null) {
            LOG.warn(exposed);
        }
        return bound;
    }

    /** Ends the sessions no client used for the idle time (a client that went away without DELETE). */
    private void expireIdle() {
        long now = System.nanoTime();
        for (Map.Entry<String, Open> e : sessions.entrySet()) {
            Open o = e.getValue();
            if (o.streams.get() == 0 && now - o.lastSeen.get() > idle.toNanos() && end(e.getKey(), o)) {
                LOG.info("MCP session {} of '{}' ended after {} without requests", e.getKey(), o.principal().subject(),
                        idle);
            }
        }
    }

    /** Ends a session that has not ended meanwhile: closes it and tells the listener. */
    private boolean end(String id, Open o) {
        if (!sessions.remove(id, o)) {
            return false;
        }
        o.session().close();
        listener.closed(id);
        return true;
    }

    /**
     * How many sessions are open.
     *
     * @return the count
     */
    public int sessionCount() {
        return sessions.size();
    }

    @Override
    public Mono<Void> notifyClients(String method, Object params) {
        return Mono.fromRunnable(() -> sessions.values().forEach(o -> o.session().sendNotification(method, params)
                .subscribe(null, e -> LOG.debug("A notification to a client failed: {}", e.toString()))));
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(this::close);
    }

    /**
     * Stops listening, interrupts the running calls ({@link CallRegistry#stopAll}) and waits up to
     * {@value #CLOSE_WAIT_SECONDS} s until they are answered on their streams, then ends every session.
     */
    @Override
    public void close() {
        if (server != null) {
            ClosingWaits.await(server.close(), "the MCP HTTP listening channel");
        }
        calls.stopAll();
        callThreads.shutdown();
        try {
            if (!callThreads.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn("Some MCP calls were still unanswered {} s after the server began to close", CLOSE_WAIT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sessions.forEach(this::end);
        if (group != null) {
            ClosingWaits.drain(group, "the MCP HTTP server");   // the answers and stream ends written just now
            ClosingWaits.await(group.shutdownGracefully(0, 2, TimeUnit.SECONDS), "the MCP HTTP event loops");
        }
        callThreads.shutdownNow();
    }

    private FullHttpResponse timedOut() {
        return text(HttpResponseStatus.REQUEST_TIMEOUT, "The whole request must arrive within "
                + requestTimeout.toMillis() + " ms of the connection or of the previous answer; send it at once, or"
                + " connect again.");
    }

    private static FullHttpResponse tooLarge() {
        return text(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "The request body is over " + (MAX_BODY >> 20)
                + " MiB, this MCP server's limit for one message. Send less in one tool call: move large files with"
                + " the transfer tools (client_file_upload, client_file_download), not in a tool's arguments.");
    }

    /**
     * Judges a request on its head, before its body is buffered: the path, the {@code Origin}, then the token;
     * the principal goes to the {@link Handler} in {@link #PRINCIPAL}.
     */
    private final class Gate extends HttpGuards.HeadGate {
        @Override
        protected FullHttpResponse malformed(String why) {
            return text(HttpResponseStatus.BAD_REQUEST, "The request is not valid HTTP/1.1 (" + why + ").");
        }

        @Override
        protected FullHttpResponse refuse(ChannelHandlerContext ctx, HttpRequest req) {
            if (!PATH.equals(new QueryStringDecoder(req.uri()).path())) {
                return text(HttpResponseStatus.NOT_FOUND, "Not found: the MCP endpoint is " + PATH + ".");
            }
            String origin = req.headers().get(HttpHeaderNames.ORIGIN);
            if (origin != null && !origins.allows(origin)) {
                // before the token: a page another site rebound to this address learns nothing
                // one line per 10 s at WARN (the rest at DEBUG): a client without a token must not fill the log
                originRefusals.warn(LOG, "Refused an MCP HTTP request from the origin '{}' (not an allowed origin)",
                        LogLimiter.printable(origin));
                return originRefused(origin);
            }
            Optional<AuthPrincipal> principal = authenticate(req);
            if (principal.isEmpty()) {
                FullHttpResponse r = text(HttpResponseStatus.UNAUTHORIZED,
                        "Missing or unknown bearer token: send Authorization: Bearer <token>.");
                r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
                return r;
            }
            String subject = principal.get().subject();
            if (!holdConnection(ctx.channel(), subject)) {
                return text(HttpResponseStatus.TOO_MANY_REQUESTS, "'" + subject + "' holds " + maxConnectionsPerPrincipal
                        + " connections to this MCP server, the most one token may (a quarter of its "
                        + maxConnections + "): send requests on the connections it has (keep-alive), or close one.");
            }
            ctx.channel().attr(PRINCIPAL).set(principal.get());
            HttpGuards.ConnectionCap.trusted(ctx.channel());     // no longer counts against its address
            return null;
        }
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            // the Gate let it through: the path and the origin are fine, the token gave this principal
            AuthPrincipal principal = ctx.channel().attr(PRINCIPAL).getAndSet(null);
            try {
                if (HttpMethod.POST.equals(req.method())) {
                    post(ctx, req, principal);
                } else if (HttpMethod.GET.equals(req.method())) {
                    get(ctx, req, principal);
                } else if (HttpMethod.DELETE.equals(req.method())) {
                    delete(ctx, req, principal);
                } else {
                    plain(ctx, req, HttpResponseStatus.METHOD_NOT_ALLOWED, "Use POST, GET or DELETE on " + PATH + ".");
                }
            } catch (RuntimeException e) {
                LOG.warn("An MCP HTTP request failed", e);
                plain(ctx, req, HttpResponseStatus.INTERNAL_SERVER_ERROR, "Internal error: " + e.getMessage());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("MCP HTTP connection failed: {}", cause.toString());
            ctx.close();
        }
    }

    private Optional<AuthPrincipal> authenticate(HttpRequest req) {
        String h = req.headers().get(HttpHeaderNames.AUTHORIZATION);
        if (h == null || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.empty();
        }
        return authenticator.authenticate(h.substring(7).trim());
    }

    /** The session a request names, or an error response already sent. */
    private Open session(ChannelHandlerContext ctx, FullHttpRequest req, AuthPrincipal principal) {
        String version = req.headers().get(HttpHeaders.PROTOCOL_VERSION);
        if (version != null && !protocolVersions().contains(version.strip())) {
            // MCP: a request after initialize with a version the server does not speak gets 400
            plain(ctx, req, HttpResponseStatus.BAD_REQUEST, "Unsupported " + HttpHeaders.PROTOCOL_VERSION + " '"
                    + (version.length() > 40 ? version.substring(0, 40) + "…" : version) + "': this server speaks "
                    + String.join(", ", protocolVersions()) + ". Send the version initialize negotiated, or leave "
                    + "the header out.");
            return null;
        }
        String id = req.headers().get(HttpHeaders.MCP_SESSION_ID);
        if (id == null) {
            plain(ctx, req, HttpResponseStatus.BAD_REQUEST, "Missing the " + HttpHeaders.MCP_SESSION_ID
                    + " header: send initialize first and then the session id it returned.");
            return null;
        }
        Open o = sessions.get(id);
        if (o == null) {
            plain(ctx, req, HttpResponseStatus.NOT_FOUND, "Unknown or ended MCP session '" + id
                    + "': initialize a new session.");
            return null;
        }
        if (!o.principal().subject().equals(principal.subject())) {
            plain(ctx, req, HttpResponseStatus.FORBIDDEN, "The MCP session '" + id + "' belongs to another principal.");
            return null;
        }
        o.lastSeen.set(System.nanoTime());
        return o;
    }

    private void post(ChannelHandlerContext ctx, FullHttpRequest req, AuthPrincipal principal) {
        String contentType = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
        if (contentType != null && !mediaType(contentType).equals("application/json")) {
            plain(ctx, req, HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, "The body of a POST is one JSON-RPC message: "
                    + "send it with Content-Type: application/json (this one came as '" + shown(contentType) + "').");
            return;
        }
        String accept = req.headers().get(HttpHeaderNames.ACCEPT);
        if (accept != null && !(accepts(accept, "application/json") && accepts(accept, "text/event-stream"))) {
            plain(ctx, req, HttpResponseStatus.NOT_ACCEPTABLE, "Send Accept: application/json, text/event-stream with"
                    + " a POST: this server answers a request with either, as MCP requires clients to accept (this one "
                    + "accepts '" + shown(accept) + "').");
            return;
        }
        String body = req.content().toString(StandardCharsets.UTF_8);
        McpSchema.JSONRPCMessage message;
        try {
            message = Inbound.message(json, body);
        } catch (IOException | IllegalArgumentException e) {
            plain(ctx, req, HttpResponseStatus.BAD_REQUEST, Inbound.unreadable("The body", body, e));
            return;
        }
        McpSchema.JSONRPCResponse refused = message instanceof McpSchema.JSONRPCRequest q ? Inbound.refusal(q) : null;
        if (message instanceof McpSchema.JSONRPCRequest r && McpSchema.METHOD_INITIALIZE.equals(r.method())) {
            if (refused != null) {
                answer(ctx, req, refused, null);
            } else {
                initialize(ctx, req, r, principal);
            }
            return;
        }
        Open open = session(ctx, req, principal);
        if (open == null) {
            return;
        }
        String sessionId = open.session().getId();
        if (message instanceof McpSchema.JSONRPCNotification n) {
            if (Inbound.CANCELLED.equals(n.method())) {
                // handled here: the SDK has no handler for it
                Inbound.cancel(n.method(), n.params(), sessionId, calls);
            } else {
                open.session().accept(n).subscribe(null, e -> LOG.debug("A notification failed: {}", e.toString()));
            }
            send(ctx, req, new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.ACCEPTED));
        } else if (message instanceof McpSchema.JSONRPCResponse r) {
            open.session().accept(r).subscribe(null, e -> LOG.debug("A response failed: {}", e.toString()));
            send(ctx, req, new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.ACCEPTED));
        } else if (refused != null) {
            answer(ctx, req, refused, sessionId);
        } else if (message instanceof McpSchema.JSONRPCRequest r) {
            McpSchema.JSONRPCRequest tagged = new McpSchema.JSONRPCRequest(r.jsonrpc(), r.method(), r.id(),
                    Inbound.tag(r.method(), r.id(), r.params(), sessionId));
            String subject = principal.subject();
            if (!takeCall(subject)) {
                answer(ctx, req, Inbound.busyPrincipal(r.id(), subject, maxCallsPerPrincipal, maxCalls), sessionId);
                return;
            }
            if (!callSlots.tryAcquire()) {
                releaseCall(subject);
                answer(ctx, req, Inbound.busy(r.id(), maxCalls), sessionId);
                return;
            }
            SseStream stream = new SseStream(ctx, req, open);
            Mono<Void> handled = open.session().responseStream(stream).handle(tagged);
            try {
                // a thread of its own: a call may wait long (exec_run), and must not hold up the others
                callThreads.execute(() -> {
                    try {
                        handled.block();
                    } catch (RuntimeException e) {
                        LOG.debug("The response stream of {} failed: {}", r.method(), e.toString());
                    } finally {
                        callSlots.release();
                        releaseCall(subject);
                        stream.end();
                    }
                });
            } catch (RejectedExecutionException e) {
                callSlots.release();
                releaseCall(subject);
                stream.end();   // closing
            }
        }
    }

    /**
     * The requests one principal may have running at once over HTTP: a quarter of all (at least one), so that
     * one token's calls, however many sessions it opens, leave the others room.
     *
     * @param maxCalls the requests of all sessions together
     * @return the share of one principal
     */
    public static int perPrincipal(int maxCalls) {
        return Math.max(1, maxCalls / 4);
    }

    /**
     * Counts a connection for the principal of its first request with a token, at most
     * {@link #maxConnectionsPerPrincipal} per principal, so that one token's connections (slow bodies, idle
     * keep-alives) leave the others room among {@code httpMaxConnections}.
     *
     * @return false when the principal holds as many as it may (this connection is not counted)
     */
    private boolean holdConnection(Channel channel, String subject) {
        if (channel.attr(SUBJECT_HELD).get() != null) {
            return true;     // counted at its first request
        }
        boolean[] taken = new boolean[1];
        connectionsBySubject.compute(subject, (k, held) -> {
            int n = held == null ? 0 : held;
            if (n >= maxConnectionsPerPrincipal) {
                return held;
            }
            taken[0] = true;
            return n + 1;
        });
        if (taken[0]) {
            channel.attr(SUBJECT_HELD).set(subject);
            channel.closeFuture().addListener(f -> connectionsBySubject.computeIfPresent(subject,
                    (k, held) -> held <= 1 ? null : held - 1));
        }
        return taken[0];
    }

    private boolean takeCall(String subject) {
        boolean[] taken = new boolean[1];
        callsBySubject.compute(subject, (k, held) -> {
            int n = held == null ? 0 : held;
            if (n >= maxCallsPerPrincipal) {
                return held;
            }
            taken[0] = true;
            return n + 1;
        });
        return taken[0];
    }

    private void releaseCall(String subject) {
        callsBySubject.computeIfPresent(subject, (k, held) -> held <= 1 ? null : held - 1);
    }

    private void initialize(ChannelHandlerContext ctx, FullHttpRequest req, McpSchema.JSONRPCRequest r,
                            AuthPrincipal principal) {
        McpStreamableServerSession.Factory f = factory;
        if (f == null) {
            plain(ctx, req, HttpResponseStatus.SERVICE_UNAVAILABLE, "The MCP server is not ready yet.");
            return;
        }
        McpSchema.InitializeRequest init;
        try {
            init = json.convertValue(r.params(), new TypeRef<McpSchema.InitializeRequest>() {
            });
        } catch (IllegalArgumentException e) {
            answer(ctx, req, McpSchema.JSONRPCResponse.error(r.id(), new McpSchema.JSONRPCResponse.JSONRPCError(
                    McpSchema.ErrorCodes.INVALID_PARAMS, "The params of initialize cannot be read: " + e.getMessage())),
                    null);
            return;
        }
        McpStreamableServerSession.McpStreamableServerSessionInit started;
        String id;
        synchronized (sessionsOpening) {
            String full = makeRoom(principal);
            if (full != null) {
                answer(ctx, req, McpSchema.JSONRPCResponse.error(r.id(), new McpSchema.JSONRPCResponse.JSONRPCError(
                        Inbound.BUSY, full)), null);
                return;
            }
            started = f.startSession(init);
            id = started.session().getId();
            sessions.put(id, new Open(started.session(), principal));
        }
        listener.opened(id, principal);
        started.initResult().subscribe(result -> answer(ctx, req, McpSchema.JSONRPCResponse.result(r.id(), result), id),
                e -> plain(ctx, req, HttpResponseStatus.INTERNAL_SERVER_ERROR, "Initialize failed: " + e.getMessage()));
    }

    /**
     * Makes room for one more session of this principal: when it has {@code maxSessions} open, ends the one it
     * used least recently that has no call running and no stream open. Returns null when there is room, or
     * the message of the refusal when every session is busy.
     */
    private String makeRoom(AuthPrincipal principal) {
        String subject = principal.subject();
        int count = 0;
        Map.Entry<String, Open> idlest = null;
        for (Map.Entry<String, Open> e : sessions.entrySet()) {
            Open o = e.getValue();
            if (!o.principal().subject().equals(subject)) {
                continue;
            }
            count++;
            if (o.streams.get() == 0 && (idlest == null || o.lastSeen.get() - idlest.getValue().lastSeen.get() < 0)) {
                idlest = e;
            }
        }
        if (count < maxSessions) {
            return null;
        }
        if (idlest == null) {
            return "'" + subject + "' has " + count + " MCP sessions open, the most this server allows one principal,"
                    + " and each has a call running or a stream open: end one (DELETE it, or let its calls finish)"
                    + " and initialize again.";
        }
        if (end(idlest.getKey(), idlest.getValue())) {
            LOG.info("MCP session {} of '{}' ended to make room for a new one ({} sessions is the most one principal"
                    + " may have)", idlest.getKey(), subject, maxSessions);
        }
        return null;
    }

    /** One JSON-RPC response as a JSON body (200), in the session named when there is one. */
    private void answer(ChannelHandlerContext ctx, FullHttpRequest req, McpSchema.JSONRPCResponse response,
                        String sessionId) {
        byte[] bytes;
        try {
            bytes = json.writeValueAsBytes(response);
        } catch (IOException e) {
            plain(ctx, req, HttpResponseStatus.INTERNAL_SERVER_ERROR, "Cannot write the response: " + e.getMessage());
            return;
        }
        FullHttpResponse resp = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.wrappedBuffer(bytes));
        resp.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        if (sessionId != null) {
            resp.headers().set(HttpHeaders.MCP_SESSION_ID, sessionId);
        }
        send(ctx, req, resp);
    }

    private void get(ChannelHandlerContext ctx, FullHttpRequest req, AuthPrincipal principal) {
        String accept = req.headers().get(HttpHeaderNames.ACCEPT);
        if (accept != null && !accepts(accept, "text/event-stream")) {
            plain(ctx, req, HttpResponseStatus.NOT_ACCEPTABLE, "A GET opens a stream of server messages: send Accept: "
                    + "text/event-stream (this one accepts '" + shown(accept) + "').");
            return;
        }
        Open open = session(ctx, req, principal);
        if (open == null) {
            return;
        }
        SseStream stream = new SseStream(ctx, req, open);
        McpStreamableServerSession.McpStreamableServerSessionStream listening = open.session().listeningStream(stream);
        ctx.channel().closeFuture().addListener(f -> {
            listening.close();
            stream.end();
        });
    }

    private void delete(ChannelHandlerContext ctx, FullHttpRequest req, AuthPrincipal principal) {
        Open open = session(ctx, req, principal);
        if (open == null) {
            return;
        }
        String id = open.session().getId();
        sessions.remove(id);
        open.session().delete().subscribe(null, e -> LOG.debug("Deleting session {} failed: {}", id, e.toString()));
        listener.closed(id);
        send(ctx, req, new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
    }

    /** 403 with a JSON-RPC error without id, as MCP describes for an invalid {@code Origin}. */
    private FullHttpResponse originRefused(String origin) {
        String message = "The origin '" + origin + "' may not use this MCP server (a guard against DNS rebinding). "
                + "Allowed origins: " + String.join(", ", origins.listed()) + "; the server's operator can allow "
                + "more (mcp --allowed-origins).";
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("jsonrpc", McpSchema.JSONRPC_VERSION);
        body.put("error", Map.of("code", McpSchema.ErrorCodes.INVALID_REQUEST, "message", message));
        String text;
        try {
            text = json.writeValueAsString(body);
        } catch (IOException e) {
            text = "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32600,\"message\":\"Origin not allowed\"}}";
        }
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.FORBIDDEN,
                Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        return r;
    }

    /** The media type of a {@code Content-Type} value, lower case, without its parameters. */
    static String mediaType(String value) {
        int semi = value.indexOf(';');
        return (semi < 0 ? value : value.substring(0, semi)).strip().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * Whether an {@code Accept} value admits a media type: the type itself, {@code type/*} or {@code *}{@code /*},
     * unless its {@code q} is 0.
     */
    static boolean accepts(String accept, String type) {
        String family = type.substring(0, type.indexOf('/')) + "/*";
        for (String range : accept.split(",")) {
            String media = mediaType(range);
            if (media.equals(type) || media.equals(family) || media.equals("*/*")) {
                if (!range.replace(" ", "").toLowerCase(java.util.Locale.ROOT).matches(".*;q=0(\\.0*)?(;.*)?")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A header value as a message shows it: at most 80 characters. */
    private static String shown(String value) {
        return value.length() > 80 ? value.substring(0, 80) + "…" : value;
    }

    private static FullHttpResponse text(HttpResponseStatus status, String message) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.copiedBuffer(message + "\n", StandardCharsets.UTF_8));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        return r;
    }

    private static void plain(ChannelHandlerContext ctx, FullHttpRequest req, HttpResponseStatus status, String message) {
        send(ctx, req, text(status, message));
    }

    private static void send(ChannelHandlerContext ctx, FullHttpRequest req, FullHttpResponse resp) {
        HttpUtil.setContentLength(resp, resp.content().readableBytes());
        boolean keepAlive = HttpUtil.isKeepAlive(req);
        if (keepAlive) {
            HttpUtil.setKeepAlive(resp, true);
            ctx.writeAndFlush(resp);
        } else {
            ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** One SSE response: the messages the SDK sends on it, each as an event; ended once. */
    private final class SseStream implements McpStreamableServerTransport {
        private final ChannelHandlerContext ctx;
        private final boolean keepAlive;
        private final String sessionId;
        private final Open open;
        private final AtomicBoolean ended = new AtomicBoolean();

        SseStream(ChannelHandlerContext ctx, FullHttpRequest req, Open open) {
            this.ctx = ctx;
            this.keepAlive = HttpUtil.isKeepAlive(req);
            this.open = open;
            this.sessionId = open.session().getId();
            open.streams.incrementAndGet();
            HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
            head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream");
            head.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
            head.headers().set(HttpHeaders.MCP_SESSION_ID, sessionId);
            HttpUtil.setTransferEncodingChunked(head, true);
            ctx.writeAndFlush(head);
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
            return sendMessage(message, null);
        }

        @Override
        public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message, String messageId) {
            return Mono.fromRunnable(() -> {
                if (ended.get()) {
                    return;
                }
                String data;
                try {
                    data = json.writeValueAsString(message);
                } catch (IOException e) {
                    throw new IllegalStateException("Cannot write an MCP message for session " + sessionId, e);
                }
                // no "id:" line: this server keeps no events to replay, and an event id tells a client it may
                // resume a lost stream with Last-Event-ID (it would wait for an answer that never comes)
                StringBuilder event = new StringBuilder("event: message\ndata: ").append(data).append("\n\n");
                ctx.writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer(event, StandardCharsets.UTF_8)));
            });
        }

        void end() {
            if (ended.compareAndSet(false, true)) {
                open.streams.decrementAndGet();
                open.lastSeen.set(System.nanoTime());
                if (keepAlive) {
                    ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
                } else {
                    ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT).addListener(ChannelFutureListener.CLOSE);
                }
            }
        }

        @Override
        public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
            return json.convertValue(data, typeRef);
        }

        @Override
        public Mono<Void> closeGracefully() {
            return Mono.fromRunnable(this::end);
        }

        @Override
        public void close() {
            end();
        }
    }
}
