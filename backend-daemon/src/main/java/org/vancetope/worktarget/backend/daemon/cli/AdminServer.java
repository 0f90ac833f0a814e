package org.vancetope.worktarget.backend.daemon.cli;

import com.fasterxml.jackson.databind.JsonNode;
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
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.ConnectionInfo;
import org.vancetope.worktarget.backend.daemon.FleetLink;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.backend.daemon.internal.BindFailures;
import org.vancetope.worktarget.backend.daemon.internal.ClosingWaits;
import org.vancetope.worktarget.backend.daemon.internal.FleetRouter;
import org.vancetope.worktarget.backend.daemon.internal.HttpGuards;
import org.vancetope.worktarget.backend.daemon.internal.Ids;
import org.vancetope.worktarget.core.internal.LogLimiter;
import org.vancetope.worktarget.backend.daemon.internal.NettyVersionCheck;
import org.vancetope.worktarget.backend.daemon.internal.PeerFailures;
import org.vancetope.worktarget.backend.daemon.internal.Utf8;
import org.vancetope.worktarget.backend.daemon.internal.Wire;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.WorkTargetKind;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The small admin HTTP API of {@code serve}, on loopback and protected by an admin token:
 * {@code GET /admin/v1/connections} lists connected foots and daemons; {@code POST /admin/v1/call}
 * runs a tool through the dispatcher with a given target. Calls run on a worker pool, never on the
 * I/O thread.
 *
 * <p>What a connection may cost before it is trusted is bounded: the token is checked on the headers,
 * before any body is read (a wrong or missing token gets 401 and the connection closes); the whole
 * request, headers and body, must arrive within {@link Limits#requestTimeout()} of the accept or of
 * the previous answer (408 and close; an idle kept-alive connection is closed the same way); the body
 * is at most {@link Limits#maxBodyBytes()} (413) and must be valid UTF-8 (400). A failure of a
 * connection logs one short DEBUG line. Each request is logged at INFO (a call with its id, tool,
 * target, scope and outcome), a refused admin token at WARN (at most one line per 10 s, the others
 * counted); no token ever reaches the log. A call that fails with any {@code Throwable} is answered
 * {@code internal} at once, and logged once with the tool and the call's id.
 *
 * <p>A call without {@code processId} runs in a one-shot process that ends with the call: the
 * dispatcher's {@link WorkTargetDispatcher#processEnded(org.vancetope.worktarget.spi.ProcessInfo)} tells
 * every backend (the WORK backend disposes its temp RootDir and what else it created to be deleted with
 * it, and ends its jobs; daemons hear of it), then it leaves the process store. A call with a
 * {@code processId} runs in that named process, which keeps its target and temp RootDir between calls and the
 * tenant and project of its first call ({@link AdminProcesses}); {@code GET /admin/v1/processes} lists the
 * named processes, {@code DELETE /admin/v1/processes/ID} ends one (409 while a call runs in it), one without a
 * call for {@link Limits#processIdle()} ends by itself, and at most {@link Limits#maxProcesses()} exist (429).
 */
final class AdminServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
    /** At most one refused admin token per window is logged at WARN; a local user can cause them at will. */
    private static final LogLimiter REFUSALS = new LogLimiter(Duration.ofSeconds(10).toNanos(), System::nanoTime);
    /** The prefix of a one-shot process's id. */
    static final String ONE_SHOT_PREFIX = "admin-";
    /** Where the named processes are listed ({@code GET}). */
    static final String PROCESSES_LIST_PATH = "/admin/v1/processes";
    /** Where a named process is ended ({@code DELETE} + its id). */
    static final String PROCESSES_PATH = PROCESSES_LIST_PATH + "/";
    /** How long {@link #close} waits for interrupted calls before it ends the named processes. */
    static final int CLOSE_WAIT_SECONDS = 5;
    /** The longest processId. */
    static final int MAX_PROCESS_ID_CHARS = 128;

    /**
     * The limits of the admin API.
     *
     * @param requestTimeout how long a whole request (headers and body) may take to arrive, counted from the
     *                       accept or from the previous answer on the connection (default 10 s)
     * @param maxBodyBytes the largest request body (default 4 MiB); larger ones get 413
     * @param processIdle how long a named process (a call's {@code processId}) may go without a call before it
     *                    is ended (default 1 h); zero: never
     * @param maxProcesses the most named processes at once (default 1024); a call naming one more gets 429
     * @param maxConnections the most connections at once (default 256); one more is closed at once
     */
    record Limits(Duration requestTimeout, int maxBodyBytes, Duration processIdle, int maxProcesses,
                  int maxConnections) {
        /** The default request timeout. */
        static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
        /** The default body limit. */
        static final int DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
        /** The default idle time of a named process. */
        static final Duration DEFAULT_PROCESS_IDLE = Duration.ofHours(1);
        /** The default number of named processes. */
        static final int DEFAULT_MAX_PROCESSES = 1024;
        /** The default number of connections: the API is for the host's own scripts, on loopback. */
        static final int DEFAULT_MAX_CONNECTIONS = 256;

        /** Validates. */
        Limits {
            Objects.requireNonNull(requestTimeout, "requestTimeout");
            Objects.requireNonNull(processIdle, "processIdle");
            if (requestTimeout.isZero() || requestTimeout.isNegative()) {
                throw new IllegalArgumentException("requestTimeout must be positive, got " + requestTimeout);
            }
            if (maxBodyBytes < 1024) {
                throw new IllegalArgumentException("maxBodyBytes must be at least 1 KiB, got " + maxBodyBytes);
            }
            if (processIdle.isNegative()) {
                throw new IllegalArgumentException("processIdle must be zero (never) or positive, got " + processIdle);
            }
            if (maxProcesses < 1) {
                throw new IllegalArgumentException("maxProcesses must be at least 1, got " + maxProcesses);
            }
            if (maxConnections < 1) {
                throw new IllegalArgumentException("maxConnections must be at least 1, got " + maxConnections);
            }
        }

        /**
         * The defaults.
         *
         * @return 10 s, 4 MiB, 1 h, 1024, 256
         */
        static Limits defaults() {
            return new Limits(DEFAULT_REQUEST_TIMEOUT, DEFAULT_MAX_BODY_BYTES, DEFAULT_PROCESS_IDLE,
                    DEFAULT_MAX_PROCESSES, DEFAULT_MAX_CONNECTIONS);
        }

        /**
         * These limits with another request timeout.
         *
         * @param timeout a positive duration
         * @return the limits
         */
        Limits withRequestTimeout(Duration timeout) {
            return new Limits(timeout, maxBodyBytes, processIdle, maxProcesses, maxConnections);
        }

        /**
         * These limits with another body limit.
         *
         * @param bytes at least 1 KiB
         * @return the limits
         */
        Limits withMaxBodyBytes(int bytes) {
            return new Limits(requestTimeout, bytes, processIdle, maxProcesses, maxConnections);
        }

        /**
         * These limits with other bounds on named processes.
         *
         * @param idle zero (never) or positive
         * @param max at least 1
         * @return the limits
         */
        Limits withProcesses(Duration idle, int max) {
            return new Limits(requestTimeout, maxBodyBytes, idle, max, maxConnections);
        }

        /**
         * These limits with another connection cap.
         *
         * @param max at least 1
         * @return the limits
         */
        Limits withMaxConnections(int max) {
            return new Limits(requestTimeout, maxBodyBytes, processIdle, maxProcesses, max);
        }
    }

    private final WorkTargetServer server;
    private final WorkTargetDispatcher dispatcher;
    private final InMemoryProcessStore store;
    private final byte[] token;
    private final Limits limits;
    /** {@code "@NODE"} on a node of a fleet, else empty: what qualifies the names of named processes. */
    private final String nodeSuffix;
    private final Ids ids = new Ids();
    private final ExecutorService calls = Executors.newCachedThreadPool(new DefaultThreadFactory("worktarget-admin-call", true));
    private final AdminProcesses processes;
    private final HttpGuards.ConnectionCap cap;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
    private final EventLoopGroup group;
    private Channel channel;

    /**
     * An admin server with the default limits whose one-shot processes only leave the store.
     *
     * @param server the server whose connections it lists
     * @param dispatcher runs the calls
     * @param store the processes of the calls
     * @param adminToken the token every request must carry
     */
    AdminServer(WorkTargetServer server, WorkTargetDispatcher dispatcher, InMemoryProcessStore store, String adminToken) {
        this(server, dispatcher, store, adminToken, Limits.defaults());
    }

    /**
     * An admin server.
     *
     * @param server the server whose connections it lists
     * @param dispatcher runs the calls
     * @param store the processes of the calls
     * @param adminToken the token every request must carry
     * @param limits the limits
     */
    AdminServer(WorkTargetServer server, WorkTargetDispatcher dispatcher, InMemoryProcessStore store, String adminToken,
                Limits limits) {
        this(server, dispatcher, store, adminToken, limits, null);
    }

    /**
     * An admin server of one node of a fleet: the process id a named process has towards the backends and
     * peers is its name qualified by this node ({@code NAME@NODE}), so that the same name on two nodes makes two
     * processes there too (the daemons of the fleet would otherwise take them for one, and one node's end of
     * its process would kill the other's jobs). Callers still name it by its name alone.
     *
     * @param server the server whose connections it lists
     * @param dispatcher runs the calls
     * @param store the processes of the calls
     * @param adminToken the token every request must carry
     * @param limits the limits
     * @param nodeId this node's id in the fleet, or null for a single node (names are used as they are)
     */
    AdminServer(WorkTargetServer server, WorkTargetDispatcher dispatcher, InMemoryProcessStore store, String adminToken,
                Limits limits, String nodeId) {
        NettyVersionCheck.require("serve's admin API");
        this.nodeSuffix = nodeId == null ? "" : "@" + nodeId;
        this.group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("worktarget-admin-io", true),
                NioIoHandler.newFactory());
        this.server = server;
        this.dispatcher = dispatcher;
        this.store = store;
        this.token = adminToken.getBytes(StandardCharsets.UTF_8);
        this.limits = Objects.requireNonNull(limits, "limits");
        this.processes = new AdminProcesses(name -> endProcess(processId(name)), limits.processIdle(),
                limits.maxProcesses(), System::nanoTime);
        this.cap = new HttpGuards.ConnectionCap("serve's admin API", limits.maxConnections());
    }

    AdminServer start(String host, int port) throws IOException {
        try {
            channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class).handler(cap)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast("http", new HttpServerCodec());
                            ch.pipeline().addLast("in-order", new HttpGuards.InOrder());
                            ch.pipeline().addLast("deadline", new HttpGuards.RequestDeadline(limits.requestTimeout(),
                                    AdminServer.this::requestTimedOut));
                            ch.pipeline().addLast("token", new TokenGate());
                            ch.pipeline().addLast("http-aggregator", new HttpGuards.BodyLimit(limits.maxBodyBytes(),
                                    AdminServer.this::bodyTooLarge));
                            ch.pipeline().addLast("admin", new Handler());
                        }
                    }).bind(host, port).syncUninterruptibly().channel();
        } catch (Exception e) {     // also the checked BindException, which Netty throws undeclared
            close();
            throw BindFailures.describe("the admin API", host, port, e);
        }
        if (!limits.processIdle().isZero()) {
            long every = Math.max(1, Math.min(limits.processIdle().toMillis() / 2, 60_000));
            group.scheduleAtFixedRate(this::sweepIdleProcesses, every, every, TimeUnit.MILLISECONDS);
        }
        return this;
    }

    /** From the event loop: ends the idle named processes on a call thread (an end deletes files). */
    private void sweepIdleProcesses() {
        try {
            calls.execute(() -> {
                List<String> ended = processes.sweep();
                if (!ended.isEmpty()) {
                    LOG.info("Ended {} named admin process(es) idle for {} s or more: {}", ended.size(),
                            limits.processIdle().toSeconds(), ended);
                }
            });
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /**
     * Stops taking connections; the open ones go on, and the calls running are answered. A server that
     * shuts down calls this first, ends what the calls wait for (the peers' connections, the transfers, so
     * that an upload cut off answers with its resume id), then {@link #close}.
     */
    void stopAccepting() {
        Channel listening = channel;
        if (listening != null) {
            ClosingWaits.await(listening.close(), "the admin API's listening channel");
        }
    }

    /**
     * Stops taking requests, interrupts the running calls (waiting up to {@value #CLOSE_WAIT_SECONDS} s for
     * them), then ends every named process: the process store goes with the server, so nothing could end them
     * later, and their temp RootDirs would stay on disk. A second call does nothing.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (channel != null) {
            ClosingWaits.await(channel.close(), "the admin API's listening channel");
        }
        calls.shutdownNow();
        try {
            calls.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<String> ended = processes.endAll();
        if (!ended.isEmpty()) {
            LOG.info("Ended the {} named admin process(es) as the admin API closed: {}", ended.size(), ended);
        }
        ClosingWaits.drain(group, "the admin API");     // the answers the calls wrote go out before the loop closes
        ClosingWaits.await(group.shutdownGracefully(0, 2, TimeUnit.SECONDS), "the admin API's event loop");
    }

    private boolean tokenMatches(HttpRequest req) {
        String auth = req.headers().get(HttpHeaderNames.AUTHORIZATION, "");
        byte[] given = auth.startsWith("Bearer ") ? auth.substring(7).trim().getBytes(StandardCharsets.UTF_8) : new byte[0];
        return MessageDigest.isEqual(given, token);
    }

    private FullHttpResponse requestTimedOut() {
        LOG.debug("Closing an admin connection: no complete request within {} ms", limits.requestTimeout().toMillis());
        return response(HttpResponseStatus.REQUEST_TIMEOUT, errorJson(ErrorCode.TIMEOUT, "The whole request must "
                + "arrive within " + limits.requestTimeout().toMillis() + " ms of the connection or of the previous "
                + "answer; send it at once, or connect again."), false);
    }

    private FullHttpResponse bodyTooLarge() {
        LOG.debug("Refused an admin request: body over {} bytes", limits.maxBodyBytes());
        return response(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, errorJson(ErrorCode.SIZE_LIMIT,
                "The body exceeds the admin API's limit of " + limits.maxBodyBytes() + " bytes (maxBodyBytes). Send a "
                + "smaller call: move big content through a file transfer instead."), false);
    }

    /** Checks the admin token on the headers, before any body is buffered. */
    private final class TokenGate extends HttpGuards.HeadGate {
        @Override
        protected FullHttpResponse malformed(String why) {
            return response(HttpResponseStatus.BAD_REQUEST, errorJson(ErrorCode.INVALID_PARAMS,
                    "The request is not valid HTTP/1.1 (" + why + ")."), false);
        }

        @Override
        protected FullHttpResponse refuse(ChannelHandlerContext ctx, HttpRequest req) {
            if (tokenMatches(req)) {
                return null;
            }
            long folded = REFUSALS.tryLoud();
            if (folded >= 0) {
                LOG.warn("Refused admin request {} {} from {}: {} admin token{}", req.method(),
                        new QueryStringDecoder(req.uri()).path(), ctx.channel().remoteAddress(),
                        req.headers().contains(HttpHeaderNames.AUTHORIZATION) ? "wrong" : "no",
                        folded > 0 ? " (and " + folded + " more refusals since the last report, at DEBUG)" : "");
            }
            return response(HttpResponseStatus.UNAUTHORIZED, errorJson(ErrorCode.UNAUTHORIZED,
                    "Missing or wrong admin token. Pass 'Authorization: Bearer <admin token>' (see serve's log "
                    + "for where the token is)."), false);
        }
    }

    /** The one method an endpoint's path is served with, or null for a path that is no endpoint. */
    private static String allowedMethod(String path) {
        if ("/admin/v1/connections".equals(path) || PROCESSES_LIST_PATH.equals(path) || PROCESSES_PATH.equals(path)) {
            return "GET";
        }
        if ("/admin/v1/call".equals(path)) {
            return "POST";
        }
        return path.startsWith(PROCESSES_PATH) ? "DELETE" : null;
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            String path = new QueryStringDecoder(req.uri()).path();
            String allowed = allowedMethod(path);
            if (allowed == null) {
                LOG.info("Admin request from {}: {} {} is not an endpoint (404)", ctx.channel().remoteAddress(),
                        req.method(), path);
                respond(ctx, keepAlive, HttpResponseStatus.NOT_FOUND, error(ErrorCode.NOT_FOUND,
                        "Unknown endpoint. Use GET /admin/v1/connections, POST /admin/v1/call, GET /admin/v1/processes "
                        + "or DELETE /admin/v1/processes/ID."));
            } else if (!allowed.equals(req.method().name())) {
                LOG.info("Admin request from {}: {} {} is not its method (405)", ctx.channel().remoteAddress(),
                        req.method(), path);
                respond(ctx, keepAlive, HttpResponseStatus.METHOD_NOT_ALLOWED, error(ErrorCode.INVALID_PARAMS,
                        req.method() + " is not served on " + path + ": use " + allowed + "."));
            } else if ("/admin/v1/connections".equals(path)) {
                LOG.info("Admin request from {}: GET {}", ctx.channel().remoteAddress(), path);
                respond(ctx, keepAlive, HttpResponseStatus.OK, connections());
            } else if ("/admin/v1/call".equals(path)) {
                if (!Utf8.isValid(req.content())) {
                    respond(ctx, keepAlive, HttpResponseStatus.BAD_REQUEST, error(ErrorCode.INVALID_PARAMS,
                            "The body is not valid UTF-8. Send the JSON call as UTF-8 text."));
                    return;
                }
                String body = req.content().toString(StandardCharsets.UTF_8);
                offLoop(ctx, keepAlive, "?", () -> call(body), "The server is shutting down; call again when it is back.");
            } else if (allowed.equals("GET")) {     // the listing of the named processes
                LOG.info("Admin request from {}: GET {}", ctx.channel().remoteAddress(), path);
                respond(ctx, keepAlive, HttpResponseStatus.OK, Map.of("processes", processes.list(),
                        "maxProcesses", limits.maxProcesses(), "processIdleSeconds", limits.processIdle().toSeconds()));
            } else {                                 // DELETE of one named process
                String id = path.substring(PROCESSES_PATH.length());
                LOG.info("Admin request from {}: DELETE {}", ctx.channel().remoteAddress(), path);
                offLoop(ctx, keepAlive, "DELETE " + path, () -> endNamed(id),
                        "The server is shutting down; its processes end with it.");
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (PeerFailures.isNetwork(cause)) {
                LOG.debug("Admin connection {} failed: {}", ctx.channel(), PeerFailures.brief(cause));
            } else {
                LOG.warn("Admin connection {} failed unexpectedly", ctx.channel(), cause);
            }
            ctx.close();
        }
    }

    private record Response(HttpResponseStatus status, Map<String, Object> body) {
    }

    /**
     * Runs a request's work on a call thread, never on the I/O thread (it may wait for a tool or delete files),
     * and answers it; any {@code Throwable} (an {@code Error} too) is answered {@code internal}, so the caller gets
     * an answer and the pool keeps a live thread. When the pool is shut down, answers 503 with {@code closing}.
     */
    private void offLoop(ChannelHandlerContext ctx, boolean keepAlive, String what, Supplier<Response> work,
                         String closing) {
        try {
            calls.execute(() -> {
                Response r;
                try {
                    r = work.get();
                } catch (Throwable t) {
                    r = internal(what, ids.next("ac-"), t);
                }
                respond(ctx, keepAlive, r.status, r.body);
            });
        } catch (RejectedExecutionException e) {
            respond(ctx, false, HttpResponseStatus.SERVICE_UNAVAILABLE, error(ErrorCode.OFFLINE, closing));
        }
    }

    /** The answer of a request that succeeded: {@code {ok: true, result}}. */
    private static Response ok(Map<String, Object> result) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("ok", true);
        out.put("result", result);
        return new Response(HttpResponseStatus.OK, out);
    }

    private Map<String, Object> connections() {
        Map<String, Object> out = new LinkedHashMap<>();
        List<ConnectionInfo> all = server.connections();
        List<Map<String, Object>> foots = new ArrayList<>(all.stream()
                .filter(c -> Wire.PROFILE_FOOT.equals(c.profile())).map(AdminServer::toMap).toList());
        List<Map<String, Object>> daemons = new ArrayList<>(all.stream()
                .filter(c -> Wire.PROFILE_DAEMON.equals(c.profile())).map(AdminServer::toMap).toList());
        out.put("foots", foots);
        out.put("daemons", daemons);
        addFleetPeers(out, foots, daemons);
        return out;
    }

    /** The peers of the other nodes of a fleet, each marked with its node; a note when Redis is unreachable. */
    private void addFleetPeers(Map<String, Object> out, List<Map<String, Object>> foots,
                               List<Map<String, Object>> daemons) {
        Map<PeerKey, FleetLink.Presence> remote;
        try {
            remote = server.fleetPeers();
        } catch (IOException e) {
            out.put("fleetUnreachable", "Only this node's connections are listed: the fleet's store is unreachable ("
                    + e.getMessage() + ").");
            return;
        }
        remote.forEach((key, p) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("node", p.node());
            m.put("connectionId", p.connectionId());
            m.put("tenant", key.tenant());
            if (key instanceof DaemonKey d) {
                m.put("project", d.project());
                m.put("name", d.name());
            } else if (key instanceof SessionKey sk) {
                m.put("sessionId", sk.sessionId());
            }
            m.put("tools", FleetRouter.toolNames(p.manifest()));
            (key instanceof DaemonKey ? daemons : foots).add(m);
        });
    }

    private static Map<String, Object> toMap(ConnectionInfo c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("connectionId", c.connectionId());
        m.put("tenant", c.tenant());
        m.put("project", c.project());
        if (c.daemonName() != null) {
            m.put("name", c.daemonName());
        }
        if (c.sessionId() != null) {
            m.put("sessionId", c.sessionId());
        }
        m.put("clientName", c.clientName());
        m.put("subject", c.subject());
        m.put("remoteAddress", c.remoteAddress());
        m.put("connectedAt", c.connectedAt().toString());
        m.put("state", c.state().name());
        m.put("pendingCalls", c.pendingCalls());
        m.put("tools", c.tools());
        return m;
    }

    private Response call(String body) {
        JsonNode n;
        try {
            n = Wire.mapper().readTree(body);
        } catch (IOException e) {
            return bad("The body is not valid JSON. Send {tenant, project, processId?, sessionId?, target, tool, params}.");
        }
        if (n == null || !n.isObject()) {
            return bad("The body must be a JSON object {tenant, project, processId?, sessionId?, target, tool, params}.");
        }
        String tool = n.path("tool").asText("");
        String targetText = n.path("target").asText("");
        if (tool.isEmpty() || targetText.isEmpty()) {
            return bad("'tool' and 'target' are required, e.g. {\"target\":\"DAEMON:build-box-01\",\"tool\":\"file_read\"}.");
        }
        WorkTarget target;
        try {
            int colon = targetText.indexOf(':');
            WorkTargetKind kind = WorkTarget.parseKind(colon < 0 ? targetText : targetText.substring(0, colon));
            target = new WorkTarget(kind, colon < 0 ? null : targetText.substring(colon + 1));
        } catch (IllegalArgumentException e) {
            return bad(e.getMessage() + " Write the target as CLIENT, WORK, WORK:<dir> or DAEMON:<name>.");
        }
        String sessionId = text(n, "sessionId");
        String tenant = text(n, "tenant");
        String project = text(n, "project");
        if (tenant == null || project == null) {
            ConnectionInfo peer = uniquePeer(target, sessionId);
            if (peer != null) {
                tenant = tenant == null ? peer.tenant() : tenant;
                project = project == null ? peer.project() : project;
            }
        }
        if (tenant == null || project == null) {
            return bad("'tenant' and 'project' are required unless the target names exactly one peer connected to "
                    + "this server node (in a fleet, give them for a peer connected to another node).");
        }
        String unsafe = Segments.problem(tenant);
        if (unsafe != null) {
            return bad(Segments.message("'tenant'", unsafe));
        }
        unsafe = Segments.projectMessage("'project'", project);
        if (unsafe != null) {
            return bad(unsafe);
        }
        Map<String, Object> params;
        JsonNode p = n.get("params");
        if (p == null || p.isNull()) {
            params = Map.of();
        } else if (!p.isObject()) {
            return bad("'params' must be a JSON object.");
        } else {
            params = Wire.mapper().convertValue(p, Wire.mapper().getTypeFactory()
                    .constructMapType(LinkedHashMap.class, String.class, Object.class));
        }
        String given = text(n, "processId");
        if (given != null) {
            String problem = processIdProblem(given);
            if (problem != null) {
                return bad(problem);
            }
            AdminProcesses.Refusal refused = processes.enter(given, tenant, project);
            if (refused == AdminProcesses.Refusal.OTHER_SCOPE) {
                String owner = processes.scopeOf(given);      // null when it ended since: then it was someone else's
                return bad("Process '" + given + "' belongs to " + (owner != null ? owner : "another tenant or project")
                        + ": a process keeps the tenant and project of its first call. Use another processId, or end "
                        + "this one first (DELETE " + PROCESSES_PATH + given + ").");
            }
            if (refused == AdminProcesses.Refusal.TOO_MANY) {
                LOG.info("Admin call refused (429): {} named processes exist, the most there may be", limits.maxProcesses());
                return new Response(HttpResponseStatus.TOO_MANY_REQUESTS, error(ErrorCode.SIZE_LIMIT, "There are "
                        + "already " + limits.maxProcesses() + " named processes (the most there may be). End the ones "
                        + "you are done with (DELETE " + PROCESSES_PATH + "ID; GET " + PROCESSES_LIST_PATH
                        + " lists them), or call without a processId."));
            }
        }
        String processId = given != null ? processId(given) : ONE_SHOT_PREFIX + UUID.randomUUID();
        String callId = ids.next("ac-");
        long started = System.nanoTime();
        String what = tool + " on " + targetText + " in " + tenant + "/" + project
                + (given != null ? " (process " + given + ")" : "");
        try {
            store.add(new ProcessInfo(processId, null, sessionId, tenant, project, text(n, "user"),
                    Map.of(WorkTarget.ENGINE_PARAM_KEY, target.toMap())));
            Map<String, Object> result = dispatcher.invoke(processId, tool, params);
            LOG.info("Admin call {}: {}: ok ({} ms)", callId, what, (System.nanoTime() - started) / 1_000_000);
            return ok(result);
        } catch (ToolException e) {
            LOG.info("Admin call {}: {}: error {} ({} ms)", callId, what, e.code().wire(),
                    (System.nanoTime() - started) / 1_000_000);
            return new Response(HttpResponseStatus.OK, error(e.code(), e.getMessage()));
        } catch (Throwable t) {     // an Error too (StackOverflowError, OutOfMemoryError): internal, logged once
            return internal(tool, callId, t);
        } finally {
            if (given == null) {
                endProcess(processId);
            } else {
                processes.exit(given);
            }
        }
    }

    /** Why a processId cannot be used, or null: it is logged and goes into URLs, so it is short, printable text. */
    private static String processIdProblem(String id) {
        if (id.length() > MAX_PROCESS_ID_CHARS) {
            return "'processId' must be at most " + MAX_PROCESS_ID_CHARS + " characters, got " + id.length() + ".";
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c <= ' ' || c == 0x7f || c == '/') {
                return "'processId' must not contain blanks, control characters or '/'; use e.g. 'nightly-build-1'.";
            }
        }
        return null;
    }

    /** DELETE /admin/v1/processes/ID: ends a named process, on a call thread (an end deletes files). */
    private Response endNamed(String id) {
        AdminProcesses.Ended ended = processes.end(id);
        switch (ended) {
            case ENDED -> {
                LOG.info("Admin request: ended the named process {}", id);
                Map<String, Object> result = new LinkedHashMap<>();
                result.put("processId", id);
                result.put("ended", true);
                return ok(result);
            }
            case BUSY -> {
                return new Response(HttpResponseStatus.CONFLICT, error(ErrorCode.INVALID_PARAMS, "A call runs in "
                        + "process '" + id + "'; end it once that call has returned."));
            }
            default -> {
                return new Response(HttpResponseStatus.NOT_FOUND, error(ErrorCode.NOT_FOUND, "No named process '" + id
                        + "': it ended already (on request, or after " + limits.processIdle().toMinutes() + " min without "
                        + "a call), or never had a call. GET " + PROCESSES_LIST_PATH + " lists them."));
            }
        }
    }

    private static Response internal(String tool, String callId, Throwable t) {
        LOG.error("Admin call {} of {} failed unexpectedly", callId, tool, t);
        return new Response(HttpResponseStatus.INTERNAL_SERVER_ERROR, error(ErrorCode.INTERNAL, "The call failed "
                + "unexpectedly (" + t.getClass().getSimpleName() + "); see the server log for admin call " + callId
                + ". Retrying may not help."));
    }

    /**
     * Ends a process: it leaves the store first, so that no new call finds it, then every backend hears of it
     * (its temp RootDir goes, once the calls it still has running have returned).
     */
    /** The process id of a named process towards the backends and peers: its name, on a fleet's node qualified. */
    private String processId(String name) {
        return name + nodeSuffix;
    }

    private void endProcess(String processId) {
        Optional<ProcessInfo> process = store.find(processId);
        store.remove(processId);
        try {
            process.ifPresent(dispatcher::processEnded);
        } catch (Throwable t) {
            LOG.warn("Ending the process {} failed; its temp RootDir may stay until the next start", processId, t);
        }
    }

    private ConnectionInfo uniquePeer(WorkTarget target, String sessionId) {
        List<ConnectionInfo> matches = server.connections().stream().filter(c -> switch (target.kind()) {
            case DAEMON -> target.targetName().equals(c.daemonName());
            case CLIENT -> sessionId != null && sessionId.equals(c.sessionId());
            case WORK -> false;
        }).toList();
        return matches.size() == 1 ? matches.get(0) : null;
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || v.isNull() || v.asText().isEmpty() ? null : v.asText();
    }

    private static Response bad(String message) {
        LOG.info("Admin call refused as malformed (400): {}", message);
        return new Response(HttpResponseStatus.BAD_REQUEST, error(ErrorCode.INVALID_PARAMS, message));
    }

    private static Map<String, Object> error(ErrorCode code, String message) {
        Map<String, Object> err = new LinkedHashMap<>();
        err.put("code", code.wire());
        err.put("message", message);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("ok", false);
        out.put("error", err);
        return out;
    }

    private static byte[] errorJson(ErrorCode code, String message) {
        return json(error(code, message));
    }

    private static byte[] json(Map<String, Object> body) {
        try {
            return Wire.mapper().writeValueAsBytes(body);
        } catch (IOException | RuntimeException | StackOverflowError e) {
            return null;
        }
    }

    private static FullHttpResponse response(HttpResponseStatus status, byte[] json, boolean keepAlive) {
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(json));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        HttpUtil.setContentLength(res, json.length);
        if (keepAlive) {
            HttpUtil.setKeepAlive(res, true);
        } else {
            res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return res;
    }

    private static void respond(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status,
                                Map<String, Object> body) {
        byte[] json = json(body);
        if (json == null) {
            LOG.error("An admin answer could not be written as JSON; answering internal");
            json = "{\"ok\":false,\"error\":{\"code\":\"internal\",\"message\":\"The result could not be written as JSON.\"}}"
                    .getBytes(StandardCharsets.UTF_8);
            status = HttpResponseStatus.INTERNAL_SERVER_ERROR;
        }
        FullHttpResponse res = response(status, json, keepAlive);
        if (keepAlive) {
            ctx.writeAndFlush(res);
        } else {
            ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
