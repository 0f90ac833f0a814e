package org.vancetope.worktarget.cluster.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.RedisProtocolException;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import javax.net.ssl.SSLHandshakeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.FleetLink;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.SessionKey;

/**
 * A {@link FleetLink} over Redis (client: Lettuce). Presence is one hash per peer ({@code node},
 * {@code conn}, {@code manifest}) with a time to live ({@code PEXPIRE}), refreshed by this node's
 * heartbeat every third of {@link #presenceTtl()} through a script that renews it only while this
 * node's connection still holds it; a project's daemons are a sorted set scored by expiry. Each node
 * has a liveness key with the same time to live and an inbox: a pub/sub channel, so a message reaches a
 * node only while it is subscribed and {@code PUBLISH}'s receiver count tells at once that a node is
 * gone. After Redis restarts empty, the heartbeat writes this node's presence again.
 *
 * <pre>{@code
 * WorkTargetServer server = WorkTargetServer.builder()
 *         .authenticator(auth)
 *         .fleet(RedisFleetLink.builder().uri("redis://redis.internal:6379").nodeId("node-1").build())
 *         .build().start();
 * }</pre>
 *
 * <p>A node starts without Redis too, and joins when Redis answers; an outage is survived: calls to
 * peers on other nodes fail {@code offline} saying Redis is unreachable, calls to peers of this node
 * keep working, and the link reconnects and rebuilds its presence when Redis is back. Forwarded
 * messages are published on a connection of their own, beside the one of presence and heartbeats and
 * the subscribed inbox. Thread-safe.
 */
public final class RedisFleetLink implements FleetLink {
    private static final Logger LOG = LoggerFactory.getLogger(RedisFleetLink.class);
    private static final Pattern GLOB_SPECIAL = Pattern.compile("[*?\\[\\]\\\\]");
    private static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    /** Takes a peer for this node; returns the node and connection that held it before, if another. */
    private static final String CLAIM = """
            local old = redis.call('HMGET', KEYS[1], 'node', 'conn')
            redis.call('HSET', KEYS[1], 'node', ARGV[1], 'conn', ARGV[2], 'manifest', ARGV[3])
            redis.call('PEXPIRE', KEYS[1], ARGV[4])
            if #KEYS > 1 then
              local t = redis.call('TIME')
              redis.call('ZADD', KEYS[2], t[1] * 1000 + math.floor(t[2] / 1000) + ARGV[4], ARGV[5])
              redis.call('PEXPIRE', KEYS[2], ARGV[4])
            end
            if old[1] and (old[1] ~= ARGV[1] or old[2] ~= ARGV[2]) then return {old[1], old[2]} end
            return {}
            """;
    /** Renews this node's claim, writes it again when it is missing, and returns 0 when another holds it. */
    private static final String REFRESH = """
            local old = redis.call('HMGET', KEYS[1], 'node', 'conn')
            if old[1] and (old[1] ~= ARGV[1] or old[2] ~= ARGV[2]) then return 0 end
            redis.call('HSET', KEYS[1], 'node', ARGV[1], 'conn', ARGV[2], 'manifest', ARGV[3])
            redis.call('PEXPIRE', KEYS[1], ARGV[4])
            if #KEYS > 1 then
              local t = redis.call('TIME')
              redis.call('ZADD', KEYS[2], t[1] * 1000 + math.floor(t[2] / 1000) + ARGV[4], ARGV[5])
              redis.call('PEXPIRE', KEYS[2], ARGV[4])
            end
            return 1
            """;
    /** Forgets a claim if the connection still holds it. */
    private static final String RELEASE = """
            local old = redis.call('HMGET', KEYS[1], 'node', 'conn')
            if old[1] == ARGV[1] and old[2] == ARGV[2] then
              redis.call('DEL', KEYS[1])
              if #KEYS > 1 then redis.call('ZREM', KEYS[2], ARGV[3]) end
              return 1
            end
            return 0
            """;
    /**
     * Writes this node's liveness key for this instance of the node, unless another instance holds it:
     * then returns that instance and the key's remaining time to live in milliseconds.
     */
    private static final String NODE_BEAT = """
            local v = redis.call('GET', KEYS[1])
            if v and v ~= ARGV[1] then return {v, redis.call('PTTL', KEYS[1])} end
            redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
            return {}
            """;
    /** Deletes this node's liveness key if this instance holds it. */
    private static final String NODE_LEAVE = """
            if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
            return 0
            """;
    /** The daemons whose presence has not expired. */
    private static final String DAEMONS = """
            local t = redis.call('TIME')
            redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', t[1] * 1000 + math.floor(t[2] / 1000))
            return redis.call('ZRANGE', KEYS[1], 0, -1)
            """;

    /** Every command the link sends, and the ones its scripts run (an ACL user needs them all). */
    static final String COMMANDS = "HELLO, PING, EVAL, EXISTS, HMGET, SCAN, PUBLISH, SUBSCRIBE and, inside the "
            + "scripts, GET, SET, DEL, PTTL, HSET, HMGET, PEXPIRE, TIME, ZADD, ZREM, ZRANGE, ZREMRANGEBYSCORE";
    /** How long past the time to live another run's hold on this node's id may last before it counts as live. */
    private static final long ID_GRACE_MILLIS = 250;

    /** Flushes per written batch before one is forced, while commands keep coming. */
    private static final int FLUSHES_PER_BATCH = 64;
    /**
     * Many calls in flight publish from many threads, and each command would be a write system call of its
     * own: a flush outside a read queues one flush task on the connection's event loop, and the commands
     * written before that task runs (at most {@value #FLUSHES_PER_BATCH}) go out with it in one write; flushes
     * during a read wait for its end.
     */
    private static final NettyCustomizer CONSOLIDATE_FLUSHES = new NettyCustomizer() {
        @Override
        public void afterChannelInitialized(Channel channel) {
            channel.pipeline().addFirst(new FlushConsolidationHandler(FLUSHES_PER_BATCH, true));
        }
    };

    private final RedisURI uri;
    private final String nodeId;
    /** This run of the node, as its liveness key holds it: tells a second process with the same id apart. */
    private final String instance;
    private final Duration presenceTtl;
    private final String prefix;
    private final Duration reconnectDelay;
    private final Map<PeerKey, Claim> claims = new ConcurrentHashMap<>();
    private final ScheduledExecutorService heartbeat;
    private volatile ClientResources resources;
    private volatile RedisClient client;
    private volatile StatefulRedisConnection<String, String> connection;
    private volatile StatefulRedisConnection<String, String> publisher;
    private volatile StatefulRedisPubSubConnection<String, String> inbox;
    private volatile Listener listener;
    private volatile boolean unreachable;
    /** Why the last attempt to join failed, while the node has not joined. */
    private volatile String lastFailure;
    /** Why this node stays out of the fleet (its id is another live node's), or null. */
    private volatile String refused;
    /** The other instance the heartbeat last found holding this node's id, or null. */
    private volatile String twin;
    private volatile boolean closed;
    /** Set by {@link #close} before it waits for the monitor, which a start waiting for this node's id holds. */
    private volatile boolean closing;

    private record Claim(String connectionId, String manifest) {
    }

    private RedisFleetLink(Builder b) {
        this.uri = RedisURI.create(b.uri);
        this.uri.setTimeout(b.commandTimeout);
        this.nodeId = b.nodeId;
        this.instance = "pid " + ProcessHandle.current().pid() + " on " + hostName() + ", run "
                + Long.toHexString(new SecureRandom().nextLong());
        this.presenceTtl = b.presenceTtl;
        this.prefix = b.keyPrefix;
        this.reconnectDelay = b.reconnectDelay;
        this.heartbeat = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "worktarget-redis-heartbeat-" + b.nodeId);
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * A new builder.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String nodeId() {
        return nodeId;
    }

    @Override
    public Duration presenceTtl() {
        return presenceTtl;
    }

    /**
     * Starts the link. A Redis that is unreachable now is not an error: the node starts alone (calls to
     * its own peers work, the fleet is reported unreachable), the link tries again every
     * {@code reconnectDelay}, and once Redis answers it subscribes and writes this node's presence,
     * without a restart.
     *
     * <p>The node's id must be its own: when Redis holds it for another run of a node (another process,
     * or this one's previous run that did not close), the link waits until that presence expires, for at
     * most the time it has left. A live node renews it meanwhile, and then this node does not join: this
     * method fails saying so, or, when the node joins later, the node stays out of the fleet and its
     * link's methods fail with that reason.
     *
     * <p>A Redis that answers but refuses the node (a wrong or missing password, a database it does not
     * have, a user without the commands the link needs) or a server that is not Redis is a setting to
     * fix, not an outage: this method fails saying what Redis answered and what to change.
     *
     * @throws IOException when a live node of the fleet has this node's id, or Redis refuses this node
     */
    @Override
    public synchronized void start(Listener listener) throws IOException {
        if (this.listener != null || closed) {
            throw new IllegalStateException("The link was already started (or closed); build a new one.");
        }
        this.listener = Objects.requireNonNull(listener, "listener");
        resources = ClientResources.builder().ioThreadPoolSize(2).computationThreadPoolSize(2)
                .reconnectDelay(Delay.constant(reconnectDelay)).nettyCustomizer(CONSOLIDATE_FLUSHES).build();
        client = RedisClient.create(resources, uri);
        client.setOptions(ClientOptions.builder().autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
        try {
            connectFirst();
        } catch (NodeIdInUse e) {
            throw new IOException(e.getMessage() + " Give every node its own id (serve --node-id), or stop the "
                    + "other node first.", e);
        } catch (RedisException e) {
            String refusal = refusal(e);
            if (refusal != null) {
                throw new IOException("Redis at " + uri.getHost() + ":" + uri.getPort() + " refused node '" + nodeId
                        + "': " + refusal, e);
            }
            unreachable = true;
            lastFailure = innermost(e);
            LOG.warn("Redis at {}:{} is unreachable ({}); node '{}' starts alone: its own peers work, the rest of "
                    + "the fleet is unreachable, and it joins when Redis answers (tried every {} ms)", uri.getHost(),
                    uri.getPort(), lastFailure, nodeId, reconnectDelay.toMillis());
            heartbeat.schedule(this::joinLater, reconnectDelay.toMillis(), TimeUnit.MILLISECONDS);
            return;
        }
        joined();
    }

    /** Opens the connections, takes this node's id, subscribes to its inbox and writes its presence. */
    private void connect() throws IOException {
        StatefulRedisConnection<String, String> c = client.connect();
        StatefulRedisConnection<String, String> pub = null;
        StatefulRedisPubSubConnection<String, String> sub = null;
        try {
            takeId(c.sync());
            pub = client.connect();
            sub = client.connectPubSub();
            sub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    deliver(message);
                }
            });
            sub.sync().subscribe(inboxOf(nodeId));
        } catch (RedisException | IOException e) {
            for (AutoCloseable x : new AutoCloseable[] {sub, pub, c}) {
                closeQuietly(x);
            }
            throw e;
        }
        connection = c;
        publisher = pub;
        inbox = sub;
        try {
            beat();
        } catch (IOException e) {
            throw new RedisException(e.getMessage(), e);
        }
    }

    /**
     * Connects at start. When Redis refuses the handshake, Lettuce closes the connection, and now and then
     * (about one time in 300 here) reports that close ("Connection closed prematurely") instead of Redis's
     * answer; such a failure is tried again, twice at most, so that a refusal is told as one.
     */
    private void connectFirst() throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                connect();
                return;
            } catch (RedisException e) {
                if (attempt == 3 || refusal(e) != null || !closedDuringHandshake(e)) {
                    throw e;
                }
                LOG.debug("Redis closed the connection of node '{}' during its handshake; trying again", nodeId);
            }
        }
    }

    private static boolean closedDuringHandshake(Throwable e) {
        return causes(e).stream().anyMatch(c -> c instanceof RedisConnectionException
                && String.valueOf(c.getMessage()).contains("closed prematurely"));
    }

    /** A failure and its causes, outermost first. */
    private static List<Throwable> causes(Throwable e) {
        List<Throwable> out = new ArrayList<>();
        for (Throwable c = e; c != null && !out.contains(c); c = c.getCause()) {
            out.add(c);
        }
        return out;
    }

    /** The other run that {@link #NODE_BEAT} found holding this node's id, or null when it wrote this run's. */
    private static String holder(List<Object> answer) {
        return answer == null || answer.size() < 2 ? null : String.valueOf(answer.get(0));
    }

    /** Another live node holds this node's id. */
    private static final class NodeIdInUse extends IOException {
        private static final long serialVersionUID = 1L;

        NodeIdInUse(String message) {
            super(message);
        }
    }

    /**
     * Writes this node's liveness key for this run, waiting while another run holds it: a run that ended
     * without closing leaves it until it expires, a live one renews it.
     */
    private void takeId(RedisCommands<String, String> r) throws IOException {
        String[] key = {nodeKey(nodeId)};
        String ttl = Long.toString(presenceTtl.toMillis());
        long waited = System.nanoTime();
        long deadline = 0;
        boolean waiting = false;
        while (true) {
            if (closing) {
                throw new IOException("The Redis link of node '" + nodeId + "' was closed while it waited for its id "
                        + "to be free.");
            }
            List<Object> held = r.eval(NODE_BEAT, ScriptOutputType.MULTI, key, instance, ttl);
            String other = holder(held);
            if (other == null) {
                return;
            }
            long now = System.nanoTime();
            if (!waiting) {
                long left = Math.max(0, held.get(1) instanceof Number n ? n.longValue() : 0);
                deadline = now + TimeUnit.MILLISECONDS.toNanos(left + ID_GRACE_MILLIS);
                waiting = true;
                LOG.info("Node id '{}' is still held in Redis by {} for {} ms; waiting for it to expire (a node that "
                        + "did not close) or to be renewed (a live node with the same id)", nodeId, other, left);
            } else if (now - deadline > 0) {
                throw new NodeIdInUse("Node id '" + nodeId + "' is in use by another live server node (" + other
                        + ") of the fleet at Redis " + uri.getHost() + ":" + uri.getPort() + " (keys '" + prefix
                        + "'): it renewed its presence while this node waited "
                        + TimeUnit.NANOSECONDS.toMillis(now - waited) + " ms.");
            }
            try {
                Thread.sleep(Math.min(100, Math.max(10, presenceTtl.toMillis() / 30)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("Interrupted while waiting for node id '" + nodeId + "' to be free");
            }
        }
    }

    /** The store answered at start, or later: the heartbeat runs from now on. */
    private void joined() {
        unreachable = false;
        long every = Math.max(10, presenceTtl.toMillis() / 3);
        heartbeat.scheduleWithFixedDelay(this::beatQuietly, every, every, TimeUnit.MILLISECONDS);
        LOG.info("Fleet node '{}' joined through Redis at {}:{} (presence lives {} ms)", nodeId, uri.getHost(),
                uri.getPort(), presenceTtl.toMillis());
    }

    /** A node that started without Redis tries to join again, on the heartbeat thread. */
    private void joinLater() {
        synchronized (this) {
            if (closed) {
                return;
            }
            try {
                if (connection == null) {
                    connect();
                } else {
                    beat();     // connected, but the first presence write failed
                }
            } catch (NodeIdInUse e) {
                refused = e.getMessage() + " This node stays out of the fleet: its own peers work, the peers of "
                        + "other nodes are unreachable from it. Stop it, and start it again with its own id (serve "
                        + "--node-id).";
                LOG.error(refused);
                return;
            } catch (IOException | RedisException e) {
                if (closing) {
                    return;
                }
                String refusal = refusal(e);
                String why = refusal != null ? refusal : innermost(e);
                if (refusal != null && !refusal.equals(lastFailure)) {
                    LOG.warn("Redis at {}:{} refuses node '{}': {} (tried again every {} ms)", uri.getHost(),
                            uri.getPort(), nodeId, refusal, reconnectDelay.toMillis());
                } else {
                    LOG.debug("Redis still unreachable from node '{}': {}", nodeId, why);
                }
                lastFailure = why;
                heartbeat.schedule(this::joinLater, reconnectDelay.toMillis(), TimeUnit.MILLISECONDS);
                return;
            }
            joined();
        }
    }

    private static void closeQuietly(AutoCloseable x) {
        try {
            if (x != null) {
                x.close();
            }
        } catch (Exception e) {
            LOG.debug("Closing a Redis connection failed", e);
        }
    }

    private void deliver(String message) {
        try {
            listener.onMessage(message);
        } catch (RuntimeException e) {
            LOG.warn("A fleet message could not be handled", e);
        }
    }

    private RedisCommands<String, String> redis() throws IOException {
        StatefulRedisConnection<String, String> c = connection;
        if (closed) {
            throw new IOException("The Redis link of node '" + nodeId + "' is closed.");
        }
        if (c == null && refused != null) {
            throw new IOException(refused);
        }
        if (c == null) {
            throw new IOException("Redis is unreachable: node '" + nodeId + "' started while Redis at "
                    + uri.getHost() + ":" + uri.getPort() + " did not answer, and has not reached it since (last: "
                    + lastFailure + "); it joins the fleet when Redis answers.");
        }
        return c.sync();
    }

    /**
     * What Redis answered when it refused this node, and what to change: a failure that waiting does not
     * mend (a password, a database, a user's rights, a server that is not Redis). Null for one that may
     * pass (nothing listens yet, a timeout, Redis still loading its data).
     */
    private String refusal(Throwable e) {
        for (Throwable c : causes(e)) {
            String m = String.valueOf(c.getMessage()).strip();
            if (c instanceof RedisCommandExecutionException) {
                m = m.endsWith(".") ? m : m + ".";
                if (m.startsWith("NOAUTH") || m.startsWith("WRONGPASS")) {
                    return m + " Give the password this Redis expects in the URI (serve --redis-uri): "
                            + "redis://:PASSWORD@HOST:PORT, or redis://USER:PASSWORD@HOST:PORT for an ACL user.";
                }
                if (m.contains("DB index")) {
                    return m + " The database in the URI (the number after its last '/') must exist on this "
                            + "Redis (its 'databases' setting); 0 always does.";
                }
                if (m.startsWith("NOPERM")) {
                    return m + " The Redis user needs the commands " + COMMANDS + ", on the keys and channels that "
                            + "start with '" + prefix + "'.";
                }
                return null;
            }
            if (c instanceof RedisProtocolException) {
                return "its answer is not in the Redis protocol (" + m + "): the URI's host and port name another "
                        + "kind of server. Give the address of a Redis server (serve --redis-uri).";
            }
            if (c instanceof SSLHandshakeException) {
                return "the TLS handshake failed (" + m + "). A rediss:// URI needs a Redis that speaks TLS with a "
                        + "certificate this JVM trusts; a Redis without TLS needs redis://.";
            }
        }
        return null;
    }

    /** The innermost cause's message: Lettuce's own says only that it could not connect. */
    private static String innermost(Throwable e) {
        List<Throwable> all = causes(e);
        Throwable last = all.get(all.size() - 1);
        return last.getMessage() == null ? last.getClass().getSimpleName() : last.getMessage();
    }

    /** This host's name for messages, or a placeholder when it has none. */
    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException | SecurityException e) {
            return "an unnamed host";
        }
    }

    private static IOException unreachable(RedisException e) {
        return new IOException("Redis is unreachable: " + e.getMessage(), e);
    }

    private void beatQuietly() {
        try {
            beat();
            if (unreachable) {
                unreachable = false;
                LOG.info("Redis is reachable again; node '{}' renewed the presence of its {} peers", nodeId,
                        claims.size());
            }
        } catch (IOException | RedisException e) {
            if (!unreachable) {
                unreachable = true;
                LOG.warn("Redis is unreachable from node '{}' ({}); calls to peers on other nodes fail until it is back",
                        nodeId, e.getMessage());
            }
        } catch (RuntimeException e) {
            LOG.error("The fleet heartbeat of node '{}' failed", nodeId, e);
        }
    }

    private void beat() throws IOException {
        RedisCommands<String, String> r = redis();
        String other = holder(r.eval(NODE_BEAT, ScriptOutputType.MULTI, new String[] {nodeKey(nodeId)}, instance,
                Long.toString(presenceTtl.toMillis())));
        if (other != null && !other.equals(twin)) {
            LOG.error("Node id '{}' is held by another server node too ({}), which took it while this node could not "
                    + "reach Redis: messages for '{}' reach both, and calls through either may fail. Stop one of them, "
                    + "and start it again with its own id (serve --node-id).", nodeId, other, nodeId);
        } else if (other == null && twin != null) {
            LOG.info("Node id '{}' is this node's alone again", nodeId);
        }
        twin = other;
        for (Map.Entry<PeerKey, Claim> e : claims.entrySet()) {
            Claim c = e.getValue();
            Long held = r.eval(REFRESH, ScriptOutputType.INTEGER, keys(e.getKey()), nodeId, c.connectionId(),
                    c.manifest(), Long.toString(presenceTtl.toMillis()), name(e.getKey()));
            if (held != null && held == 0 && claims.remove(e.getKey(), c)) {
                LOG.info("{} is held by another server node now; superseding connection {}", e.getKey(),
                        c.connectionId());
                listener.onLost(e.getKey(), c.connectionId());
            }
        }
    }

    @Override
    public Optional<Presence> claim(PeerKey key, String connectionId, String manifest) throws IOException {
        claims.put(key, new Claim(connectionId, manifest));
        try {
            List<Object> old = redis().eval(CLAIM, ScriptOutputType.MULTI, keys(key), nodeId, connectionId, manifest,
                    Long.toString(presenceTtl.toMillis()), name(key));
            return old == null || old.size() < 2 ? Optional.empty()
                    : Optional.of(new Presence(String.valueOf(old.get(0)), String.valueOf(old.get(1)), ""));
        } catch (RedisException e) {
            throw unreachable(e);
        }
    }

    @Override
    public void release(PeerKey key, String connectionId) throws IOException {
        claims.computeIfPresent(key, (k, c) -> c.connectionId().equals(connectionId) ? null : c);
        try {
            redis().eval(RELEASE, ScriptOutputType.INTEGER, keys(key), nodeId, connectionId, name(key));
        } catch (RedisException e) {
            throw unreachable(e);
        }
    }

    @Override
    public Optional<Presence> locate(PeerKey key) throws IOException {
        try {
            List<io.lettuce.core.KeyValue<String, String>> v = redis().hmget(peerKey(key), "node", "conn", "manifest");
            if (v.size() < 3 || !v.get(0).hasValue() || !v.get(1).hasValue()) {
                return Optional.empty();
            }
            return Optional.of(new Presence(v.get(0).getValue(), v.get(1).getValue(), v.get(2).getValueOrElse("")));
        } catch (RedisException e) {
            throw unreachable(e);
        }
    }

    @Override
    public List<String> daemons(String tenant, String project) throws IOException {
        try {
            List<Object> names = redis().eval(DAEMONS, ScriptOutputType.MULTI, daemonsKey(tenant, project));
            List<String> out = new ArrayList<>();
            names.forEach(n -> out.add(String.valueOf(n)));
            out.sort(null);
            return out;
        } catch (RedisException e) {
            throw unreachable(e);
        }
    }

    @Override
    public Map<PeerKey, Presence> peers() throws IOException {
        try {
            RedisCommands<String, String> r = redis();
            Map<PeerKey, Presence> out = new LinkedHashMap<>();
            String start = prefix + "peer:";
            ScanArgs args = ScanArgs.Builder.matches(GLOB_SPECIAL.matcher(start).replaceAll("\\\\$0") + "*").limit(500);
            KeyScanCursor<String> cursor = r.scan(args);
            while (true) {
                for (String k : cursor.getKeys()) {
                    PeerKey key = parsePeerKey(k.substring(start.length()));
                    List<io.lettuce.core.KeyValue<String, String>> v = key == null ? List.of()
                            : r.hmget(k, "node", "conn", "manifest");
                    if (v.size() == 3 && v.get(0).hasValue() && v.get(1).hasValue()) {
                        out.put(key, new Presence(v.get(0).getValue(), v.get(1).getValue(),
                                v.get(2).getValueOrElse("")));
                    }
                }
                if (cursor.isFinished()) {
                    return out;
                }
                cursor = r.scan(cursor, args);
            }
        } catch (RedisException e) {
            throw unreachable(e);
        }
    }

    /** The peer a key names after {@code <prefix>peer:}, or null for a key of another shape. */
    private static PeerKey parsePeerKey(String rest) {
        String[] p = rest.split(":", -1);
        try {
            if (p.length == 4 && p[0].equals("d")) {
                return new DaemonKey(dec(p[1]), dec(p[2]), dec(p[3]));
            }
            if (p.length == 3 && p[0].equals("s")) {
                return new SessionKey(dec(p[1]), dec(p[2]));
            }
        } catch (IllegalArgumentException e) {
            LOG.debug("Skipped a presence key of unexpected shape: {}", rest);
        }
        return null;
    }

    private static String dec(String part) {
        return URLDecoder.decode(part, StandardCharsets.UTF_8);
    }

    @Override
    public boolean send(String node, String message) throws IOException {
        try {
            redis();    // closed, or not joined yet
            Long receivers = publisher.sync().publish(inboxOf(node), message);
            return receivers != null && receivers > 0;
        } catch (RedisException e) {
            throw unreachable(e);
        }
    }

    @Override
    public CompletionStage<Boolean> sendAsync(String node, String message) {
        StatefulRedisConnection<String, String> c = publisher;
        if (c == null || closed) {
            try {
                redis();
                return CompletableFuture.failedFuture(new IOException("Redis is unreachable: node '" + nodeId
                        + "' is still joining."));
            } catch (IOException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        CompletableFuture<Boolean> out = new CompletableFuture<>();
        try {
            c.async().publish(inboxOf(node), message).whenComplete((receivers, e) -> {
                if (e != null) {
                    out.completeExceptionally(e instanceof RedisException re ? unreachable(re)
                            : new IOException("Redis is unreachable: " + e.getMessage(), e));
                } else {
                    out.complete(receivers != null && receivers > 0);
                }
            });
        } catch (RedisException e) {
            out.completeExceptionally(unreachable(e));
        }
        return out;
    }

    @Override
    public boolean isAlive(String node) throws IOException {
        try {
            Long n = redis().exists(nodeKey(node));
            return n != null && n > 0;
        } catch (RedisException e) {
            throw unreachable(e);
        }
    }

    /**
     * Stops heartbeating and listening without telling Redis, as a node that crashed or froze would:
     * its presence then expires by itself. For the fleet's failure tests.
     */
    synchronized void halt() {
        closed = true;
        heartbeat.shutdownNow();
        if (inbox != null) {
            inbox.close();
        }
    }

    @Override
    public void close() {
        closing = true;     // a start or a late join waiting for this node's id gives up at once
        synchronized (this) {
            closeLink();
        }
    }

    private void closeLink() {
        if (client == null && closed) {
            return;
        }
        boolean halted = closed;
        closed = true;
        heartbeat.shutdownNow();
        StatefulRedisConnection<String, String> c = connection;
        if (c != null && c.isOpen() && !halted) {
            try {
                // the others see this node gone at once; a node with the same id that holds it keeps it
                c.sync().eval(NODE_LEAVE, ScriptOutputType.INTEGER, new String[] {nodeKey(nodeId)}, instance);
            } catch (RedisException e) {
                LOG.debug("Could not remove node '{}' from Redis on close: {}", nodeId, e.getMessage());
            }
        }
        for (AutoCloseable x : new AutoCloseable[] {inbox, publisher, connection}) {
            closeQuietly(x);
        }
        if (client != null) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        if (resources != null) {
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
        client = null;
        resources = null;
    }

    // ---- keys ----

    private static String enc(String part) {
        return URLEncoder.encode(part, StandardCharsets.UTF_8);
    }

    private String peerKey(PeerKey key) {
        return key instanceof DaemonKey d
                ? prefix + "peer:d:" + enc(d.tenant()) + ":" + enc(d.project()) + ":" + enc(d.name())
                : prefix + "peer:s:" + enc(key.tenant()) + ":" + enc(((SessionKey) key).sessionId());
    }

    private String daemonsKey(String tenant, String project) {
        return prefix + "daemons:" + enc(tenant) + ":" + enc(project);
    }

    private String[] keys(PeerKey key) {
        return key instanceof DaemonKey d ? new String[] {peerKey(key), daemonsKey(d.tenant(), d.project())}
                : new String[] {peerKey(key)};
    }

    private static String name(PeerKey key) {
        return key instanceof DaemonKey d ? d.name() : "";
    }

    private String nodeKey(String node) {
        return prefix + "node:" + node;
    }

    private String inboxOf(String node) {
        return prefix + "inbox:" + node;
    }

    /**
     * The {@link FleetLink.Factory} of {@code redis://} and {@code rediss://} URIs, with the default
     * settings: how {@code serve --redis-uri URI --node-id ID} finds this link.
     */
    public static final class Factory implements FleetLink.Factory {

        /** Creates the factory (for {@link java.util.ServiceLoader}). */
        public Factory() {
        }

        @Override
        public boolean accepts(String uri) {
            return uri.startsWith("redis://") || uri.startsWith("rediss://");
        }

        @Override
        public FleetLink create(String uri, String nodeId) {
            return builder().uri(uri).nodeId(nodeId).build();
        }
    }

    /** Settings of a {@link RedisFleetLink}. */
    public static final class Builder {
        private String uri;
        private String nodeId;
        private Duration presenceTtl = Duration.ofSeconds(6);
        private Duration commandTimeout = Duration.ofSeconds(2);
        private Duration reconnectDelay = Duration.ofMillis(250);
        private String keyPrefix = "worktarget:";

        private Builder() {
        }

        /**
         * The Redis server, e.g. {@code redis://redis.internal:6379} (required).
         *
         * @param uri the URI, in Lettuce's syntax ({@code redis://[password@]host[:port][/database]})
         * @return this
         */
        public Builder uri(String uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
            return this;
        }

        /**
         * This node's id, unique within the fleet (required): 1 to 64 of {@code A-Za-z0-9_.-}.
         *
         * @param nodeId the id
         * @return this
         */
        public Builder nodeId(String nodeId) {
            this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
            return this;
        }

        /**
         * How long presence outlives the last heartbeat (default 6 s; the heartbeat runs every third of
         * it). A node that dies disappears, and calls waiting for it fail, within this time and a quarter.
         *
         * @param ttl at least 300 ms
         * @return this
         */
        public Builder presenceTtl(Duration ttl) {
            this.presenceTtl = Objects.requireNonNull(ttl, "ttl");
            return this;
        }

        /**
         * How long one Redis command may take before it counts as Redis being unreachable (default 2 s).
         *
         * @param timeout positive
         * @return this
         */
        public Builder commandTimeout(Duration timeout) {
            this.commandTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * The pause between attempts to reconnect to Redis after it went away (default 250 ms).
         *
         * @param delay positive
         * @return this
         */
        public Builder reconnectDelay(Duration delay) {
            this.reconnectDelay = Objects.requireNonNull(delay, "delay");
            return this;
        }

        /**
         * The prefix of every key and channel (default {@code worktarget:}); fleets sharing one Redis need
         * different prefixes.
         *
         * @param prefix the prefix
         * @return this
         */
        public Builder keyPrefix(String prefix) {
            this.keyPrefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /**
         * Validates the settings and builds the link (not yet started: the server starts it).
         *
         * @return the link
         * @throws IllegalArgumentException for a missing or out-of-range setting, naming it
         */
        public RedisFleetLink build() {
            require(uri != null, "uri is required, e.g. redis://127.0.0.1:6379");
            require(uri.startsWith("redis://") || uri.startsWith("rediss://"), "uri must start with redis:// or "
                    + "rediss://, got " + uri);
            require(nodeId != null && NODE_ID.matcher(nodeId).matches(), "nodeId must be 1 to 64 of A-Za-z0-9_.- "
                    + "starting with a letter or digit, got " + nodeId);
            require(presenceTtl.toMillis() >= 300, "presenceTtl must be at least 300 ms, got " + presenceTtl);
            require(!commandTimeout.isNegative() && !commandTimeout.isZero(), "commandTimeout must be positive");
            require(!reconnectDelay.isNegative() && !reconnectDelay.isZero(), "reconnectDelay must be positive");
            return new RedisFleetLink(this);
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
