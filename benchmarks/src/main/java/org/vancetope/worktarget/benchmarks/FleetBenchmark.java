package org.vancetope.worktarget.benchmarks;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.cluster.redis.RedisFleetLink;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * A tiny invocation (a {@code client_file_read} that returns a constant) on a daemon connected to
 * node 2 of a two-node fleet joined through a real {@code redis-server} on a loopback port: called from
 * node 2 (same node) and from node 1 (cross node, forwarded through Redis), beside the round trip of a
 * Redis {@code PING} and of a bare pub/sub relay (two Lettuce clients passing a message through Redis
 * and back, what a forwarded call costs at the least) in the same run. Calls go through each node's registry ({@code peers().find(key)
 * .invoke}), as the dispatcher runs them after routing, with blocking callers: p50 with 1 in flight and
 * calls/s with 16 in flight, with the CPU time per call of this JVM (both nodes, the daemon, the Redis
 * clients) and of {@code redis-server} during those rounds (from {@code /proc}, clock ticks).
 * Figures are medians of interleaved rounds, after {@code -Dfleetbench.warmups=N} whole rounds (default
 * 2) that warm up the JIT and are not kept: the cross-node path runs more code (both nodes' Redis
 * clients, the forwarding) and is compiled later than the same-node one, so rounds on a cold JIT
 * understate it most.
 *
 * <pre>{@code
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *     org.vancetope.worktarget.benchmarks.FleetBenchmark [callsPerRound=5000] [rounds=5]
 *     (with -Dfleetbench.warmups=N before -cp for another number of warm-up rounds)
 * }</pre>
 *
 * The Redis binary is {@code $WORKTARGET_REDIS_SERVER} or {@code /usr/bin/redis-server}.
 */
public final class FleetBenchmark {
    private static final DaemonKey BOX = new DaemonKey("acme", "proj", "box");
    private static final ToolContext CTX = new ToolContext("proc-1", "s-1", "acme", "proj", "alice");

    private FleetBenchmark() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args calls per round, rounds
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int warmups = Integer.getInteger("fleetbench.warmups", 2);
        if (rounds < 1 || warmups < 0) {
            throw new IllegalArgumentException("rounds must be at least 1 and fleetbench.warmups at least 0");
        }
        String binary = System.getenv().getOrDefault("WORKTARGET_REDIS_SERVER", "/usr/bin/redis-server");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path dir = Files.createTempDirectory("wt-redis-bench");
        Process redis = new ProcessBuilder(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save",
                "", "--appendonly", "no", "--dir", dir.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile()).start();
        String uri = "redis://127.0.0.1:" + port;
        List<AutoCloseable> open = new ArrayList<>();
        try {
            Await.until("redis-server accepts connections on port " + port, () -> accepts(port));
            TokenAuthenticator auth = TokenAuthenticator.builder()
                    .token("bench-token", new AuthPrincipal("box", "acme", Set.of("proj"), null)).build();
            WorkTargetServer[] nodes = new WorkTargetServer[2];
            for (int i = 0; i < 2; i++) {
                nodes[i] = WorkTargetServer.builder().authenticator(auth)
                        .fleet(RedisFleetLink.builder().uri(uri).nodeId("node" + (i + 1)).build()).build().start();
                open.add(0, nodes[i]);
            }
            BackendTool read = BackendTool.of(ToolCatalog.backend("client_file_read").orElseThrow(),
                    (p, c) -> Map.of("content", "x"));
            WorkTargetClient daemon = WorkTargetClient.builder()
                    .uri(URI.create("ws://127.0.0.1:" + nodes[1].port() + "/worktarget/v1")).token("bench-token")
                    .daemon("acme", "proj", "box").tools(List.of(read)).workerThreads(16).build().start();
            open.add(0, daemon);
            if (!daemon.awaitConnected(Duration.ofSeconds(30))) {
                throw new IllegalStateException("the daemon did not connect");
            }
            Await.until("node 0 sees the daemon of node 1", () -> nodes[0].peers().find(BOX).isPresent());
            RedisClient client = RedisClient.create(uri);
            StatefulRedisConnection<String, String> ping = client.connect();
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try (Relay relay = new Relay(client)) {
                // timed for p50, calls/s and CPU, in this order: same node, cross node, the bare relay (p50 row 3:
                // the Redis PING)
                Call[] timed = {() -> call(nodes[1]), () -> call(nodes[0]), relay::call};
                double[][] p50 = new double[4][rounds];
                double[][] rate = new double[3][rounds];
                double[][] cpu = new double[6][rounds];
                for (Call c : timed) {
                    p50Micros(c, calls / 2);
                    perSecond(c, calls / 2, pool);
                }
                for (int r = -warmups; r < rounds; r++) {     // rounds below 0 warm up the JIT and are not kept
                    int i = Math.max(r, 0);     // a warm-up round's figures are overwritten by the first kept one
                    for (int k = 0; k < timed.length; k++) {
                        p50[k][i] = p50Micros(timed[k], calls);
                    }
                    p50[3][i] = p50Micros(() -> ping.sync().ping(), calls);
                    for (int k = 0; k < timed.length; k++) {
                        long self0 = cpuMicros(ProcessHandle.current().pid());
                        long redis0 = cpuMicros(redis.pid());
                        rate[k][i] = perSecond(timed[k], calls * 4, pool);
                        cpu[k][i] = (cpuMicros(ProcessHandle.current().pid()) - self0) / (double) (calls * 4);
                        cpu[3 + k][i] = (cpuMicros(redis.pid()) - redis0) / (double) (calls * 4);
                    }
                }
                double same = median(p50[0]);
                double cross = median(p50[1]);
                double rtt = median(p50[3]);
                System.out.printf(Locale.ROOT, "p50 1 in flight: same node %.1f us, cross node %.1f us (+%.1f us, %.1f "
                        + "Redis round trips), Redis PING round trip %.1f us%n", same, cross, cross - same,
                        (cross - same) / rtt, rtt);
                System.out.printf(Locale.ROOT, "calls/s 16 in flight: same node %.0f, cross node %.0f (%.2f x)%n",
                        median(rate[0]), median(rate[1]), median(rate[1]) / median(rate[0]));
                System.out.printf(Locale.ROOT, "CPU per call 16 in flight: same node %.1f us (redis-server %.1f us), "
                        + "cross node %.1f us (redis-server %.1f us)%n", median(cpu[0]), median(cpu[3]), median(cpu[1]),
                        median(cpu[4]));
                System.out.printf(Locale.ROOT, "Redis pub/sub relay alone (A -> Redis -> B -> Redis -> A, %d-byte "
                        + "messages): p50 %.1f us (%.1f round trips), %.0f relays/s with 16 in flight, CPU per relay "
                        + "%.1f us (redis-server %.1f us)%n", Relay.SIZE, median(p50[2]), median(p50[2]) / rtt,
                        median(rate[2]), median(cpu[2]), median(cpu[5]));
            } finally {
                pool.shutdownNow();
                ping.close();
                client.shutdown();
            }
        } finally {
            for (AutoCloseable c : open) {
                c.close();
            }
            redis.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            Files.deleteIfExists(dir.resolve("redis.log"));
            Files.deleteIfExists(dir);
        }
    }

    private static Object call(WorkTargetServer node) throws Exception {
        Endpoint e = node.peers().find(BOX).orElseThrow();
        return e.invoke("client_file_read", Map.of("path", "a"), CTX, Duration.ofSeconds(30));
    }

    private interface Call {
        Object run() throws Exception;
    }

    /**
     * What a forwarded call costs at the least by its construction, with nothing of WorkTarget: client A
     * publishes a message to B's channel, B's listener publishes it back to A's channel from Lettuce's
     * thread, and A's listener completes the caller waiting for it. Messages of {@value #SIZE} bytes, about
     * a forwarded tiny invocation's. Each side has its own publishing and subscribed connection, as a node's
     * link has.
     */
    private static final class Relay implements AutoCloseable {
        static final int SIZE = 400;
        private final StatefulRedisConnection<String, String> pubA;
        private final StatefulRedisConnection<String, String> pubB;
        private final StatefulRedisPubSubConnection<String, String> subA;
        private final StatefulRedisPubSubConnection<String, String> subB;
        private final Map<String, CompletableFuture<Object>> waiting = new ConcurrentHashMap<>();
        private final AtomicLong ids = new AtomicLong();
        /** A message's id, a {@code :} and filling up to {@value #SIZE} characters. */
        private static final String FILL = ":" + "x".repeat(SIZE - 1);

        Relay(RedisClient client) {
            pubA = client.connect();
            pubB = client.connect();
            subB = client.connectPubSub();
            subB.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    pubB.async().publish("bench:relay:a", message);
                }
            });
            subB.sync().subscribe("bench:relay:b");
            subA = client.connectPubSub();
            subA.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    CompletableFuture<Object> f = waiting.remove(message.substring(0, message.indexOf(':')));
                    if (f != null) {
                        f.complete(message);
                    }
                }
            });
            subA.sync().subscribe("bench:relay:a");
        }

        Object call() throws Exception {
            String id = Long.toString(ids.incrementAndGet());
            CompletableFuture<Object> f = new CompletableFuture<>();
            waiting.put(id, f);
            pubA.async().publish("bench:relay:b", id.concat(FILL.substring(0, SIZE - id.length())));
            return f.get(30, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            subA.close();
            subB.close();
            pubA.close();
            pubB.close();
        }
    }

    private static double p50Micros(Call call, int n) throws Exception {
        long[] t = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            call.run();
            t[i] = System.nanoTime() - t0;
        }
        Arrays.sort(t);
        return t[n / 2] / 1000.0;
    }

    private static double perSecond(Call call, int n, ExecutorService pool) throws Exception {
        int each = n / 16;
        List<Future<?>> fs = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int w = 0; w < 16; w++) {
            fs.add(pool.submit(() -> {
                for (int i = 0; i < each; i++) {
                    call.run();
                }
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
        return each * 16 / ((System.nanoTime() - t0) / 1e9);
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    /** User and system CPU time of a process so far, from /proc (-1 where there is no /proc). */
    private static long cpuMicros(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);     // utime, stime (fields 14 and 15)
            return ticks * 10_000;      // USER_HZ is 100 on Linux
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static boolean accepts(int port) {
        try {
            new Socket(InetAddress.getLoopbackAddress(), port).close();
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
