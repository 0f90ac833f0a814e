package org.vancetope.worktarget.backend.daemon.internal;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's shared state (settings, the peer registry, the id source) and the one pipeline
 * every connection gets.
 */
public final class ServerCore {
    private final ServerSettings settings;
    private final PeerRegistry peers = new PeerRegistry();
    private final Ids ids = new Ids();
    private final AtomicLong manifestBytes = new AtomicLong();
    /** The connections each subject holds, under {@link ServerSettings#maxConnectionsPerSubject}. */
    private final java.util.concurrent.ConcurrentHashMap<String, Integer> perSubject =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** The upgraded connections each subject holds that have not sent {@code hello} yet. */
    private final java.util.concurrent.ConcurrentHashMap<String, Integer> pendingBySubject =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Creates the core.
     *
     * @param settings the settings
     */
    public ServerCore(ServerSettings settings) {
        this.settings = settings;
    }

    /**
     * The settings.
     *
     * @return the settings
     */
    public ServerSettings settings() {
        return settings;
    }

    /**
     * The registry of every connected foot and daemon.
     *
     * @return the registry
     */
    public PeerRegistry peers() {
        return peers;
    }

    /**
     * The id source.
     *
     * @return the id source
     */
    public Ids ids() {
        return ids;
    }

    /**
     * Takes room for manifest bytes from the budget all connections share
     * ({@link ServerSettings#manifestBudgetBytes}), if it has that much left.
     *
     * @param bytes 0 or more
     * @return false when the budget has not that much room (nothing is taken)
     */
    boolean takeManifestBytes(long bytes) {
        long budget = settings.manifestBudgetBytes();
        while (true) {
            long held = manifestBytes.get();
            if (held + bytes > budget) {
                return false;
            }
            if (manifestBytes.compareAndSet(held, held + bytes)) {
                return true;
            }
        }
    }

    /**
     * Takes one of the connections a token's subject may hold at once
     * ({@link ServerSettings#maxConnectionsPerSubject}; 0: no cap, nothing is counted).
     *
     * @param subject the connection's subject
     * @param replacing whether the connection replaces an open one of the same subject and key (a daemon
     *        reconnecting): it is admitted over the cap, as the one it replaces is about to leave
     * @return false when the subject holds as many as it may (nothing is taken)
     */
    boolean takeSubjectConnection(String subject, boolean replacing) {
        return take(perSubject, subject, replacing);
    }

    /**
     * Gives back what {@link #takeSubjectConnection} took.
     *
     * @param subject the subject
     */
    void releaseSubjectConnection(String subject) {
        release(perSubject, subject);
    }

    /**
     * Takes one of the upgraded connections that have not sent {@code hello} yet a token's subject may hold
     * (as many as {@link ServerSettings#maxConnectionsPerSubject}; 0: no cap): without it a token could hold
     * every place of {@code maxConnections} with upgrades that never say hello, until the hello timeout.
     *
     * @param subject the connection's subject
     * @return false when the subject holds as many as it may (nothing is taken)
     */
    boolean takePendingSubject(String subject) {
        return take(pendingBySubject, subject, false);
    }

    /**
     * Gives back what {@link #takePendingSubject} took (at {@code hello}, or when the connection closes).
     *
     * @param subject the subject
     */
    void releasePendingSubject(String subject) {
        release(pendingBySubject, subject);
    }

    private boolean take(java.util.concurrent.ConcurrentHashMap<String, Integer> counts, String subject, boolean over) {
        int max = settings.maxConnectionsPerSubject();
        if (max == 0) {
            return true;
        }
        boolean[] taken = new boolean[1];
        counts.compute(subject, (k, held) -> {
            int n = held == null ? 0 : held;
            if (n >= max && !over) {
                return held;
            }
            taken[0] = true;
            return n + 1;
        });
        return taken[0];
    }

    private void release(java.util.concurrent.ConcurrentHashMap<String, Integer> counts, String subject) {
        if (settings.maxConnectionsPerSubject() != 0) {
            counts.computeIfPresent(subject, (k, held) -> held <= 1 ? null : held - 1);
        }
    }

    /**
     * How many connections a subject holds now (counted only under a cap).
     *
     * @param subject the subject
     * @return the count
     */
    int subjectConnections(String subject) {
        return perSubject.getOrDefault(subject, 0);
    }

    /**
     * Gives manifest bytes back to the budget.
     *
     * @param bytes what {@link #takeManifestBytes} took
     */
    void releaseManifestBytes(long bytes) {
        manifestBytes.addAndGet(-bytes);
    }

    /**
     * The manifest bytes all connections hold now.
     *
     * @return bytes
     */
    long manifestBytesHeld() {
        return manifestBytes.get();
    }

    /**
     * The channel initializer of accepted connections.
     *
     * @param ssl TLS, or null for plain {@code ws://}
     * @return the initializer
     */
    public ChannelInitializer<SocketChannel> initializer(SslContext ssl) {
        WebSocketServerProtocolConfig ws = WebSocketServerProtocolConfig.newBuilder()
                .websocketPath(settings.path())
                .checkStartsWith(true)              // a query string is allowed; HandshakeAuthHandler refuses any other path
                .maxFramePayloadLength(settings.maxFrameBytes())
                .handshakeTimeoutMillis(settings.helloTimeout().toMillis())
                .dropPongFrames(false)              // pongs are inbound traffic for the liveness check
                .closeOnProtocolViolation(false)    // the frame handler closes (1009 for an oversize frame)
                .allowExtensions(false)
                .withUTF8Validator(false)           // Utf8.isValid checks whole text frames, ASCII first
                .build();
        long pingMillis = settings.pingInterval().toMillis();
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ChannelPipeline p = ch.pipeline();
                if (ssl != null) {
                    p.addLast("tls", ssl.newHandler(ch.alloc()));
                }
                p.addLast("http", new HttpServerCodec());
                p.addLast("http-aggregator", new HttpObjectAggregator(settings.maxHandshakeBytes()));
                p.addLast("auth", new HandshakeAuthHandler(settings.path(), settings.authenticator(),
                        settings.upgradeTimeout()));
                p.addLast("websocket", new WebSocketServerProtocolHandler(ws));
                p.addLast("ws-aggregator", new WebSocketFrameAggregator(settings.maxFrameBytes()));
                p.addLast("liveness", new IdleStateHandler(pingMillis, 0, 0, TimeUnit.MILLISECONDS));
                p.addLast("frames", new ServerConnectionHandler(ServerCore.this));
            }
        };
    }
}
