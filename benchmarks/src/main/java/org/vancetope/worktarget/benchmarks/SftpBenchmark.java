package org.vancetope.worktarget.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Measures MINA SSHD SFTP (the reference transfers must never fall below) moving a file
 * (default 1 GiB) both ways over loopback between this JVM (the SFTP client) and a child JVM (the SFTP
 * server), with MINA's default settings, and prints MB/s per pass and the medians.
 *
 * <pre>{@code
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -Xms1g -Xmx1g -XX:+AlwaysPreTouch -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *      org.vancetope.worktarget.benchmarks.SftpBenchmark [sizeMiB=1024] [reps=3] [childHeap=1g]
 * }</pre>
 *
 * <p>The harness is {@link SftpHarness}; its Javadoc says what exactly an upload and a download do, so
 * what is timed here: an upload is the SFTP write of the file plus the server's SHA-256 of what it
 * stored (SFTP {@code check-file-name}); a download is the SFTP read plus writing the file and hashing
 * it in this JVM. Both hashes are compared with the source's, which is computed before timing. SFTP's
 * upload (this JVM → child) is the direction of WorkTarget's {@code client_file_download} in
 * {@link WireTransferBenchmark}.
 *
 * <p>Files live in a fresh temp directory (page cache warm: the source was just written and hashed)
 * that is deleted at the end; the server directory holds a hard link to the source. One warm-up pass
 * on a 128 MiB file (or the whole file if smaller), then {@code reps} passes of upload + download; the
 * received files are deleted after each pass. It measures nothing but SFTP (no WorkTarget figures).
 */
public final class SftpBenchmark {
    private SftpBenchmark() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args optional size in MiB (1024), repetitions (3) and heap of the child JVM (1g)
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        long size = (args.length > 0 ? Long.parseLong(args[0]) : 1024) << 20;
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        String childHeap = args.length > 2 ? args[2] : "1g";
        Path base = Files.createTempDirectory("wt-sftpbench");
        try {
            run(base, size, reps, childHeap);
        } finally {
            WireTransferBenchmark.deleteTree(base);
        }
    }

    private static void run(Path base, long size, int reps, String childHeap) throws Exception {
        Path files = Files.createDirectories(base.resolve("files"));
        Path serverDir = Files.createDirectories(base.resolve("sftp-server"));
        Path source = files.resolve("source.bin");
        Path warm = files.resolve("warm.bin");
        WireTransferBenchmark.writeRandom(source, size);
        WireTransferBenchmark.writeRandom(warm, Math.min(size, 128L << 20));
        String sourceHash = WireTransferBenchmark.sha256(source);
        String warmHash = WireTransferBenchmark.sha256(warm);
        WireTransferBenchmark.link(serverDir.resolve("source.bin"), source);
        WireTransferBenchmark.link(serverDir.resolve("warm.bin"), warm);
        System.out.printf(Locale.ROOT, "file: %d MiB in %s; this JVM heap max %d MiB; child JVM -Xmx%s; %d CPUs%n",
                size >> 20, base, Runtime.getRuntime().maxMemory() >> 20, childHeap,
                Runtime.getRuntime().availableProcessors());
        double[] up = new double[reps];
        double[] down = new double[reps];
        try (SftpHarness sftp = SftpHarness.start(base, serverDir, childHeap, List.of())) {
            System.out.println("MINA SSHD SFTP, default settings: " + sftp.negotiated());
            for (int pass = -1; pass < reps; pass++) {
                boolean warmUp = pass < 0;
                String name = warmUp ? "warm.bin" : "source.bin";
                Path local = warmUp ? warm : source;
                String hash = warmUp ? warmHash : sourceHash;
                long bytes = Files.size(local);
                Path received = files.resolve("down.bin");
                long t0 = System.nanoTime();
                check(sftp.upload(local, "up.bin"), hash);
                long t1 = System.nanoTime();
                check(sftp.download(name, received), hash);
                long t2 = System.nanoTime();
                double u = bytes / 1e6 / ((t1 - t0) / 1e9);
                double d = bytes / 1e6 / ((t2 - t1) / 1e9);
                for (Path p : List.of(serverDir.resolve("up.bin"), received)) {
                    if (Files.size(p) != bytes) {
                        throw new IllegalStateException(p + " has the wrong size");
                    }
                    Files.delete(p);
                }
                System.out.printf(Locale.ROOT, "%-8s SFTP upload (this JVM -> child) %7.1f MB/s | download (child -> this JVM) %7.1f MB/s%n",
                        warmUp ? "warm-up" : "pass " + (pass + 1), u, d);
                if (!warmUp) {
                    up[pass] = u;
                    down[pass] = d;
                }
            }
            long t0 = System.nanoTime();
            check(sftp.remoteSha256("source.bin"), sourceHash);
            System.out.printf(Locale.ROOT, "(of an upload: the server's check-file SHA-256 pass alone runs at %.1f MB/s)%n",
                    size / 1e6 / ((System.nanoTime() - t0) / 1e9));
        }
        System.out.printf(Locale.ROOT, "%d MiB over loopback SFTP, two processes, median of %d passes: "
                + "upload %.1f MB/s (%s), download %.1f MB/s (%s)%n", size >> 20, reps,
                WireTransferBenchmark.median(up), WireTransferBenchmark.fmt(up),
                WireTransferBenchmark.median(down), WireTransferBenchmark.fmt(down));
        System.out.println("child peak heap (GC log: before GC / live after GC): "
                + WireTransferBenchmark.gcPeak(base.resolve("sftp-server.gc.log")));
    }

    private static void check(String got, String expected) {
        if (!expected.equals(got)) {
            throw new IllegalStateException("hash mismatch: " + got + " != " + expected);
        }
    }
}
