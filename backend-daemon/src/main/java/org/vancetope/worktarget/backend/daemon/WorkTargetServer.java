package org.vancetope.worktarget.backend.daemon;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.internal.BindFailures;
import org.vancetope.worktarget.backend.daemon.internal.ClosingWaits;
import org.vancetope.worktarget.backend.daemon.internal.FleetRouter;
import org.vancetope.worktarget.backend.daemon.internal.HttpGuards;
import org.vancetope.worktarget.backend.daemon.internal.NettyVersionCheck;
import org.vancetope.worktarget.backend.daemon.internal.PlainTextExposure;
import org.vancetope.worktarget.backend.daemon.internal.ServerConnection;
import org.vancetope.worktarget.backend.daemon.internal.ServerCore;
import org.vancetope.worktarget.backend.daemon.internal.ServerSettings;
import org.vancetope.worktarget.backend.daemon.internal.Wire;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.Authenticator;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.Peers;

/**
 * The server end of the wire protocol (the "Brain" side): a Netty WebSocket endpoint that
 * authenticates clients and serves foots and daemons alike — the session-bound foots (CLIENT target)
 * and the named daemons (DAEMON target) are peers in one registry — and runs {@code client_*} tools on
 * them. The protocol and what this module adds to it are described in {@code docs/protocol.md};
 * its settings and their defaults are listed in {@code docs/configuration.md}.
 *
 * <pre>{@code
 * WorkTargetServer server = WorkTargetServer.builder()
 *         .port(7070)
 *         .authenticator(TokenAuthenticator.fromJson(Path.of("tokens.json")))
 *         .build()
 *         .start();
 * WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder()
 *         .processStore(store)
 *         .peers(server.peers())
 *         .build();
 * // ...
 * server.close();
 * }</pre>
 *
 * <p>Calls on the endpoints of {@link #peers()} block the calling thread until the
 * result, the timeout ({@code timeout} plus a {@code client_tool_cancel} to the peer) or the peer's
 * disconnect ({@code offline}, at once). A call whose invocation frame would pass the frame limit
 * ({@link Builder#maxFrameBytes}) fails alone with {@code size_limit} before anything is sent, and a
 * client of this module answers a result that would pass it with a {@code size_limit} error, so one
 * oversized call never closes a connection. They must not be made on a Netty I/O thread. The server
 * runs no tools itself and does not implement file transfers: frames of other types go to the
 * {@link FrameExtension} given to the builder.
 */
public final class WorkTargetServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkTargetServer.class);

    private final Builder config;
    private final ServerCore core;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Channel serverChannel;
    private volatile FleetRouter fleet;
    private boolean closed;

    /**
     * The default of {@link Builder#maxConnections}: 10,000, or half of this process's limit of open files
     * when that is lower (read at class load from {@code /proc/self/limits}, where there is one).
     */
    public static final int DEFAULT_MAX_CONNECTIONS = HttpGuards.ConnectionCap.defaultMax(10_000, 2);
    /** The default of {@link Builder#maxUnauthenticatedPerAddress}. */
    public static final int DEFAULT_MAX_UNAUTHENTICATED_PER_ADDRESS = 128;

    private WorkTargetServer(Builder b) {
        this.config = b;
        Map<String, Object> limits = new LinkedHashMap<>();
        if (b.transfers != null) {
            // what the transfers of this server enforce, so that a client can size its transfers
            TransferSettings t = b.transfers.settings();
            limits.put("maxChunkBytes", t.chunkSize());
            limits.put("maxUploadSize", t.maxUploadSize());
            limits.put("maxDownloadSize", t.maxDownloadSize());
            limits.put("phaseTimeoutMs", t.phaseTimeout().toMillis());
        }
        limits.put(Wire.LIMIT_MAX_FRAME_BYTES, b.maxFrameBytes);
        this.core = new ServerCore(new ServerSettings(b.path, b.maxFrameBytes, b.maxHandshakeBytes, b.pingInterval,
                b.silentIntervalsBeforeClose, b.helloTimeout, b.protocolErrorLimit, b.protocolErrorWindow,
                offered(b.capabilities, b.extension), limits, b.authenticator, b.extension, System::nanoTime,
                b.upgradeTimeout, Math.min(b.maxManifestBytes, b.maxFrameBytes), b.manifestBudgetBytes,
                b.maxConnectionsPerSubject));
        if (b.transfers != null) {
            b.transfers.bindPeers(core.peers());
        }
    }

    /** The base protocol's capabilities and those of the frame extension. */
    static Set<String> offered(Set<String> base, FrameExtension extension) {
        Set<String> all = new LinkedHashSet<>(base);
        if (extension != null) {
            all.addAll(extension.capabilities());
        }
        return all;
    }

    /**
     * A new builder with the protocol's defaults.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Binds the port and starts accepting connections.
     *
     * @return this
     * @throws IOException when the address cannot be bound (a {@link java.net.BindException}), or when the
     *         fleet refuses this node: another live node has its id, or the fleet's store refuses it (a
     *         store that does not answer yet is not an error; see {@link FleetLink#start})
     * @throws IllegalStateException when already started
     */
    public synchronized WorkTargetServer start() throws IOException {
        if (boss != null || closed) {
            throw new IllegalStateException("The server was already started (or closed); build a new one.");
        }
        NettyVersionCheck.require("WorkTargetServer.start()");
        boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("worktarget-accept", true),
                NioIoHandler.newFactory());
        workers = new MultiThreadIoEventLoopGroup(config.ioThreads, new DefaultThreadFactory("worktarget-io", true),
                NioIoHandler.newFactory());
        ServerBootstrap b = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(config.lowWaterMark, config.highWaterMark))
                .handler(new HttpGuards.ConnectionCap("the WorkTarget server (maxConnections, "
                        + "maxUnauthenticatedPerAddress; serve --max-connections, --max-unauthenticated-per-address)",
                        config.maxConnections, config.maxUnauthenticatedPerAddress))
                .childHandler(core.initializer(config.sslContext));
        try {
            serverChannel = b.bind(config.host, config.port).syncUninterruptibly().channel();
        } catch (Exception e) {     // also the checked BindException, which Netty throws undeclared
            close();
            throw BindFailures.describe("the WorkTarget server", config.host, config.port, e);
        }
        if (config.fleet != null) {
            fleet = new FleetRouter(config.fleet, core.peers(), core.ids(), config.maxFrameBytes);
            try {
                fleet.start();
            } catch (IOException | RuntimeException e) {
                close();
                throw new IOException("Could not join the fleet as node '" + config.fleet.nodeId() + "': "
                        + e.getMessage(), e);
            }
        }
        InetSocketAddress bound = (InetSocketAddress) serverChannel.localAddress();
        LOG.info("WorkTarget server listening on {}://{}:{}{}", config.sslContext == null ? "ws" : "wss",
                bound.getHostString(), bound.getPort(), config.path);
        String exposed = config.sslContext != null ? null : PlainTextExposure.warning("The WorkTarget server", bound,
                "Serve wss:// (sslContext; serve --tls-cert/--tls-key), or bind 127.0.0.1 behind a proxy that "
                        + "terminates TLS.");
        if (exposed != null) {
            LOG.warn(exposed);
        }
        return this;
    }

    /**
     * The bound address.
     *
     * @return the address
     * @throws IllegalStateException before {@link #start()}
     */
    public InetSocketAddress address() {
        if (serverChannel == null) {
            throw new IllegalStateException("The server is not started.");
        }
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /**
     * The bound port (useful with port 0).
     *
     * @return the port
     */
    public int port() {
        return address().getPort();
    }

    /**
     * Every connected foot and daemon, for {@code WorkTargetDispatcher.Builder.peers}: the endpoints of
     * the CLIENT and DAEMON targets. An endpoint's {@link Endpoint#transferChannel()} is its connection,
     * for starting transfers on it.
     *
     * @return the peers
     */
    public Peers peers() {
        return core.peers();
    }

    /**
     * The connected clients, foots first, then daemons.
     *
     * @return snapshots
     */
    public List<ConnectionInfo> connections() {
        List<ConnectionInfo> out = new ArrayList<>();
        core.peers().all().forEach(c -> out.add(c.info()));
        return out;
    }

    /**
     * The peers connected to the other nodes of this server's fleet, and where: what an admin listing
     * shows beside {@link #connections()}. Empty for a single node.
     *
     * @return each remote peer's presence, by peer
     * @throws IOException when the fleet's store is unreachable
     */
    public Map<PeerKey, FleetLink.Presence> fleetPeers() throws IOException {
        FleetRouter f = fleet;
        return f == null ? Map.of() : f.remotePeers();
    }

    /**
     * Stops accepting, closes every connection (their pending calls fail {@code offline}) and
     * releases the threads. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (serverChannel != null) {
            ClosingWaits.await(serverChannel.close(), "the listening channel");
        }
        // tell connected clients we are going away (1001, they reconnect later); pending calls fail offline
        List<io.netty.channel.ChannelFuture> closing = new ArrayList<>();
        for (ServerConnection c : core.peers().all()) {
            closing.add(c.goAway());
        }
        for (io.netty.channel.ChannelFuture f : closing) {
            f.awaitUninterruptibly(2, TimeUnit.SECONDS);
        }
        if (fleet != null) {
            fleet.close();
        } else if (config.fleet != null) {
            config.fleet.close();
        }
        if (boss != null) {
            ClosingWaits.await(boss.shutdownGracefully(0, 2, TimeUnit.SECONDS), "the accepting event loop");
            ClosingWaits.await(workers.shutdownGracefully(0, 2, TimeUnit.SECONDS), "the connections' event loops");
        }
    }

    /**
     * Settings of a {@link WorkTargetServer}; every limit has the protocol's default.
     */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port = 0;
        private String path = "/worktarget/v1";
        private Authenticator authenticator;
        private SslContext sslContext;
        private int maxFrameBytes = 2 * 1024 * 1024;
        private int maxHandshakeBytes = 64 * 1024;
        private Duration pingInterval = Duration.ofSeconds(15);
        private int silentIntervalsBeforeClose = 3;
        private Duration helloTimeout = Duration.ofSeconds(10);
        private Duration upgradeTimeout = Duration.ofSeconds(10);
        private int protocolErrorLimit = 3;
        private Duration protocolErrorWindow = Duration.ofSeconds(10);
        private int lowWaterMark = 256 * 1024;
        private int highWaterMark = 1024 * 1024;
        private Set<String> capabilities = Set.of(Wire.CAP_INVOKE_CONTEXT, Wire.CAP_PROCESS_END);
        private ServerTransfers transfers;
        private FrameExtension extension;
        private int ioThreads = 0;
        private FleetLink fleet;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private int maxUnauthenticatedPerAddress = DEFAULT_MAX_UNAUTHENTICATED_PER_ADDRESS;
        private int maxManifestBytes = ServerSettings.DEFAULT_MAX_MANIFEST_BYTES;
        private long manifestBudgetBytes = ServerSettings.defaultManifestBudgetBytes();
        private int maxConnectionsPerSubject;

        private Builder() {
        }

        /**
         * The most connections the server holds at once, upgraded or not (default
         * {@link #DEFAULT_MAX_CONNECTIONS}: 10,000, or half of this process's limit of open files when that is
         * lower). A connection over it is closed at once, before anything is read; clients reconnect with
         * back-off. It keeps a client that opens sockets without end from using up the file descriptors that
         * jobs, files and the other ports of the process need.
         *
         * @param max at least 1
         * @return this
         */
        public Builder maxConnections(int max) {
            this.maxConnections = max;
            return this;
        }

        /**
         * The most connections one remote address may hold that have not authenticated yet (default
         * {@link #DEFAULT_MAX_UNAUTHENTICATED_PER_ADDRESS}); 0 for no such cap. One more from that address
         * closes the oldest of them. A connection stops counting once its upgrade request carried an accepted
         * token, so this bounds what one host without a token can take of {@link #maxConnections}, and sockets
         * that send nothing cannot keep out a daemon that authenticates at once, of another host or of the same
         * one (on a loopback bind, or behind a proxy, every client has one address). Clients that connect
         * through one NAT address all at once may need more.
         *
         * @param max 0 or more
         * @return this
         */
        public Builder maxUnauthenticatedPerAddress(int max) {
            this.maxUnauthenticatedPerAddress = max;
            return this;
        }

        /**
         * The most open connections (daemons and foots, past their {@code hello}) one token subject may
         * hold at once (default 0: no cap). One more is refused with {@code size_limit} and close 1013 (try
         * again later: the client reconnects with back-off), except a daemon or foot that replaces its own
         * open connection (a reconnect after a network cut), which supersedes it as always. The subject may
         * hold as many upgraded connections that have not sent {@code hello} yet (one more gets the same
         * answer), so that upgrades that never say hello cannot take the places either. With several
         * tenants on one server it keeps one token from taking the {@link #maxConnections} and the manifest
         * budget that the others need; a token shared by many daemons needs a cap above their number.
         *
         * @param max 0 (no cap) or more
         * @return this
         */
        public Builder maxConnectionsPerSubject(int max) {
            this.maxConnectionsPerSubject = max;
            return this;
        }

        /**
         * The largest tool manifest one peer may send, measured as its whole {@code hello} or
         * {@code tool_manifest} frame (default 512 KiB; the manifest of every CLIENT tool of this library is
         * about 30 KiB). A {@code hello} over it is refused with {@code size_limit} and close 4400 (the client stops: its
         * manifest must shrink); a {@code tool_manifest} over it is answered {@code bad_frame} and the
         * connection keeps the manifest it had. A value over {@link #maxFrameBytes} acts as that.
         *
         * @param bytes at least 4096
         * @return this
         */
        public Builder maxManifestBytes(int bytes) {
            this.maxManifestBytes = bytes;
            return this;
        }

        /**
         * The most bytes of tool manifests all connections may hold together (default: an eighth of the
         * heap this JVM may grow to, at least 16 MiB; a manifest held in memory takes about three times its
         * size on the wire). A {@code hello} whose manifest does not fit is refused with {@code size_limit}
         * and close 1013 (try again later: the client reconnects with back-off); a {@code tool_manifest} that
         * does not fit is answered {@code size_limit} and the old manifest stays. It keeps many connections
         * with large manifests from exhausting the heap that every other connection and call needs.
         *
         * @param bytes at least {@link #maxManifestBytes}
         * @return this
         */
        public Builder manifestBudgetBytes(long bytes) {
            this.manifestBudgetBytes = bytes;
            return this;
        }

        /**
         * The interface to bind (default {@code 127.0.0.1}; use {@code 0.0.0.0} to accept remote clients).
         *
         * @param host a host name or address
         * @return this
         */
        public Builder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /**
         * The port (default 0: an ephemeral port, see {@link WorkTargetServer#port()}).
         *
         * @param port 0 to 65535
         * @return this
         */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /**
         * The WebSocket path (default {@code /worktarget/v1}).
         *
         * @param path an absolute path
         * @return this
         */
        public Builder path(String path) {
            this.path = Objects.requireNonNull(path, "path");
            return this;
        }

        /**
         * Checks the bearer token of every upgrade request (required). It runs on an I/O thread: keep it fast.
         *
         * @param authenticator the authenticator
         * @return this
         */
        public Builder authenticator(Authenticator authenticator) {
            this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
            return this;
        }

        /**
         * Serves {@code wss://} with this TLS context (default: plain {@code ws://}).
         *
         * @param sslContext a server context, or null
         * @return this
         */
        public Builder sslContext(SslContext sslContext) {
            this.sslContext = sslContext;
            return this;
        }

        /**
         * The largest frame payload this server accepts (default 2 MiB, the protocol's limit); a larger
         * frame closes the connection with 1009. It is announced in {@code welcome.limits.maxFrameBytes},
         * and a client of this module holds its results to it. What the server sends is held to this
         * and to 2 MiB, whichever is smaller: an invocation whose frame would be larger fails alone
         * with {@code size_limit} and is not sent.
         *
         * @param bytes at least 64 KiB
         * @return this
         */
        public Builder maxFrameBytes(int bytes) {
            this.maxFrameBytes = bytes;
            return this;
        }

        /**
         * The largest upgrade request (default 64 KiB); larger ones get HTTP 413.
         *
         * @param bytes at least 1 KiB
         * @return this
         */
        public Builder maxHandshakeBytes(int bytes) {
            this.maxHandshakeBytes = bytes;
            return this;
        }

        /**
         * How often a silent connection is pinged (default 15 s).
         *
         * @param interval a positive duration
         * @return this
         */
        public Builder pingInterval(Duration interval) {
            this.pingInterval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /**
         * After how many ping intervals without inbound traffic a connection is closed (default 3). After
         * two it is reported {@code STALE}.
         *
         * @param intervals at least 2
         * @return this
         */
        public Builder silentIntervalsBeforeClose(int intervals) {
            this.silentIntervalsBeforeClose = intervals;
            return this;
        }

        /**
         * How long a connection may take to send {@code hello} after the upgrade (default 10 s); then close 4408.
         *
         * @param timeout a positive duration
         * @return this
         */
        public Builder helloTimeout(Duration timeout) {
            this.helloTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * How long a new connection may take, from the accept, to send its whole HTTP upgrade request
         * (default 10 s; the TLS handshake counts). A peer that sends its headers slowly or not at all
         * then gets HTTP 408 and is closed, whether it has a token or not. After the upgrade,
         * {@link #helloTimeout} applies.
         *
         * @param timeout a positive duration
         * @return this
         */
        public Builder upgradeTimeout(Duration timeout) {
            this.upgradeTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * How many protocol errors within {@code window} close a connection with 1008 (default 3 within 10 s).
         *
         * @param limit at least 1
         * @param window a positive duration
         * @return this
         */
        public Builder protocolErrorLimit(int limit, Duration window) {
            this.protocolErrorLimit = limit;
            this.protocolErrorWindow = Objects.requireNonNull(window, "window");
            return this;
        }

        /**
         * The per-connection write-buffer watermarks (default 256 KiB / 1 MiB): above {@code high} a
         * connection is not writable and senders wait until it drained below {@code low}.
         *
         * @param low the low watermark in bytes
         * @param high the high watermark in bytes
         * @return this
         */
        public Builder writeBufferWaterMark(int low, int high) {
            this.lowWaterMark = low;
            this.highWaterMark = high;
            return this;
        }

        /**
         * The capabilities this server supports (default {@code invoke.context} and {@code process.end}); {@code welcome}
         * confirms the intersection with the client's list.
         *
         * @param capabilities the names
         * @return this
         */
        public Builder capabilities(Set<String> capabilities) {
            this.capabilities = new LinkedHashSet<>(capabilities);
            return this;
        }

        /**
         * Carries file transfers: the {@link ServerTransfers}' frame extension handles the transfer frames,
         * and {@code welcome.limits} announces the limits its settings enforce ({@code maxChunkBytes},
         * {@code maxUploadSize}, {@code maxDownloadSize}, {@code phaseTimeoutMs}). The same as
         * {@code frameExtension(transfers.extension())} plus the announcement.
         *
         * @param serverTransfers the transfers
         * @return this
         */
        public Builder transfers(ServerTransfers serverTransfers) {
            this.transfers = Objects.requireNonNull(serverTransfers, "transfers");
            this.extension = serverTransfers.extension();
            return this;
        }

        /**
         * Handles frame types beyond the base protocol (default none: they are {@code bad_frame}). Replaces the
         * extension of {@link #transfers}, and {@code welcome} then announces no transfer limits.
         *
         * @param extension the extension, or null
         * @return this
         */
        public Builder frameExtension(FrameExtension extension) {
            this.extension = extension;
            this.transfers = null;
            return this;
        }

        /**
         * Makes this server one node of a fleet (default none: a single node). Calls for a daemon or a
         * foot connected to another node are forwarded there through the link, the daemons of every
         * node are listed, and a peer that reconnects to another node supersedes its connection here.
         * The server starts the link and closes it when it closes. Transfers run only with a peer
         * connected to this node.
         *
         * @param link the link to the other nodes, e.g. {@code RedisFleetLink} of the {@code cluster-redis} module
         * @return this
         */
        public Builder fleet(FleetLink link) {
            this.fleet = Objects.requireNonNull(link, "link");
            return this;
        }

        /**
         * The number of I/O threads (default 0: Netty's default, twice the cores).
         *
         * @param threads 0 or more
         * @return this
         */
        public Builder ioThreads(int threads) {
            this.ioThreads = threads;
            return this;
        }

        /**
         * Validates the settings and builds a server (not yet started).
         *
         * @return the server
         * @throws IllegalStateException without an authenticator
         * @throws IllegalArgumentException for an out-of-range setting, naming it
         */
        public WorkTargetServer build() {
            if (authenticator == null) {
                throw new IllegalStateException("An authenticator is required, e.g. TokenAuthenticator.fromJson(file).");
            }
            require(port >= 0 && port <= 65535, "port must be 0..65535, got " + port);
            require(path.startsWith("/"), "path must start with '/', got " + path);
            require(maxFrameBytes >= 64 * 1024, "maxFrameBytes must be at least 64 KiB, got " + maxFrameBytes);
            require(maxHandshakeBytes >= 1024, "maxHandshakeBytes must be at least 1 KiB, got " + maxHandshakeBytes);
            require(positive(pingInterval), "pingInterval must be positive, got " + pingInterval);
            require(silentIntervalsBeforeClose >= 2, "silentIntervalsBeforeClose must be at least 2");
            require(positive(helloTimeout), "helloTimeout must be positive, got " + helloTimeout);
            require(positive(upgradeTimeout), "upgradeTimeout must be positive, got " + upgradeTimeout);
            require(protocolErrorLimit >= 1 && positive(protocolErrorWindow), "protocolErrorLimit must be >= 1 "
                    + "within a positive window");
            require(lowWaterMark > 0 && highWaterMark >= lowWaterMark, "writeBufferWaterMark needs 0 < low <= high");
            require(ioThreads >= 0, "ioThreads must be >= 0");
            require(maxManifestBytes >= 4096, "maxManifestBytes must be at least 4096, got " + maxManifestBytes);
            require(manifestBudgetBytes >= maxManifestBytes, "manifestBudgetBytes must be at least maxManifestBytes ("
                    + maxManifestBytes + "), got " + manifestBudgetBytes);
            require(maxConnections >= 1, "maxConnections must be at least 1, got " + maxConnections);
            require(maxConnectionsPerSubject >= 0, "maxConnectionsPerSubject must be 0 (no cap) or more, got "
                    + maxConnectionsPerSubject);
            require(maxUnauthenticatedPerAddress >= 0, "maxUnauthenticatedPerAddress must be 0 (no cap) or more, got "
                    + maxUnauthenticatedPerAddress);
            return new WorkTargetServer(this);
        }

        private static boolean positive(Duration d) {
            return !d.isNegative() && !d.isZero();
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
