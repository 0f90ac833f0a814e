package org.vancetope.worktarget.benchmarks;

import io.netty.channel.Channel;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.backend.daemon.ServerTransfers;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferCapability;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.core.InMemoryProcessStore;

/**
 * Moves a file (default 1 GiB) over loopback WebSocket between two processes, download
 * (Brain → daemon) and upload (daemon → Brain), with WorkTarget's real stack and, in the same run,
 * with a plain Netty WebSocket harness doing the same work (a plain Netty harness with
 * default settings), and prints MB/s for each, the ratios, and the peak heap of this JVM and of the
 * child processes.
 *
 * <pre>{@code
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -Xms1g -Xmx1g -XX:+AlwaysPreTouch -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *      org.vancetope.worktarget.benchmarks.WireTransferBenchmark [sizeMiB=1024] [reps=3] [childHeap=1g]
 * }</pre>
 *
 * <p>WorkTarget: a {@code WorkspaceBackend}, {@code ServerTransfers} and a {@code WorkTargetServer}
 * with a {@code TokenAuthenticator} in this JVM; the daemon is {@code cli.Main daemon} in a child
 * JVM; the timed calls are the host tools {@code client_file_download} and {@code client_file_upload}
 * through the {@code WorkTargetDispatcher} with the DAEMON target set. The server offers every transfer
 * capability by default, so chunks travel as binary frames and the sender hashes while it sends
 * ({@code transfer.binary}, {@code transfer.hash-trailer}); {@code -Dwirebench.capabilities=none} measures
 * version 1 (base64 JSON chunks, the sender's SHA-256 pass before {@code transfer_init}).
 *
 * <p>Plain Netty, twice ({@link PlainWsHarness}): a WebSocket server in this JVM and a client in a
 * child JVM (this class with {@code --plain-peer PORT DIR MODE}); the default harness with Netty's
 * defaults, Jackson trees and strings, and a tuned harness (no per-frame UTF-8
 * re-validation, bytes end to end, base64 decoded straight into the write buffer). Neither sender
 * hashes before sending; the protocol requires the WorkTarget sender to (the hash goes into
 * {@code transfer_init}), so the report also shows the tuned harness's time plus one SHA-256 pass over
 * the file, timed in the same pass.
 *
 * <p>{@code --binary [sizeMiB] [reps] [childHeap]}: the same run with the two binary-frame harnesses
 * ({@code BINARY}, and {@code BINARY_TRAILER}, whose sender hashes while it streams) in place of the
 * default and tuned ones: the references for WorkTarget's binary chunks + hash trailer.
 *
 * <p>{@code --v2-only [sizeMiB=1024] [reps=1] [childHeap=64m]}: only WorkTarget, down and up, no
 * warm-up, with this JVM's and the daemon's peak heap; run this JVM with {@code -Xms64m -Xmx64m} for
 * the bounded-memory check.
 *
 * <p>MINA SSHD SFTP ({@link SftpHarness}): the server in a child JVM, the client in this JVM, MINA's
 * defaults; its upload (this JVM → child) is the direction of {@code client_file_download}.
 *
 * <p>WorkTarget's receivers run with {@code syncBeforeCommit(false)} (the daemon with {@code --no-sync}),
 * like the plain harnesses, which do not force the file to the device either; {@code -Dwirebench.sync=true}
 * measures the library's default, which does.
 *
 * <p>zstd rows ({@code --zstd-link [MB/s=50] [sizeMiB=64] [reps=3]}, see {@link Run#runZstdLink}): the
 * same server and daemon, the daemon connected through a {@link ThrottledLink} of a fixed rate, source
 * text and random bytes both ways, with {@code transfer.zstd} in the server's offer and without it.
 *
 * <p>Both child JVMs get {@code -Xms<childHeap> -Xmx<childHeap> -XX:+AlwaysPreTouch} and a GC log
 * from which their peak heap is read ({@code -Dwirebench.childJvmArgs="…"} adds flags, e.g. a
 * profiler; {@code {name}} in them becomes {@code daemon}, {@code plain-peer}, {@code tuned-peer} or {@code sftp-server}). Files live in a fresh temp directory (page cache warm: the file
 * was just written and hashed) that is deleted at the end. One warm-up pass on a 128 MiB slice of the
 * file ({@code -Dwirebench.warmups=N} for N of them), then {@code reps} interleaved passes; the figures
 * are medians.
 */
public final class WireTransferBenchmark {
    private static final String TENANT = "acme";
    private static final String PROJECT = "bench";
    private static final String DAEMON = "bench-box";
    private static final String PROCESS = "p-1";
    /** Whether WorkTarget's receivers sync a file to the device before the rename (the plain harnesses never do). */
    private static final boolean SYNC = Boolean.getBoolean("wirebench.sync");
    private static final Pattern GC_LINE = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");

    private WireTransferBenchmark() {
    }

    /**
     * Warm-up passes on the 128 MiB slice before the timed ones ({@code -Dwirebench.warmups}, default 1): every
     * side's passes still rise after one on 2 cores while the JIT compiles; 4 measure long-running peers.
     */
    private static final int WARMUPS = Integer.getInteger("wirebench.warmups", 1);

    /** The transfer capabilities the server offers: {@code -Dwirebench.capabilities=all|none|binary,hash-trailer}. */
    private static final Set<TransferCapability> CAPABILITIES = capabilities(
            System.getProperty("wirebench.capabilities", "all"));

    private static Set<TransferCapability> capabilities(String spec) {
        if (spec.equals("all")) {
            return java.util.EnumSet.allOf(TransferCapability.class);
        }
        Set<TransferCapability> caps = java.util.EnumSet.noneOf(TransferCapability.class);
        if (!spec.equals("none")) {
            for (String name : spec.split(",")) {
                caps.add(TransferCapability.fromWire("transfer." + name.strip()).orElseThrow(() ->
                        new IllegalArgumentException("unknown transfer capability '" + name + "'; known: "
                                + Arrays.toString(TransferCapability.values()))));
            }
        }
        return caps;
    }

    /**
     * Runs the benchmark, or (with {@code --plain-peer PORT DIR MODE}) a plain harness's child side.
     *
     * @param args optional size in MiB (1024), repetitions (3) and heap of the child JVMs (1g)
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--plain-peer")) {
            PlainWsHarness.runPeer(Integer.parseInt(args[1]), Path.of(args[2]), PlainWsHarness.Mode.valueOf(args[3]));
            return;
        }
        if (System.getProperty("org.slf4j.simpleLogger.log.org.apache.sshd") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.org.apache.sshd", "warn");
        }
        if (args.length > 0 && args[0].equals("--zstd-link")) {
            double rate = args.length > 1 ? Double.parseDouble(args[1]) : 50;
            long mib = args.length > 2 ? Long.parseLong(args[2]) : 64;
            int passes = args.length > 3 ? Integer.parseInt(args[3]) : 3;
            Path dir = Files.createTempDirectory("wt-wirebench");
            try {
                new Run(dir, mib << 20, passes, "512m").runZstdLink(rate * 1e6);
            } finally {
                deleteTree(dir);
            }
            return;
        }
        boolean v2Only = args.length > 0 && args[0].equals("--v2-only");
        boolean binary = args.length > 0 && args[0].equals("--binary");
        int a = v2Only || binary ? 1 : 0;
        long sizeMiB = args.length > a ? Long.parseLong(args[a]) : 1024;
        int reps = args.length > a + 1 ? Integer.parseInt(args[a + 1]) : v2Only ? 1 : 3;
        String childHeap = args.length > a + 2 ? args[a + 2] : v2Only ? "64m" : "1g";
        Path base = Files.createTempDirectory("wt-wirebench");
        try {
            Run run = new Run(base, sizeMiB << 20, reps, childHeap);
            if (v2Only) {
                run.runV2Only();
            } else if (binary) {
                run.run(PlainWsHarness.Mode.BINARY, PlainWsHarness.Mode.BINARY_TRAILER);
            } else {
                run.run(PlainWsHarness.Mode.DEFAULT, PlainWsHarness.Mode.TUNED);
            }
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

        /**
         * WorkTarget, two plain harnesses ({@code first} and {@code second}, the latter also with one
         * SHA-256 pass added) and SFTP, interleaved.
         */
        void run(PlainWsHarness.Mode first, PlainWsHarness.Mode second) throws Exception {
            String firstName = first.name().toLowerCase(Locale.ROOT).replace('_', '-');
            String secondName = second.name().toLowerCase(Locale.ROOT).replace('_', '-');
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
            processes.process(PROCESS).tenant(TENANT).project(PROJECT).session("s-1").user("alice").add();
            long limit = Math.max(size, TransferSettings.defaults().maxUploadSize());
            TransferSettings settings = TransferSettings.defaults().toBuilder().maxUploadSize(limit)
                    .maxDownloadSize(limit).syncBeforeCommit(SYNC).capabilities(CAPABILITIES).build();
            System.out.printf(Locale.ROOT, "WorkTarget's server offers the transfer capabilities %s "
                    + "(-Dwirebench.capabilities=none for version 1 transfers; the daemon offers all)%n", CAPABILITIES);
            // The daemon's transfers land in its work directory (one root per peer).
            Path footProject = Files.createDirectories(base.resolve("daemon-workdir"));
            Path plainServerDir = Files.createDirectories(base.resolve("plain-server"));
            Path plainPeerDir = Files.createDirectories(base.resolve("plain-peer"));
            Path tunedServerDir = Files.createDirectories(base.resolve("tuned-server"));
            Path tunedPeerDir = Files.createDirectories(base.resolve("tuned-peer"));
            Path sftpServerDir = Files.createDirectories(base.resolve("sftp-server"));
            Path sftpClientDir = Files.createDirectories(base.resolve("sftp-client"));
            HeapPeak heap = new HeapPeak();
            try (WorkspaceBackend work = WorkspaceBackend.builder()
                         .workspaceRoot(Files.createDirectories(base.resolve("workspace"))).build();
                 ServerTransfers transfers = ServerTransfers.create(
                         new RootDirTargetResolver((s, dir) -> work.findRoot(s.tenant(), s.project(), dir)),
                         settings, TransferListener.NONE);
                 WorkTargetServer server = WorkTargetServer.builder().host("127.0.0.1").port(0)
                         .authenticator(TokenAuthenticator.builder()
                                 .token(token, new AuthPrincipal("bench-daemon", TENANT, Set.of(PROJECT), null)).build())
                         .transfers(transfers).build().start();
                 PlainWsHarness.Server plain = new PlainWsHarness.Server(plainServerDir, first);
                 PlainWsHarness.Server tuned = new PlainWsHarness.Server(tunedServerDir, second);
                 SftpHarness sftp = SftpHarness.start(base, sftpServerDir, childHeap, childJvmArgs("sftp-server"))) {
                WorkTargetDispatcher.Builder b = WorkTargetDispatcher.builder().processStore(processes).backend(work)
                        .peers(server.peers());
                transfers.tools(work.ephemeralDirs()).forEach(b::hostTool);
                WorkTargetDispatcher dispatcher = b.build();

                List<String> daemonArgs = new ArrayList<>(List.of("org.vancetope.worktarget.backend.daemon.cli.Main",
                        "daemon", "--connect", "ws://127.0.0.1:" + server.port() + "/worktarget/v1", "--token", token,
                        "--tenant", TENANT, "--project", PROJECT, "--name", DAEMON,
                        "--workdir", footProject.toString(), "--max-transfer-mib", Long.toString(limit >> 20)));
                if (!SYNC) {
                    daemonArgs.add("--no-sync");
                }
                Process daemon = startChild("daemon", daemonArgs);
                awaitDaemon(server, daemon);
                Process peer = startChild(firstName + "-peer", List.of(WireTransferBenchmark.class.getName(),
                        "--plain-peer", Integer.toString(plain.port()), plainPeerDir.toString(), first.name()));
                Channel peerChannel = plain.awaitPeer(peer);
                Process tunedPeer = startChild(secondName + "-peer", List.of(WireTransferBenchmark.class.getName(),
                        "--plain-peer", Integer.toString(tuned.port()), tunedPeerDir.toString(), second.name()));
                Channel tunedChannel = tuned.awaitPeer(tunedPeer);

                String dirName = (String) dispatcher.invoke(PROCESS, "workspace_create_ephemeral_dir", Map.of())
                        .get("dirName");
                Path rootDir = work.findRoot(TENANT, PROJECT, dirName).orElseThrow();
                for (Path dir : List.of(rootDir, footProject, plainServerDir, plainPeerDir, tunedServerDir, tunedPeerDir,
                        sftpServerDir, sftpClientDir)) {
                    link(dir.resolve("source.bin"), source);
                    link(dir.resolve("warm.bin"), warm);
                }
                dispatcher.invoke(PROCESS, "work_target_set", Map.of("kind", "DAEMON", "targetName", DAEMON));

                double[][] mbs = new double[9][reps];
                for (int pass = -WARMUPS; pass < reps; pass++) {
                    boolean warmUp = pass < 0;
                    String name = warmUp ? "warm.bin" : "source.bin";
                    String hash = warmUp ? warmHash : sourceHash;
                    long bytes = Files.size(warmUp ? warm : source);
                    double[] r = new double[9];
                    heap.phase(0);
                    r[0] = timed(bytes, () -> checkWt(dispatcher.invoke(PROCESS, "client_file_download", Map.of(
                            "dirName", dirName, "remotePath", name, "localPath", "down.bin")), hash));
                    r[1] = timed(bytes, () -> checkWt(dispatcher.invoke(PROCESS, "client_file_upload", Map.of(
                            "localPath", name, "dirName", dirName, "remotePath", "up.bin")), hash));
                    heap.phase(1);
                    r[2] = timed(bytes, () -> check(plain.download(peerChannel, name, "down.bin"), hash));
                    r[3] = timed(bytes, () -> check(plain.upload(peerChannel, name, "up.bin"), hash));
                    r[4] = timed(bytes, () -> check(tuned.download(tunedChannel, name, "down.bin"), hash));
                    r[5] = timed(bytes, () -> check(tuned.upload(tunedChannel, name, "up.bin"), hash));
                    r[6] = timed(bytes, () -> check(sha256(tunedServerDir.resolve(name)), hash));
                    // SFTP's upload is this JVM -> child, the direction of client_file_download
                    r[7] = timed(bytes, () -> check(sftp.upload(sftpClientDir.resolve(name), "up.bin"), hash));
                    r[8] = timed(bytes, () -> check(sftp.download(name, sftpClientDir.resolve("down.bin")), hash));
                    heap.phase(-1);
                    for (Path received : List.of(footProject.resolve("down.bin"), rootDir.resolve("up.bin"),
                            plainPeerDir.resolve("down.bin"), plainServerDir.resolve("up.bin"),
                            tunedPeerDir.resolve("down.bin"), tunedServerDir.resolve("up.bin"),
                            sftpServerDir.resolve("up.bin"), sftpClientDir.resolve("down.bin"))) {
                        if (Files.size(received) != bytes) {
                            throw new IllegalStateException(received + " has the wrong size");
                        }
                        Files.delete(received);
                    }
                    System.out.printf(Locale.ROOT, "%-8s WorkTarget down %6.1f up %6.1f | plain %s down %6.1f up %6.1f"
                            + " | plain %s down %6.1f up %6.1f | SFTP down %6.1f up %6.1f | SHA-256 pass %6.1f MB/s%n",
                            warmUp ? "warm-up" : "pass " + (pass + 1), r[0], r[1], firstName, r[2], r[3], secondName,
                            r[4], r[5], r[7], r[8], r[6]);
                    if (!warmUp) {
                        for (int i = 0; i < r.length; i++) {
                            mbs[i][pass] = r[i];
                        }
                    }
                }
                peerChannel.close().syncUninterruptibly();
                tunedChannel.close().syncUninterruptibly();
                report(mbs, heap, sftp.negotiated(), firstName, secondName);
            } finally {
                heap.close();
                for (Process p : children) {
                    p.destroy();
                    if (!p.waitFor(10, TimeUnit.SECONDS)) {
                        p.destroyForcibly();
                    }
                }
            }
            System.out.printf(Locale.ROOT, "child peak heap (GC log: before GC / live after GC): daemon %s, %s peer %s,"
                    + " %s peer %s%n", gcPeak(base.resolve("daemon.gc.log")), firstName,
                    gcPeak(base.resolve(firstName + "-peer.gc.log")), secondName,
                    gcPeak(base.resolve(secondName + "-peer.gc.log")));
        }

        private void report(double[][] mbs, HeapPeak heap, String sftpCipher, String first, String second) {
            double[] m = new double[mbs.length];
            for (int i = 0; i < mbs.length; i++) {
                m[i] = median(mbs[i]);
            }
            // the sender's SHA-256 pass before transfer_init, which the protocol requires and the plain
            // harnesses skip, added to the tuned harness's time: the best a V1 sender can do over this wire
            // (with the binary harnesses: the binary one without a trailer, whose sender does not hash)
            boolean binary = second.equals("binary-trailer");
            String hashed = binary ? first : second;
            double tunedHashedDown = 1 / (1 / m[binary ? 2 : 4] + 1 / m[6]);
            double tunedHashedUp = 1 / (1 / m[binary ? 3 : 5] + 1 / m[6]);
            System.out.printf(Locale.ROOT, "%d MiB over loopback WebSocket, two processes, median of %d passes (MB/s):%n",
                    size >> 20, reps);
            System.out.printf(Locale.ROOT, "  %-26s %10s %14s %16s %22s %10s%n", "", "WorkTarget", "plain " + first,
                    "plain " + second, hashed + " + sender hash", "MINA SFTP");
            System.out.printf(Locale.ROOT, "  %-26s %10.1f %14.1f %16.1f %22.1f %10.1f%n", "download Brain -> daemon",
                    m[0], m[2], m[4], tunedHashedDown, m[7]);
            System.out.printf(Locale.ROOT, "  %-26s %10.1f %14.1f %16.1f %22.1f %10.1f%n", "upload   daemon -> Brain",
                    m[1], m[3], m[5], tunedHashedUp, m[8]);
            System.out.printf(Locale.ROOT, "  ratios WorkTarget / %s: down %.2f up %.2f; / %s: down %.2f up %.2f;"
                    + " / %s + sender hash: down %.2f up %.2f%n", first, m[0] / m[2], m[1] / m[3], second, m[0] / m[4],
                    m[1] / m[5], hashed, m[0] / tunedHashedDown, m[1] / tunedHashedUp);
            System.out.printf(Locale.ROOT, "  ratios WorkTarget / MINA SFTP: down %.2f up %.2f (SFTP: MINA defaults, %s)%n",
                    m[0] / m[7], m[1] / m[8], sftpCipher);
            System.out.printf(Locale.ROOT, "  one SHA-256 pass over the file (this JVM, page cache): %.1f MB/s%n", m[6]);
            System.out.printf(Locale.ROOT, "  (all passes: WorkTarget down %s up %s; %s down %s up %s; %s down %s up %s)%n",
                    fmt(mbs[0]), fmt(mbs[1]), first, fmt(mbs[2]), fmt(mbs[3]), second, fmt(mbs[4]), fmt(mbs[5]));
            System.out.printf(Locale.ROOT, "  (SFTP passes: down %s up %s)%n", fmt(mbs[7]), fmt(mbs[8]));
            System.out.printf(Locale.ROOT, "this JVM peak heap used (MemoryMXBean, sampled every 5 ms, incl. garbage): "
                    + "WorkTarget %d MiB, plain harnesses and SFTP client %d MiB; live after GC (heap pools' collection usage): "
                    + "WorkTarget %d MiB, plain harnesses %d MiB%n", heap.peak(0) >> 20, heap.peak(1) >> 20,
                    heap.live(0) >> 20, heap.live(1) >> 20);
        }

        /**
         * The zstd rows: source text and random bytes, both directions, over a {@link ThrottledLink} of a
         * fixed rate between a server in this JVM and a daemon child: two such pairs, one server leaving
         * {@code transfer.zstd} out of its offer (the uncompressed effective rate) and one offering it,
         * set up once; a warm-up pass, then interleaved passes; medians.
         */
        void runZstdLink(double bytesPerSecond) throws Exception {
            Path files = Files.createDirectories(base.resolve("files"));
            Path text = files.resolve("text.txt");
            Path random = files.resolve("random.bin");
            long corpus = writeSourceText(text, size);
            writeRandom(random, size);
            String[] names = {"text.txt", "random.bin"};
            String[] hashes = {sha256(text), sha256(random)};
            System.out.printf(Locale.ROOT, "zstd on a throttled link: %.0f MB/s each way; files of %d MiB: source text "
                    + "(this repository's .java files, %d KiB, repeated) and random bytes; %d passes; %d CPUs%n",
                    bytesPerSecond / 1e6, size >> 20, corpus >> 10, reps, Runtime.getRuntime().availableProcessors());
            Set<TransferCapability> without = java.util.EnumSet.allOf(TransferCapability.class);
            without.remove(TransferCapability.ZSTD);
            double[][] mbs = new double[8][reps];      // [without, with] x [text down, text up, random down, random up]
            try (DaemonSide off = new DaemonSide("without", without, bytesPerSecond, files, names);
                 DaemonSide on = new DaemonSide("with", java.util.EnumSet.allOf(TransferCapability.class),
                         bytesPerSecond, files, names)) {
                System.out.printf(Locale.ROOT, "negotiated: without zstd %s; with zstd %s%n", off.negotiated(),
                        on.negotiated());
                for (int pass = -1; pass < reps; pass++) {
                    DaemonSide[] sides = {off, on};
                    for (int z = 0; z < 2; z++) {
                        double[] r = new double[4];
                        for (int f = 0; f < 2; f++) {
                            r[2 * f] = timed(size, sides[z].download(names[f], hashes[f]));
                            r[2 * f + 1] = timed(size, sides[z].upload(names[f], hashes[f]));
                        }
                        if (pass >= 0) {
                            for (int i = 0; i < 4; i++) {
                                mbs[z * 4 + i][pass] = r[i];
                            }
                        }
                        System.out.printf(Locale.ROOT, "%-8s %-12s text down %6.1f up %6.1f | random down %6.1f up %6.1f"
                                + " MB/s%n", pass < 0 ? "warm-up" : "pass " + (pass + 1),
                                z == 0 ? "without zstd" : "with zstd", r[0], r[1], r[2], r[3]);
                    }
                }
            }
            double[] m = new double[8];
            for (int i = 0; i < 8; i++) {
                m[i] = median(mbs[i]);
            }
            System.out.printf(Locale.ROOT, "%d MiB over a %.0f MB/s link, median of %d passes (MB/s of file bytes):%n",
                    size >> 20, bytesPerSecond / 1e6, reps);
            System.out.printf(Locale.ROOT, "  %-30s %12s %10s %7s%n", "", "without zstd", "with zstd", "ratio");
            String[] rows = {"source text, download", "source text, upload", "random bytes, download",
                "random bytes, upload"};
            for (int i = 0; i < 4; i++) {
                System.out.printf(Locale.ROOT, "  %-30s %12.1f %10.1f %7.2f%n", rows[i], m[i], m[4 + i], m[4 + i] / m[i]);
            }
            for (int i = 0; i < 8; i++) {
                System.out.printf(Locale.ROOT, "  (%s zstd, %s, passes: %s)%n", i < 4 ? "without" : "with", rows[i % 4],
                        fmt(mbs[i]));
            }
        }

        /**
         * Only WorkTarget: a random file of {@code size} down and up, {@code reps} passes and no warm-up,
         * with the server's capabilities ({@code -Dwirebench.capabilities}, all by default); reports
         * MB/s, this JVM's peak heap (run it with {@code -Xmx64m}) and the daemon child's (GC log).
         */
        void runV2Only() throws Exception {
            Path files = Files.createDirectories(base.resolve("files"));
            writeRandom(files.resolve("source.bin"), size);
            String hash = sha256(files.resolve("source.bin"));
            System.out.printf(Locale.ROOT, "WorkTarget only: %d MiB down and up, %d passes; this JVM heap max %d MiB; "
                    + "daemon -Xmx%s; server offers %s; %d CPUs%n", size >> 20, reps,
                    Runtime.getRuntime().maxMemory() >> 20, childHeap, CAPABILITIES,
                    Runtime.getRuntime().availableProcessors());
            HeapPeak heap = new HeapPeak();
            double[][] mbs = new double[2][reps];
            try (DaemonSide side = new DaemonSide("v2", CAPABILITIES, 0, files, "source.bin")) {
                System.out.printf(Locale.ROOT, "negotiated: %s%n", side.negotiated());
                for (int pass = 0; pass < reps; pass++) {
                    heap.phase(0);
                    mbs[0][pass] = timed(size, side.download("source.bin", hash));
                    heap.phase(1);
                    mbs[1][pass] = timed(size, side.upload("source.bin", hash));
                    heap.phase(-1);
                    System.out.printf(Locale.ROOT, "pass %d   WorkTarget down %6.1f up %6.1f MB/s%n", pass + 1,
                            mbs[0][pass], mbs[1][pass]);
                }
            } catch (Exception | Error e) {
                Path log = base.resolve("daemon-v2.log");
                System.err.println("failed: " + e + "; daemon log:\n" + (Files.exists(log) ? Files.readString(log) : ""));
                throw e;
            } finally {
                heap.close();
            }
            System.out.printf(Locale.ROOT, "%d MiB, median of %d passes: download %.1f MB/s, upload %.1f MB/s%n",
                    size >> 20, reps, median(mbs[0]), median(mbs[1]));
            System.out.printf(Locale.ROOT, "this JVM (Brain) peak heap used (MemoryMXBean, every 5 ms, incl. garbage): "
                    + "download %d MiB, upload %d MiB; live after GC: download %d MiB, upload %d MiB%n",
                    heap.peak(0) >> 20, heap.peak(1) >> 20, heap.live(0) >> 20, heap.live(1) >> 20);
            System.out.printf(Locale.ROOT, "daemon peak heap (GC log: before GC / live after GC): %s%n",
                    gcPeak(base.resolve("daemon-v2.gc.log")));
        }

        /**
         * A server offering some capabilities and a daemon child connected to it, through a throttled
         * link when {@code bytesPerSecond > 0}, directly otherwise; {@code names} from {@code files} are
         * linked into both ends' directories.
         */
        private final class DaemonSide implements AutoCloseable {
            private final WorkspaceBackend work;
            private final ServerTransfers transfers;
            private final WorkTargetServer server;
            private final ThrottledLink link;
            private final Process daemon;
            private final WorkTargetDispatcher dispatcher;
            private final Path footProject;
            private final Path rootDir;
            private final String dirName;

            DaemonSide(String tag, Set<TransferCapability> caps, double bytesPerSecond, Path files, String... names)
                    throws Exception {
                String token = "bench-" + Long.toHexString(new Random().nextLong());
                InMemoryProcessStore processes = new InMemoryProcessStore();
                processes.process(PROCESS).tenant(TENANT).project(PROJECT).session("s-1").user("alice").add();
                long limit = Math.max(size, TransferSettings.defaults().maxUploadSize());
                TransferSettings settings = TransferSettings.defaults().toBuilder().maxUploadSize(limit)
                        .maxDownloadSize(limit).syncBeforeCommit(SYNC).capabilities(caps).build();
                footProject = Files.createDirectories(base.resolve("daemon-" + tag));
                work = WorkspaceBackend.builder().workspaceRoot(Files.createDirectories(base.resolve("workspace-" + tag)))
                        .build();
                transfers = ServerTransfers.create(
                        new RootDirTargetResolver((s, dir) -> work.findRoot(s.tenant(), s.project(), dir)),
                        settings, TransferListener.NONE);
                server = WorkTargetServer.builder().host("127.0.0.1").port(0)
                        .authenticator(TokenAuthenticator.builder()
                                .token(token, new AuthPrincipal("bench-daemon", TENANT, Set.of(PROJECT), null)).build())
                        .transfers(transfers).build().start();
                link = bytesPerSecond > 0 ? ThrottledLink.start(server.port(), bytesPerSecond) : null;
                WorkTargetDispatcher.Builder b = WorkTargetDispatcher.builder().processStore(processes).backend(work)
                        .peers(server.peers());
                transfers.tools(work.ephemeralDirs()).forEach(b::hostTool);
                dispatcher = b.build();
                List<String> daemonArgs = new ArrayList<>(List.of("org.vancetope.worktarget.backend.daemon.cli.Main",
                        "daemon", "--connect", "ws://127.0.0.1:" + (link != null ? link.port() : server.port())
                                + "/worktarget/v1", "--token", token,
                        "--tenant", TENANT, "--project", PROJECT, "--name", DAEMON,
                        "--workdir", footProject.toString(), "--max-transfer-mib", Long.toString(limit >> 20)));
                if (!SYNC) {
                    daemonArgs.add("--no-sync");
                }
                daemon = startChild("daemon-" + tag, daemonArgs);
                awaitDaemon(server, daemon, "daemon-" + tag);
                dirName = (String) dispatcher.invoke(PROCESS, "workspace_create_ephemeral_dir", Map.of()).get("dirName");
                rootDir = work.findRoot(TENANT, PROJECT, dirName).orElseThrow();
                for (Path dir : List.of(rootDir, footProject)) {
                    for (String name : names) {
                        link(dir.resolve(name), files.resolve(name));
                    }
                }
                dispatcher.invoke(PROCESS, "work_target_set", Map.of("kind", "DAEMON", "targetName", DAEMON));
            }

            Set<TransferCapability> negotiated() {
                var channel = server.peers().find(new DaemonKey(TENANT, PROJECT, DAEMON))
                        .flatMap(org.vancetope.worktarget.spi.Endpoint::transferChannel).orElseThrow();
                return ((org.vancetope.worktarget.backend.daemon.TransferBridge) transfers.extension()).connection(channel)
                        .orElseThrow().capabilities();
            }

            Work download(String name, String hash) {
                return () -> {
                    checkWt(dispatcher.invoke(PROCESS, "client_file_download", Map.of("dirName", dirName,
                            "remotePath", name, "localPath", "down-" + name)), hash);
                    Files.delete(footProject.resolve("down-" + name));
                };
            }

            Work upload(String name, String hash) {
                return () -> {
                    checkWt(dispatcher.invoke(PROCESS, "client_file_upload", Map.of("localPath", name,
                            "dirName", dirName, "remotePath", "up-" + name)), hash);
                    Files.delete(rootDir.resolve("up-" + name));
                };
            }

            @Override
            public void close() throws IOException {
                daemon.destroy();
                try {
                    if (!daemon.waitFor(10, TimeUnit.SECONDS)) {
                        daemon.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    daemon.destroyForcibly();
                    Thread.currentThread().interrupt();
                }
                if (link != null) {
                    link.close();
                }
                server.close();
                transfers.close();
                work.close();
            }
        }

        /** The extra flags of {@code -Dwirebench.childJvmArgs} for the child {@code name}. */
        private List<String> childJvmArgs(String name) {
            String extra = System.getProperty("wirebench.childJvmArgs", "").replace("{name}", name);
            return extra.isBlank() ? List.of() : List.of(extra.trim().split("\\s+"));
        }

        private Process startChild(String name, List<String> mainAndArgs) throws IOException {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> cmd = new ArrayList<>(List.of(java, "-Xms" + childHeap, "-Xmx" + childHeap,
                    "-XX:+AlwaysPreTouch", "-Xlog:gc:file=" + base.resolve(name + ".gc.log"),
                    "-cp", System.getProperty("java.class.path")));
            cmd.addAll(1, childJvmArgs(name));
            cmd.addAll(mainAndArgs);
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(base.resolve(name + ".log").toFile())).start();
            children.add(p);
            return p;
        }

        private void awaitDaemon(WorkTargetServer server, Process daemon) throws Exception {
            awaitDaemon(server, daemon, "daemon");
        }

        private void awaitDaemon(WorkTargetServer server, Process daemon, String name) throws Exception {
            DaemonKey key = new DaemonKey(TENANT, PROJECT, DAEMON);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (server.peers().find(key).map(e -> e.isStale()).orElse(true)) {
                if (!daemon.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("The daemon did not connect; its log:\n"
                            + Files.readString(base.resolve(name + ".log")));
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

    /**
     * Fills a file with source text: this repository's {@code .java} files (run from its root), read in
     * a fixed order and repeated up to {@code size} bytes.
     *
     * @return the size of the corpus that is repeated
     */
    static long writeSourceText(Path file, long size) throws IOException {
        java.io.ByteArrayOutputStream corpus = new java.io.ByteArrayOutputStream();
        try (Stream<Path> walk = Files.walk(Path.of(""))) {
            for (Path p : walk.filter(p -> p.toString().endsWith(".java") && java.util.stream.StreamSupport
                    .stream(p.spliterator(), false).noneMatch(e -> e.toString().equals("target")
                            || e.toString().equals("node_modules"))).sorted().toList()) {
                corpus.write(Files.readAllBytes(p));
            }
        }
        if (corpus.size() < 1024 * 1024) {
            throw new IllegalStateException("found only " + corpus.size() + " bytes of .java files under "
                    + Path.of("").toAbsolutePath() + "; run the benchmark from the repository's root");
        }
        byte[] text = corpus.toByteArray();
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long written = 0; written < size; written += text.length) {
                out.write(text, 0, (int) Math.min(text.length, size - written));
            }
        }
        return text.length;
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
        ByteBuffer buf = ByteBuffer.allocateDirect(256 * 1024);     // as the library's sender: no extra copy
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            while (in.read(buf) >= 0) {
                buf.flip();
                d.update(buf);
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
}
