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
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.ConnectionInfo;
import org.vancetope.worktarget.backend.daemon.DaemonServer;
import org.vancetope.worktarget.backend.daemon.internal.Wire;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.WorkTargetKind;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The small admin HTTP API of {@code serve}, on loopback and protected by an admin token:
 * {@code GET /admin/v1/connections} lists connected foots and daemons; {@code POST /admin/v1/call}
 * runs a tool through the dispatcher with a given target. Calls run on a worker pool, never on the
 * I/O thread.
 */
final class AdminServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
    private final DaemonServer server;
    private final WorkTargetDispatcher dispatcher;
    private final AdminProcessStore store;
    private final byte[] token;
    private final ExecutorService calls = Executors.newCachedThreadPool(new DefaultThreadFactory("worktarget-admin-call", true));
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
            new DefaultThreadFactory("worktarget-admin-io", true), NioIoHandler.newFactory());
    private Channel channel;

    AdminServer(DaemonServer server, WorkTargetDispatcher dispatcher, AdminProcessStore store, String adminToken) {
        this.server = server;
        this.dispatcher = dispatcher;
        this.store = store;
        this.token = adminToken.getBytes(StandardCharsets.UTF_8);
    }

    AdminServer start(String host, int port) throws IOException {
        try {
            channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast("http", new HttpServerCodec());
                            ch.pipeline().addLast("http-aggregator", new HttpObjectAggregator(4 * 1024 * 1024));
                            ch.pipeline().addLast("admin", new Handler());
                        }
                    }).bind(host, port).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            close();
            throw new IOException("Could not bind the admin API on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        return this;
    }

    InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public void close() {
        if (channel != null) {
            channel.close().syncUninterruptibly();
        }
        calls.shutdownNow();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            String auth = req.headers().get(HttpHeaderNames.AUTHORIZATION, "");
            byte[] given = auth.startsWith("Bearer ") ? auth.substring(7).trim().getBytes(StandardCharsets.UTF_8) : new byte[0];
            if (!MessageDigest.isEqual(given, token)) {
                respond(ctx, keepAlive, HttpResponseStatus.UNAUTHORIZED, error(ErrorCode.UNAUTHORIZED,
                        "Missing or wrong admin token. Pass 'Authorization: Bearer <admin token>' (see serve's log)."));
                return;
            }
            String path = new QueryStringDecoder(req.uri()).path();
            if ("/admin/v1/connections".equals(path) && HttpMethod.GET.equals(req.method())) {
                respond(ctx, keepAlive, HttpResponseStatus.OK, connections());
            } else if ("/admin/v1/call".equals(path) && HttpMethod.POST.equals(req.method())) {
                String body = req.content().toString(StandardCharsets.UTF_8);
                calls.execute(() -> {
                    Response r = call(body);
                    respond(ctx, keepAlive, r.status, r.body);
                });
            } else {
                respond(ctx, keepAlive, HttpResponseStatus.NOT_FOUND, error(ErrorCode.NOT_FOUND,
                        "Unknown endpoint. Use GET /admin/v1/connections or POST /admin/v1/call."));
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.warn("Admin connection failed", cause);
            ctx.close();
        }
    }

    private record Response(HttpResponseStatus status, Map<String, Object> body) {
    }

    private Map<String, Object> connections() {
        Map<String, Object> out = new LinkedHashMap<>();
        List<ConnectionInfo> all = server.connections();
        out.put("foots", all.stream().filter(c -> Wire.PROFILE_FOOT.equals(c.profile())).map(AdminServer::toMap).toList());
        out.put("daemons", all.stream().filter(c -> Wire.PROFILE_DAEMON.equals(c.profile())).map(AdminServer::toMap).toList());
        return out;
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
            return bad("'tenant' and 'project' are required unless the target names exactly one connected peer.");
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
        String processId = given != null ? given : "admin-" + UUID.randomUUID();
        store.put(new ProcessInfo(processId, null, sessionId, tenant, project, text(n, "user"),
                Map.of(WorkTarget.ENGINE_PARAM_KEY, target.toMap())));
        try {
            Map<String, Object> result = dispatcher.invoke(processId, tool, params);
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("ok", true);
            out.put("result", result);
            return new Response(HttpResponseStatus.OK, out);
        } catch (ToolException e) {
            return new Response(HttpResponseStatus.OK, error(e.code(), e.getMessage()));
        } catch (RuntimeException e) {
            LOG.error("Admin call of {} failed unexpectedly", tool, e);
            return new Response(HttpResponseStatus.INTERNAL_SERVER_ERROR, error(ErrorCode.INTERNAL,
                    "The call failed unexpectedly; see the server log."));
        } finally {
            if (given == null) {
                store.remove(processId);
            }
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

    private static void respond(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status,
                                Map<String, Object> body) {
        byte[] json;
        try {
            json = Wire.mapper().writeValueAsBytes(body);
        } catch (IOException e) {
            json = "{\"ok\":false,\"error\":{\"code\":\"internal\",\"message\":\"unserializable result\"}}"
                    .getBytes(StandardCharsets.UTF_8);
            status = HttpResponseStatus.INTERNAL_SERVER_ERROR;
        }
        FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(json));
        res.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
        HttpUtil.setContentLength(res, json.length);
        HttpUtil.setKeepAlive(res, keepAlive);
        if (keepAlive) {
            ctx.writeAndFlush(res);
        } else {
            ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
