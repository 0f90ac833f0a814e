package org.vancetope.worktarget.benchmarks;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Comparator;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferConnection;
import org.vancetope.worktarget.core.transfer.TransferEndpoint;
import org.vancetope.worktarget.core.transfer.TransferFrame;
import org.vancetope.worktarget.core.transfer.TransferResult;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.core.transfer.TransferSide;
import org.vancetope.worktarget.testkit.InMemoryFramePair;
import org.vancetope.worktarget.transfer.FrameDecodeException;
import org.vancetope.worktarget.transfer.TransferCodec;

/**
 * Moves a file (default 1 GiB) Brain → Foot (download) and Foot → Brain (upload) through the
 * threaded in-memory channel pair with the JSON codec in the loop (encode on the sender's thread,
 * decode on the delivery thread), and prints MB/s beside the ceiling measured in the same run: one
 * pass of SHA-256 plus base64 encoding over the same bytes in 64 KiB chunks. Also prints the peak
 * heap during the transfers.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -Xms1g -Xmx1g -XX:+AlwaysPreTouch -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *      org.vancetope.worktarget.benchmarks.TransferBenchmark [sizeMiB=1024] [dir=/dev/shm]
 * </pre>
 *
 * <p>The transfer figure includes the sender's SHA-256 pass before {@code transfer_init}, the receiver's
 * incremental SHA-256, base64 both ways, JSON and the file writes; "stream"
 * excludes the sender's pre-hash.
 */
public final class TransferBenchmark {
    private static final int CHUNK = 64 * 1024;
    private static final TransferScope SCOPE = new TransferScope("bench", "proj");

    private TransferBenchmark() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args optional size in MiB and working directory
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        long sizeMiB = args.length > 0 ? Long.parseLong(args[0]) : 1024;
        Path base = Paths.get(args.length > 1 ? args[1] : "/dev/shm");
        Path work = Files.createTempDirectory(base, "wt-transfer-bench");
        try {
            run(work, sizeMiB * 1024 * 1024);
        } finally {
            try (Stream<Path> s = Files.walk(work)) {
                s.sorted(Comparator.reverseOrder()).forEach(TransferBenchmark::deleteQuietly);
            }
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            System.err.println("cannot delete " + p + ": " + e);
        }
    }

    private static void run(Path work, long size) throws Exception {
        Path brainDir = Files.createDirectories(work.resolve("brain/files"));
        Path footRoot = work.resolve("foot");
        Path footProject = Files.createDirectories(footRoot.resolve("bench/proj"));
        Path source = brainDir.resolve("source.bin");
        writeSource(source, size);
        Files.copy(source, footProject.resolve("upload.bin"));
        System.out.printf("file: %d MiB in %s, heap max %d MiB, %d cores%n", size >> 20, work,
                Runtime.getRuntime().maxMemory() >> 20, Runtime.getRuntime().availableProcessors());

        TransferSettings settings = TransferSettings.builder().maxDownloadSize(size).maxUploadSize(size).build();
        TransferCodec codec = TransferCodec.create();
        ExecutorService brainIo = Executors.newSingleThreadExecutor(r -> daemon(r, "brain-sender"));
        ExecutorService footIo = Executors.newSingleThreadExecutor(r -> daemon(r, "foot-sender"));
        try (TransferEndpoint brain = TransferEndpoint.builder(TransferSide.BRAIN).settings(settings)
                .resolver(new RootDirTargetResolver((scope, dir) -> Optional.of(brainDir))).executor(brainIo).build();
             TransferEndpoint foot = TransferEndpoint.builder(TransferSide.FOOT).settings(settings)
                     .resolver(FootTargetResolver.at(footRoot)).executor(footIo).build();
             InMemoryFramePair<TransferFrame> pair = InMemoryFramePair.<TransferFrame>builder().threaded()
                     .wire(codec::encode, json -> decode(codec, json)).build()) {
            TransferConnection brainConn = brain.attach(pair.left(), SCOPE);
            TransferConnection footConn = foot.attach(pair.right(), SCOPE);
            pair.left().onReceive(brainConn::onFrame);
            pair.right().onReceive(footConn::onFrame);

            // Warm-up on a slice of the file, then the measured runs.
            Path warm = brainDir.resolve("warm.bin");
            writeSource(warm, Math.min(size, 128L * 1024 * 1024));
            check(brainConn.send(brainDir, "warm.bin", "warm.bin", null, null).join());
            ceiling(warm);

            double ceiling = ceiling(source);
            double sha = shaOnly(source);
            HeapWatch heap = HeapWatch.start();
            long t0 = System.nanoTime();
            TransferResult down = brainConn.send(brainDir, brainDir.relativize(source).toString(), "download.bin", null, null).join();
            long t1 = System.nanoTime();
            check(down);
            long peakDown = heap.stop();
            double downMbs = mbs(size, t1 - t0);
            double downStream = mbs(size, (t1 - t0) - secondsToNanos(size / sha / 1e6));

            heap = HeapWatch.start();
            t0 = System.nanoTime();
            TransferResult up = brainConn.requestUpload(SCOPE, "upload.bin", "files", "uploaded.bin", null).join();
            t1 = System.nanoTime();
            check(up);
            long peakUp = heap.stop();
            double upMbs = mbs(size, t1 - t0);

            System.out.printf("ceiling  SHA-256 + base64 (64 KiB chunks, from file): %8.1f MB/s%n", ceiling);
            System.out.printf("         SHA-256 alone (from file):                   %8.1f MB/s%n", sha);
            System.out.printf("download Brain->Foot, incl. sender pre-hash:          %8.1f MB/s  (%.2f x ceiling)%n",
                    downMbs, downMbs / ceiling);
            System.out.printf("         stream only (minus one SHA-256 pass):        %8.1f MB/s  (%.2f x ceiling)%n",
                    downStream, downStream / ceiling);
            System.out.printf("upload   Foot->Brain on request, incl. pre-hash:      %8.1f MB/s  (%.2f x ceiling)%n",
                    upMbs, upMbs / ceiling);
            System.out.printf("peak live heap (after GC, sampled every 2 ms): download %d MiB, upload %d MiB%n",
                    peakDown >> 20, peakUp >> 20);
        } finally {
            brainIo.shutdownNow();
            footIo.shutdownNow();
        }
    }

    private static long secondsToNanos(double s) {
        return (long) (s * 1e9);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private static TransferFrame decode(TransferCodec codec, byte[] json) {
        try {
            return codec.decode(json);
        } catch (FrameDecodeException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void check(TransferResult r) {
        if (!r.ok()) {
            throw new IllegalStateException("transfer failed: " + r.error());
        }
    }

    private static double mbs(long bytes, long nanos) {
        return bytes / 1e6 / (nanos / 1e9);
    }

    private static void writeSource(Path file, long size) throws IOException {
        byte[] block = new byte[1024 * 1024];
        Random random = new Random(42);
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long written = 0; written < size; written += block.length) {
                random.nextBytes(block);
                out.write(block, 0, (int) Math.min(block.length, size - written));
            }
        }
    }

    /** One pass of SHA-256 plus base64 encoding over the file in 64 KiB chunks. */
    private static double ceiling(Path file) throws Exception {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        Base64.Encoder enc = Base64.getEncoder();
        ByteBuffer buf = ByteBuffer.allocate(CHUNK);
        byte[] out = new byte[(CHUNK + 2) / 3 * 4];
        long sink = 0;
        long t0 = System.nanoTime();
        long size = 0;
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            while (in.read(buf) > 0 || buf.position() > 0) {
                buf.flip();
                int n = buf.remaining();
                d.update(buf.array(), 0, n);
                byte[] chunk = n == CHUNK ? buf.array() : java.util.Arrays.copyOf(buf.array(), n);
                sink += enc.encode(chunk, out);
                size += n;
                buf.clear();
            }
        }
        d.digest();
        long t1 = System.nanoTime();
        if (sink < 0) {
            throw new IllegalStateException();
        }
        return mbs(size, t1 - t0);
    }

    private static double shaOnly(Path file) throws Exception {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        ByteBuffer buf = ByteBuffer.allocate(256 * 1024);
        long t0 = System.nanoTime();
        long size = 0;
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                d.update(buf.array(), 0, n);
                size += n;
                buf.clear();
            }
        }
        d.digest();
        return mbs(size, System.nanoTime() - t0);
    }

    /** Samples used heap and reads the pools' peaks. */
    private static final class HeapWatch {
        private final AtomicLong max = new AtomicLong();
        private final AtomicLong live = new AtomicLong();
        private volatile boolean running = true;
        private final Thread thread;

        private HeapWatch() {
            System.gc();
            for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
                if (p.getType() == MemoryType.HEAP) {
                    p.resetPeakUsage();
                }
            }
            thread = new Thread(() -> {
                Runtime rt = Runtime.getRuntime();
                while (running) {
                    max.accumulateAndGet(rt.totalMemory() - rt.freeMemory(), Math::max);
                    long afterGc = 0;
                    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
                        if (p.getType() == MemoryType.HEAP && p.getCollectionUsage() != null) {
                            afterGc += p.getCollectionUsage().getUsed();
                        }
                    }
                    live.accumulateAndGet(afterGc, Math::max);
                    try {
                        Thread.sleep(2);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "heap-watch");
            thread.setDaemon(true);
            thread.start();
        }

        static HeapWatch start() {
            return new HeapWatch();
        }

        long stop() throws InterruptedException {
            running = false;
            thread.join();
            long pools = 0;
            for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
                if (p.getType() == MemoryType.HEAP) {
                    pools += p.getPeakUsage().getUsed();
                }
            }
            System.out.printf("  heap: used incl. garbage max %d MiB (pool peaks %d MiB), live after GC max %d MiB%n",
                    max.get() >> 20, pools >> 20, live.get() >> 20);
            return live.get();
        }
    }
}
