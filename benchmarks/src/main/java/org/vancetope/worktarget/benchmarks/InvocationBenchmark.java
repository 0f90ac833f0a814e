package org.vancetope.worktarget.benchmarks;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.ProcessStore;

/**
 * A tiny tool invocation's round trip over loopback WebSocket through the whole stack
 * ({@code WorkTargetDispatcher} → DAEMON target → {@code WorkTargetServer} → {@code WorkTargetClient} → a
 * {@code client_file_read} that returns a constant), beside a plain Netty WebSocket request/response
 * harness (the client sends a small text frame, the server echoes it) in the same run, and the same
 * harness with the echo sent from a worker thread. All use blocking callers: one caller (1 in
 * flight) and 16 concurrent callers (16 in flight). Figures are medians of interleaved rounds.
 *
 * <pre>{@code
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -Xms512m -Xmx512m -XX:+AlwaysPreTouch \
 *      -cp "$(cat benchmarks/target/classpath.txt):benchmarks/target/classes" \
 *      org.vancetope.worktarget.benchmarks.InvocationBenchmark [callsPerRound [rounds]]
 * }</pre>
 *
 * <p>Targets: p50 ≤ 2 × plain, calls/s with 16 in flight ≥ 0.5 × plain.
 */
public final class InvocationBenchmark {
    private static final String TOKEN = "benchmark-daemon-token";

    private InvocationBenchmark() {
    }

    /** One way to make a blocking call. */
    @FunctionalInterface
    private interface Caller {
        void call() throws Exception;
    }

    /** Latencies and throughput of one round. */
    private record Result(long p50Nanos, long p99Nanos, double callsPerSecond) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "p50 %7.1f µs  p99 %8.1f µs  %9.0f calls/s", p50Nanos / 1e3,
                    p99Nanos / 1e3, callsPerSecond);
        }
    }

    /**
     * Runs the benchmark.
     *
     * @param args optional: calls per measured round (default 20000) and rounds (default 5)
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        try (PlainHarness plain = new PlainHarness(false); PlainHarness plainWorker = new PlainHarness(true);
             StackHarness stack = new StackHarness()) {
            String[] names = {"plain Netty", "plain + worker hop", "WorkTarget"};
            Caller[] callers = {plain::call, plainWorker::call, stack::call};
            Result[][][] results = new Result[callers.length][2][rounds];
            for (int round = -1; round < rounds; round++) {      // round -1 warms up
                for (int h = 0; h < callers.length; h++) {
                    Result one = measure(callers[h], 1, calls);
                    Result sixteen = measure(callers[h], 16, calls);
                    if (round >= 0) {
                        results[h][0][round] = one;
                        results[h][1][round] = sixteen;
                    }
                }
            }
            System.out.println("Tiny invocation round trip over loopback WebSocket: " + calls + " calls per round, median of "
                    + rounds + " interleaved rounds, " + Runtime.getRuntime().availableProcessors() + " CPUs");
            Result[][] median = new Result[callers.length][2];
            for (int inFlight = 0; inFlight < 2; inFlight++) {
                for (int h = 0; h < callers.length; h++) {
                    median[h][inFlight] = median(results[h][inFlight]);
                    System.out.printf(Locale.ROOT, "  %-19s %2d in flight: %s%n", names[h], inFlight == 0 ? 1 : 16,
                            median[h][inFlight]);
                }
            }
            System.out.printf(Locale.ROOT, "  p50 ratio, 1 in flight:       %.2f x plain (target <= 2.0); %.2f x plain + worker hop%n",
                    (double) median[2][0].p50Nanos() / median[0][0].p50Nanos(),
                    (double) median[2][0].p50Nanos() / median[1][0].p50Nanos());
            System.out.printf(Locale.ROOT, "  calls/s ratio, 16 in flight:  %.2f x plain (target >= 0.5); %.2f x plain + worker hop%n",
                    median[2][1].callsPerSecond() / median[0][1].callsPerSecond(),
                    median[2][1].callsPerSecond() / median[1][1].callsPerSecond());
        }
    }

    private static Result median(Result[] rs) {
        long[] p50 = Arrays.stream(rs).mapToLong(Result::p50Nanos).sorted().toArray();
        long[] p99 = Arrays.stream(rs).mapToLong(Result::p99Nanos).sorted().toArray();
        double[] cps = Arrays.stream(rs).mapToDouble(Result::callsPerSecond).sorted().toArray();
        return new Result(p50[p50.length / 2], p99[p99.length / 2], cps[cps.length / 2]);
    }

    private static Result measure(Caller caller, int inFlight, int calls) throws Exception {
        int perThread = calls / inFlight;
        long[] latencies = new long[perThread * inFlight];
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(inFlight);
        AtomicLong failures = new AtomicLong();
        Thread[] threads = new Thread[inFlight];
        for (int t = 0; t < inFlight; t++) {
            int offset = t * perThread;
            threads[t] = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        long s = System.nanoTime();
                        caller.call();
                        latencies[offset + i] = System.nanoTime() - s;
                    }
                } catch (Exception e) {
                    failures.incrementAndGet();
                    e.printStackTrace();
                } finally {
                    done.countDown();
                }
            }, "caller-" + t);
            threads[t].start();
        }
        long begin = System.nanoTime();
        start.countDown();
        done.await();
        long elapsed = System.nanoTime() - begin;
        if (failures.get() > 0) {
            throw new IllegalStateException(failures.get() + " callers failed");
        }
        Arrays.sort(latencies);
        return new Result(latencies[latencies.length / 2], latencies[(int) (latencies.length * 0.99)],
                latencies.length / (elapsed / 1e9));
    }

    /** The whole stack: dispatcher → DAEMON → server → client connector → tool. */
    private static final class StackHarness implements AutoCloseable {
        private final WorkTargetServer server;
        private final WorkTargetClient daemon;
        private final WorkTargetDispatcher dispatcher;
        private final Map<String, Object> params = Map.of("path", "README.md");

        StackHarness() throws Exception {
            server = WorkTargetServer.builder().authenticator(TokenAuthenticator.builder()
                    .token(TOKEN, new AuthPrincipal("bench", "acme", Set.of("proj"), null)).build()).build().start();
            BackendTool read = BackendTool.of(ToolCatalog.backend("client_file_read").orElseThrow(),
                    (p, ctx) -> Map.of("content", "hello", "totalLines", 1));
            daemon = WorkTargetClient.builder().uri(URI.create("ws://127.0.0.1:" + server.port() + "/worktarget/v1"))
                    .token(TOKEN).daemon("acme", "proj", "bench").tools(List.of(read)).build().start();
            if (!daemon.awaitConnected(Duration.ofSeconds(10))) {
                throw new IllegalStateException("daemon did not connect");
            }
            ProcessInfo process = new ProcessInfo("p-1", null, null, "acme", "proj", null,
                    Map.of(WorkTarget.ENGINE_PARAM_KEY, WorkTarget.daemon("bench").toMap()));
            ProcessStore store = new ProcessStore() {
                @Override
                public Optional<ProcessInfo> find(String processId) {
                    return "p-1".equals(processId) ? Optional.of(process) : Optional.empty();
                }

                @Override
                public void putEngineParam(String processId, String key, Object value) {
                    throw new UnsupportedOperationException("read-only benchmark store");
                }
            };
            dispatcher = WorkTargetDispatcher.builder().processStore(store).peers(server.peers()).build();
        }

        void call() throws Exception {
            dispatcher.invoke("p-1", "file_read", params);
        }

        @Override
        public void close() {
            daemon.close();
            server.close();
        }
    }

    /**
     * Plain Netty: the client sends a small text frame, the server echoes it, on its I/O thread or
     * (with {@code workerHop}) from a worker pool thread, the minimum any responder pays that must not
     * run tool work on an I/O thread.
     */
    private static final class PlainHarness implements AutoCloseable {
        private final ExecutorService workers = Executors.newFixedThreadPool(16);
        private final EventLoopGroup serverGroup = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
        private final EventLoopGroup clientGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        private final Map<Long, CompletableFuture<Void>> pending = new ConcurrentHashMap<>();
        private final AtomicLong ids = new AtomicLong();
        private final Channel client;
        private final Channel serverChannel;

        PlainHarness(boolean workerHop) throws Exception {
            serverChannel = new ServerBootstrap().group(serverGroup).channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536),
                                    new WebSocketServerProtocolHandler("/plain", null, false, 2 << 20),
                                    new SimpleChannelInboundHandler<TextWebSocketFrame>() {
                                        @Override
                                        protected void channelRead0(ChannelHandlerContext ctx, TextWebSocketFrame f) {
                                            TextWebSocketFrame echo = new TextWebSocketFrame(f.content().retain());
                                            if (workerHop) {
                                                workers.execute(() -> ctx.writeAndFlush(echo));
                                            } else {
                                                ctx.writeAndFlush(echo);
                                            }
                                        }
                                    });
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
            int port = ((java.net.InetSocketAddress) serverChannel.localAddress()).getPort();
            CompletableFuture<Void> ready = new CompletableFuture<>();
            WebSocketClientProtocolConfig ws = WebSocketClientProtocolConfig.newBuilder()
                    .webSocketUri(URI.create("ws://127.0.0.1:" + port + "/plain")).build();
            client = new Bootstrap().group(clientGroup).channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(65536),
                                    new WebSocketClientProtocolHandler(ws),
                                    new SimpleChannelInboundHandler<TextWebSocketFrame>() {
                                        @Override
                                        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                                            if (evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent
                                                    .HANDSHAKE_COMPLETE) {
                                                ready.complete(null);
                                            }
                                        }

                                        @Override
                                        protected void channelRead0(ChannelHandlerContext ctx, TextWebSocketFrame f) {
                                            ByteBuf c = f.content();
                                            long id = Long.parseLong(c.toString(c.readerIndex(), 16,
                                                    StandardCharsets.US_ASCII), 16);
                                            CompletableFuture<Void> p = pending.remove(id);
                                            if (p != null) {
                                                p.complete(null);
                                            }
                                        }
                                    });
                        }
                    }).connect("127.0.0.1", port).sync().channel();
            ready.get(10, TimeUnit.SECONDS);
        }

        void call() throws Exception {
            long id = ids.incrementAndGet();
            CompletableFuture<Void> f = new CompletableFuture<>();
            pending.put(id, f);
            String text = String.format(Locale.ROOT, "%016x", id)
                    + "{\"name\":\"client_file_read\",\"params\":{\"path\":\"README.md\"}}";
            client.writeAndFlush(new TextWebSocketFrame(text));
            f.get(10, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            client.close().syncUninterruptibly();
            serverChannel.close().syncUninterruptibly();
            workers.shutdownNow();
            clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
