package org.vancetope.worktarget.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
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
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.vancetope.worktarget.backend.daemon.DaemonServer;
import org.vancetope.worktarget.backend.daemon.ServerTransfers;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.DaemonStatus;
import org.vancetope.worktarget.testkit.InMemoryProcessStore;

/**
 * Moves a file (default 1 GiB) over loopback WebSocket between two processes, download
 * (Brain → daemon) and upload (daemon → Brain), with WorkTarget's real stack and, in the same run,
 * with a plain Netty WebSocket harness doing the same work (PERFORMANCE.md's "plain Netty harness with
 * default settings"), and prints MB/s for each, the ratios, and the peak heap of this JVM and of the
 * child processes.
 *
 * <pre>{@code
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -Xms1g -Xmx1g -XX:+AlwaysPreTouch -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *      org.vancetope.worktarget.benchmarks.WireTransferBenchmark [sizeMiB=1024] [reps=3] [childHeap=1g]
 * }</pre>
 *
 * <p>WorkTarget: a {@code WorkspaceBackend}, {@code ServerTransfers} and a {@code DaemonServer}
 * with a {@code TokenAuthenticator} in this JVM; the daemon is {@code cli.Main daemon} in a child
 * JVM; the timed calls are the host tools {@code client_file_download} and {@code client_file_upload}
 * through the {@code WorkTargetDispatcher} with the DAEMON target set (each includes the sender's
 * SHA-256 pass before {@code transfer_init} that the protocol requires).
 *
 * <p>Plain Netty: a WebSocket server in this JVM and a WebSocket client in a second child JVM (this
 * class with {@code --plain-peer}), both with Netty's default settings except a 2 MiB frame limit.
 * The sender reads 64 KiB chunks, base64-encodes them into a JSON text frame built with Jackson (at
 * most 8 writes in flight); the receiver parses the frame with Jackson, decodes the base64, writes the
 * bytes to disk, hashes them with SHA-256 and acks with the hash after the last chunk. The sender does
 * not hash before sending.
 *
 * <p>Both child JVMs get {@code -Xms<childHeap> -Xmx<childHeap> -XX:+AlwaysPreTouch} and a GC log
 * from which their peak heap is read ({@code -Dwirebench.childJvmArgs="…"} adds flags, e.g. a
 * profiler; {@code {name}} in them becomes {@code daemon} or {@code plain-peer}). Files live in a fresh temp directory (page cache warm: the file
 * was just written and hashed) that is deleted at the end. One warm-up pass on a slice of the file,
 * then {@code reps} interleaved passes; the figures are medians.
 */
public final class WireTransferBenchmark {
    private static final int CHUNK = 64 * 1024;
    private static final int MAX_FRAME = 2 * 1024 * 1024;
    private static final int WRITES_IN_FLIGHT = 8;
    private static final String TENANT = "acme";
    private static final String PROJECT = "bench";
    private static final String DAEMON = "bench-box";
    private static final String PROCESS = "p-1";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Pattern GC_LINE = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");

    private WireTransferBenchmark() {
    }

    /**
     * Runs the benchmark, or (with {@code --plain-peer PORT DIR}) the plain harness's child side.
     *
     * @param args optional size in MiB (1024), repetitions (3) and heap of the child JVMs (1g)
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--plain-peer")) {
            PlainPeer.run(Integer.parseInt(args[1]), Path.of(args[2]));
            return;
        }
        long sizeMiB = args.length > 0 ? Long.parseLong(args[0]) : 1024;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        String childHeap = args.length > 2 ? args[2] : "1g";
        Path base = Files.createTempDirectory("wt-wirebench");
        try {
            new Run(base, sizeMiB << 20, reps, childHeap).run();
        } finally {
            deleteTree(base);
        }
    }

    /** One benchmark run: both stacks set up side by side, then interleaved passes. */
    private static final class Run {
        private final Path base;
        private final long size;
        private final int reps;
        private final String childHeap;
        private final List<Process> children = new ArrayList<>();

        Run(Path base, long size, int reps, String childHeap) {
            this.base = base;
            this.size = size;
            this.reps = reps;
            this.childHeap = childHeap;
        }

        void run() throws Exception {
            Path files = Files.createDirectories(base.resolve("files"));
            Path source = files.resolve("source.bin");
            Path warm = files.resolve("warm.bin");
            writeRandom(source, size);
            writeRandom(warm, Math.min(size, 128L << 20));
            String sourceHash = sha256(source);
            String warmHash = sha256(warm);
            System.out.printf(Locale.ROOT, "file: %d MiB in %s; this JVM heap max %d MiB; child JVMs -Xmx%s; %d CPUs%n",
                    size >> 20, base, Runtime.getRuntime().maxMemory() >> 20, childHeap,
                    Runtime.getRuntime().availableProcessors());
            String token = "bench-" + Long.toHexString(new Random().nextLong());
            InMemoryProcessStore processes = new InMemoryProcessStore();
            processes.add(PROCESS, null, "s-1", TENANT, PROJECT, "alice");
            long limit = Math.max(size, TransferSettings.defaults().maxUploadSize());
            TransferSettings settings = TransferSettings.defaults().toBuilder().maxUploadSize(limit)
                    .maxDownloadSize(limit).build();
            Path footRoot = Files.createDirectories(base.resolve("daemon-foot"));
            Path footProject = Files.createDirectories(footRoot.resolve(TENANT).resolve(PROJECT));
            Path plainServerDir = Files.createDirectories(base.resolve("plain-server"));
            Path plainPeerDir = Files.createDirectories(base.resolve("plain-peer"));
            HeapPeak heap = new HeapPeak();
            try (WorkspaceBackend work = WorkspaceBackend.builder()
                         .workspaceRoot(Files.createDirectories(base.resolve("workspace"))).build();
                 ServerTransfers transfers = ServerTransfers.create(
                         new RootDirTargetResolver((s, dir) -> work.findRoot(s.tenant(), s.project(), dir)),
                         settings, TransferListener.NONE);
                 DaemonServer server = DaemonServer.builder().host("127.0.0.1").port(0)
                         .authenticator(TokenAuthenticator.builder()
                                 .token(token, new AuthPrincipal("bench-daemon", TENANT, Set.of(PROJECT), null)).build())
                         .frameExtension(transfers.extension()).build().start();
                 PlainServer plain = new PlainServer(plainServerDir)) {
                WorkTargetDispatcher.Builder b = WorkTargetDispatcher.builder().processStore(processes).backend(work)
                        .rootDirCatalog(work).clientConnectivity(server.clients()).daemonInvoker(server.daemons());
                transfers.tools(work.ephemeralDirs()).forEach(b::hostTool);
                WorkTargetDispatcher dispatcher = b.build();
                transfers.bind(server, dispatcher.targets());

                Process daemon = startChild("daemon", List.of("org.vancetope.worktarget.backend.daemon.cli.Main",
                        "daemon", "--connect", "ws://127.0.0.1:" + server.port() + "/worktarget/v1", "--token", token,
                        "--tenant", TENANT, "--project", PROJECT, "--name", DAEMON,
                        "--workdir", Files.createDirectories(base.resolve("daemon-workdir")).toString(),
                        "--foot-root", footRoot.toString(), "--max-transfer-mib", Long.toString(limit >> 20)));
                awaitDaemon(server, daemon);
                Process peer = startChild("plain-peer", List.of(WireTransferBenchmark.class.getName(), "--plain-peer",
                        Integer.toString(plain.port()), plainPeerDir.toString()));
                Channel peerChannel = plain.awaitPeer(peer);

                String dirName = (String) dispatcher.invoke(PROCESS, "workspace_create_ephemeral_dir", Map.of())
                        .get("dirName");
                Path rootDir = work.findRoot(TENANT, PROJECT, dirName).orElseThrow();
                for (Path dir : List.of(rootDir, footProject, plainServerDir, plainPeerDir)) {
                    link(dir.resolve("source.bin"), source);
                    link(dir.resolve("warm.bin"), warm);
                }
                dispatcher.invoke(PROCESS, "work_target_set", Map.of("kind", "DAEMON", "targetName", DAEMON));

                double[][] mbs = new double[4][reps];
                for (int pass = -1; pass < reps; pass++) {
                    boolean warmUp = pass < 0;
                    String name = warmUp ? "warm.bin" : "source.bin";
                    String hash = warmUp ? warmHash : sourceHash;
                    long bytes = Files.size(warmUp ? warm : source);
                    double[] r = new double[4];
                    heap.phase(0);
                    r[0] = timed(bytes, () -> checkWt(dispatcher.invoke(PROCESS, "client_file_download", Map.of(
                            "dirName", dirName, "remotePath", name, "localPath", "down.bin")), hash));
                    r[1] = timed(bytes, () -> checkWt(dispatcher.invoke(PROCESS, "client_file_upload", Map.of(
                            "localPath", name, "dirName", dirName, "remotePath", "up.bin")), hash));
                    heap.phase(1);
                    r[2] = timed(bytes, () -> check(plain.download(peerChannel, name, "down.bin"), hash));
                    r[3] = timed(bytes, () -> check(plain.upload(peerChannel, name, "up.bin"), hash));
                    heap.phase(-1);
                    for (Path received : List.of(footProject.resolve("down.bin"), rootDir.resolve("up.bin"),
                            plainPeerDir.resolve("down.bin"), plainServerDir.resolve("up.bin"))) {
                        if (Files.size(received) != bytes) {
                            throw new IllegalStateException(received + " has the wrong size");
                        }
                        Files.delete(received);
                    }
                    System.out.printf(Locale.ROOT, "%-8s WorkTarget down %7.1f up %7.1f MB/s | plain Netty down %7.1f up %7.1f MB/s%n",
                            warmUp ? "warm-up" : "pass " + (pass + 1), r[0], r[1], r[2], r[3]);
                    if (!warmUp) {
                        for (int i = 0; i < 4; i++) {
                            mbs[i][pass] = r[i];
                        }
                    }
                }
                peerChannel.close().syncUninterruptibly();
                report(mbs, heap);
            } finally {
                heap.close();
                for (Process p : children) {
                    p.destroy();
                    if (!p.waitFor(10, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                }
            }
            System.out.printf(Locale.ROOT, "child peak heap (GC log: before GC / live after GC): daemon %s, plain peer %s%n",
                    gcPeak(base.resolve("daemon.gc.log")), gcPeak(base.resolve("plain-peer.gc.log")));
        }

        private void report(double[][] mbs, HeapPeak heap) {
            double[] m = new double[4];
            for (int i = 0; i < 4; i++) {
                m[i] = median(mbs[i]);
            }
            System.out.printf(Locale.ROOT, "%d MiB over loopback WebSocket, two processes, median of %d passes:%n",
                    size >> 20, reps);
            System.out.printf(Locale.ROOT, "  download Brain -> daemon:  WorkTarget %7.1f MB/s  plain Netty %7.1f MB/s  ratio %.2f%n",
                    m[0], m[2], m[0] / m[2]);
            System.out.printf(Locale.ROOT, "  upload   daemon -> Brain:  WorkTarget %7.1f MB/s  plain Netty %7.1f MB/s  ratio %.2f%n",
                    m[1], m[3], m[1] / m[3]);
            System.out.printf(Locale.ROOT, "  (all passes: WorkTarget down %s up %s; plain down %s up %s)%n",
                    fmt(mbs[0]), fmt(mbs[1]), fmt(mbs[2]), fmt(mbs[3]));
            System.out.printf(Locale.ROOT, "this JVM peak heap used (MemoryMXBean, sampled every 5 ms, incl. garbage): "
                    + "WorkTarget %d MiB, plain Netty %d MiB; live after GC (heap pools' collection usage): "
                    + "WorkTarget %d MiB, plain Netty %d MiB%n", heap.peak(0) >> 20, heap.peak(1) >> 20,
                    heap.live(0) >> 20, heap.live(1) >> 20);
        }

        private Process startChild(String name, List<String> mainAndArgs) throws IOException {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> cmd = new ArrayList<>(List.of(java, "-Xms" + childHeap, "-Xmx" + childHeap,
                    "-XX:+AlwaysPreTouch", "-Xlog:gc:file=" + base.resolve(name + ".gc.log"),
                    "-cp", System.getProperty("java.class.path")));
            String extra = System.getProperty("wirebench.childJvmArgs", "").replace("{name}", name);
            if (!extra.isBlank()) {
                cmd.addAll(1, List.of(extra.trim().split("\\s+")));
            }
            cmd.addAll(mainAndArgs);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(base.resolve(name + ".log").toFile())).start();
            children.add(p);
            return p;
        }

        private void awaitDaemon(DaemonServer server, Process daemon) throws Exception {
            DaemonKey key = new DaemonKey(TENANT, PROJECT, DAEMON);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (server.daemons().status(key).state() != DaemonStatus.State.ONLINE) {
                if (!daemon.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("The daemon did not connect; its log:\n"
                            + Files.readString(base.resolve("daemon.log")));
                }
                Thread.sleep(20);
            }
        }
    }

    /** A timed piece of work. */
    @FunctionalInterface
    private interface Work {
        void run() throws Exception;
    }

    private static double timed(long bytes, Work w) throws Exception {
        long t0 = System.nanoTime();
        w.run();
        return bytes / 1e6 / ((System.nanoTime() - t0) / 1e9);
    }

    private static void checkWt(Map<String, Object> r, String hash) {
        if (!Boolean.TRUE.equals(r.get("ok")) || !hash.equals(r.get("hash"))) {
            throw new IllegalStateException("transfer failed: " + r);
        }
    }

    private static void check(String got, String hash) {
        if (!hash.equals(got)) {
            throw new IllegalStateException("hash mismatch: " + got + " != " + hash);
        }
    }

    static double median(double[] xs) {
        double[] s = xs.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    static String fmt(double[] xs) {
        StringBuilder sb = new StringBuilder();
        for (double x : xs) {
            sb.append(sb.length() == 0 ? "" : "/").append(String.format(Locale.ROOT, "%.1f", x));
        }
        return sb.toString();
    }

    static String gcPeak(Path log) throws IOException {
        if (!Files.exists(log)) {
            return "(no GC log)";
        }
        long before = 0;
        long after = 0;
        long committed = 0;
        int gcs = 0;
        for (String line : Files.readAllLines(log)) {
            Matcher m = GC_LINE.matcher(line);
            if (m.find()) {
                gcs++;
                before = Math.max(before, Long.parseLong(m.group(1)));
                after = Math.max(after, Long.parseLong(m.group(2)));
                committed = Math.max(committed, Long.parseLong(m.group(3)));
            }
        }
        return String.format(Locale.ROOT, "%d / %d MiB of %d MiB (%d GCs)", before, after, committed, gcs);
    }

    static void link(Path link, Path target) throws IOException {
        try {
            Files.createLink(link, target);
        } catch (UnsupportedOperationException | IOException e) {
            Files.copy(target, link);
        }
    }

    static void writeRandom(Path file, long size) throws IOException {
        byte[] block = new byte[1024 * 1024];
        Random random = new Random(42);
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long written = 0; written < size; written += block.length) {
                random.nextBytes(block);
                out.write(block, 0, (int) Math.min(block.length, size - written));
            }
        }
    }

    static String sha256(Path file) throws IOException {
        MessageDigest d = digest();
        ByteBuffer buf = ByteBuffer.allocate(256 * 1024);
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                d.update(buf.array(), 0, n);
                buf.clear();
            }
        }
        return "sha256:" + HexFormat.of().formatHex(d.digest());
    }

    static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static void deleteTree(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Samples this JVM's used heap through the {@link MemoryMXBean}, per phase. */
    private static final class HeapPeak {
        private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        private final AtomicLong[] peaks = {new AtomicLong(), new AtomicLong()};
        private final AtomicLong[] live = {new AtomicLong(), new AtomicLong()};
        private volatile int phase = -1;
        private volatile boolean running = true;
        private final Thread thread;

        HeapPeak() {
            thread = new Thread(() -> {
                while (running) {
                    int p = phase;
                    if (p >= 0) {
                        peaks[p].accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                        long afterGc = 0;
                        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                            if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
                                afterGc += pool.getCollectionUsage().getUsed();
                            }
                        }
                        live[p].accumulateAndGet(afterGc, Math::max);
                    }
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "heap-peak");
            thread.setDaemon(true);
            thread.start();
        }

        void phase(int p) {
            phase = p;
        }

        long peak(int p) {
            return peaks[p].get();
        }

        long live(int p) {
            return live[p].get();
        }

        void close() throws InterruptedException {
            running = false;
            thread.join();
        }
    }

    // ---------------------------------------------------------------- the plain Netty harness

    /**
     * The frame handling both ends of the plain harness share: chunk frames are received into
     * {@code dir} (Jackson parse, base64 decode, write, SHA-256, ack after the last one), acks and
     * finished receptions complete the pending future of their transfer id, and a {@code send}
     * request makes this end send a file from {@code dir}.
     */
    private static final class PlainHandler extends SimpleChannelInboundHandler<TextWebSocketFrame> {
        private final Path dir;
        private final Map<String, CompletableFuture<String>> pending;
        private final ExecutorService senders;
        private final CompletableFuture<Channel> handshake;
        private final Map<String, Reception> receptions = new ConcurrentHashMap<>();

        PlainHandler(Path dir, Map<String, CompletableFuture<String>> pending, ExecutorService senders,
                     CompletableFuture<Channel> handshake) {
            this.dir = dir;
            this.pending = pending;
            this.senders = senders;
            this.handshake = handshake;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
            if (evt instanceof WebSocketServerProtocolHandler.HandshakeComplete
                    || evt == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
                handshake.complete(ctx.channel());
            }
            super.userEventTriggered(ctx, evt);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, TextWebSocketFrame frame) throws Exception {
            JsonNode f = MAPPER.readTree(frame.text());
            String id = f.get("id").asText();
            switch (f.get("type").asText()) {
                case "chunk" -> {
                    Reception r = f.get("seq").asLong() == 0
                            ? receptions.computeIfAbsent(id, k -> new Reception(dir.resolve(f.get("path").asText())))
                            : receptions.get(id);
                    if (r == null) {
                        throw new IllegalStateException("chunk for an unknown transfer " + id);
                    }
                    r.write(Base64.getDecoder().decode(f.get("data").asText()));
                    if (f.get("last").asBoolean()) {
                        receptions.remove(id);
                        String hash = r.finish();
                        ObjectNode ack = MAPPER.createObjectNode().put("type", "ack").put("id", id).put("hash", hash);
                        ctx.writeAndFlush(new TextWebSocketFrame(MAPPER.writeValueAsString(ack)));
                        complete(id, hash);
                    }
                }
                case "ack" -> complete(id, f.get("hash").asText());
                case "send" -> {
                    Channel ch = ctx.channel();
                    senders.execute(() -> {
                        try {
                            sendFile(ch, dir.resolve(f.get("path").asText()), id, f.get("to").asText());
                        } catch (Exception e) {
                            System.err.println("plain harness: sending " + id + " failed: " + e);
                            ch.close();
                        }
                    });
                }
                default -> throw new IllegalStateException("unknown frame " + f);
            }
        }

        private void complete(String id, String hash) {
            CompletableFuture<String> p = pending.remove(id);
            if (p != null) {
                p.complete(hash);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            failAll(new IOException("connection closed"));
            super.channelInactive(ctx);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failAll(cause);
            ctx.close();
        }

        private void failAll(Throwable cause) {
            pending.values().forEach(p -> p.completeExceptionally(cause));
            pending.clear();
            receptions.values().forEach(Reception::abort);
            receptions.clear();
        }
    }

    /** One file being received: written and hashed chunk by chunk. */
    private static final class Reception {
        private final FileChannel out;
        private final MessageDigest digest = digest();

        Reception(Path file) {
            try {
                out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                        StandardOpenOption.WRITE);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        void write(byte[] data) throws IOException {
            digest.update(data);
            ByteBuffer b = ByteBuffer.wrap(data);
            while (b.hasRemaining()) {
                out.write(b);
            }
        }

        String finish() throws IOException {
            out.close();
            return "sha256:" + HexFormat.of().formatHex(digest.digest());
        }

        void abort() {
            try {
                out.close();
            } catch (IOException e) {
                System.err.println("cannot close a reception: " + e);
            }
        }
    }

    /** Sends a file as JSON text frames with base64 64 KiB chunks, at most 8 writes in flight. */
    private static void sendFile(Channel ch, Path file, String id, String to) throws Exception {
        Semaphore inFlight = new Semaphore(WRITES_IN_FLIGHT);
        CompletableFuture<Void> failed = new CompletableFuture<>();
        Base64.Encoder base64 = Base64.getEncoder();
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = in.size();
            long sent = 0;
            long seq = 0;
            ByteBuffer buf = ByteBuffer.allocate(CHUNK);
            do {
                buf.clear();
                while (buf.hasRemaining() && in.read(buf) >= 0) {
                    if (sent + buf.position() == size) {
                        break;
                    }
                }
                int n = buf.position();
                sent += n;
                byte[] raw = n == CHUNK ? buf.array() : Arrays.copyOf(buf.array(), n);
                ObjectNode frame = MAPPER.createObjectNode().put("type", "chunk").put("id", id).put("path", to)
                        .put("seq", seq++).put("data", base64.encodeToString(raw)).put("last", sent == size);
                String json = MAPPER.writeValueAsString(frame);
                inFlight.acquire();
                if (failed.isDone()) {
                    failed.join();
                }
                ch.writeAndFlush(new TextWebSocketFrame(json)).addListener(w -> {
                    inFlight.release();
                    if (!w.isSuccess()) {
                        failed.completeExceptionally(w.cause());
                    }
                });
            } while (sent < size);
        }
    }

    /** The plain harness's server, in this JVM: the Brain's counterpart. */
    private static final class PlainServer implements AutoCloseable {
        private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
        private final ExecutorService senders = Executors.newSingleThreadExecutor();
        private final Map<String, CompletableFuture<String>> pending = new ConcurrentHashMap<>();
        private final CompletableFuture<Channel> handshake = new CompletableFuture<>();
        private final Channel listener;
        private final AtomicLong ids = new AtomicLong();
        private final Path dir;

        PlainServer(Path dir) throws InterruptedException {
            this.dir = dir;
            listener = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536),
                                    new WebSocketServerProtocolHandler("/plain", null, false, MAX_FRAME),
                                    new PlainHandler(dir, pending, senders, handshake));
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
        }

        int port() {
            return ((InetSocketAddress) listener.localAddress()).getPort();
        }

        Channel awaitPeer(Process peer) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!handshake.isDone()) {
                if (!peer.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("the plain peer did not connect (exit " + (peer.isAlive() ? "-"
                            : peer.exitValue()) + ")");
                }
                Thread.sleep(20);
            }
            return handshake.get();
        }

        /** Sends {@code name} to the peer; returns the hash the peer acked. */
        String download(Channel peer, String name, String to) throws Exception {
            String id = "d" + ids.incrementAndGet();
            CompletableFuture<String> acked = new CompletableFuture<>();
            pending.put(id, acked);
            sendFile(peer, dir.resolve(name), id, to);
            return acked.get(10, TimeUnit.MINUTES);
        }

        /** Asks the peer to send {@code name}; returns the hash of what arrived here. */
        String upload(Channel peer, String name, String to) throws Exception {
            String id = "u" + ids.incrementAndGet();
            CompletableFuture<String> received = new CompletableFuture<>();
            pending.put(id, received);
            ObjectNode req = MAPPER.createObjectNode().put("type", "send").put("id", id).put("path", name).put("to", to);
            peer.writeAndFlush(new TextWebSocketFrame(MAPPER.writeValueAsString(req)));
            return received.get(10, TimeUnit.MINUTES);
        }

        @Override
        public void close() {
            listener.close().syncUninterruptibly();
            senders.shutdownNow();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** The plain harness's client, run in a child JVM: the daemon's counterpart. */
    private static final class PlainPeer {
        private PlainPeer() {
        }

        static void run(int port, Path dir) throws Exception {
            EventLoopGroup group = new MultiThreadIoEventLoopGroup(NioIoHandler.newFactory());
            ExecutorService senders = Executors.newSingleThreadExecutor();
            Map<String, CompletableFuture<String>> pending = new ConcurrentHashMap<>();
            CompletableFuture<Channel> handshake = new CompletableFuture<>();
            try {
                WebSocketClientProtocolConfig ws = WebSocketClientProtocolConfig.newBuilder()
                        .webSocketUri(URI.create("ws://127.0.0.1:" + port + "/plain"))
                        .maxFramePayloadLength(MAX_FRAME).build();
                Channel ch = new Bootstrap().group(group).channel(NioSocketChannel.class)
                        .handler(new ChannelInitializer<SocketChannel>() {
                            @Override
                            protected void initChannel(SocketChannel c) {
                                c.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(65536),
                                        new WebSocketClientProtocolHandler(ws),
                                        new PlainHandler(dir, pending, senders, handshake));
                            }
                        }).connect("127.0.0.1", port).sync().channel();
                handshake.get(30, TimeUnit.SECONDS);
                ch.closeFuture().sync();
            } finally {
                senders.shutdownNow();
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            }
        }
    }
}
