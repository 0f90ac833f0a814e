package org.vancetope.worktarget.benchmarks;

import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * What a whole-file operation costs the heap: {@code file_edit} of a big text file and
 * {@code file_write} of big content, each with the peak heap use during the call (the sum of the heap
 * pools' peaks, reset just before it), or the error it ends with.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -Xmx256m -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *      org.vancetope.worktarget.benchmarks.WholeFileBenchmark 600 0      # file_edit of 600 MB
 * java -Xmx1g -cp … org.vancetope.worktarget.benchmarks.WholeFileBenchmark 0 100   # file_write of 100 MB
 * </pre>
 *
 * <p>Arguments: {@code [editMiB] [writeMiB]} (0 skips one). The files live in a fresh directory under
 * {@code java.io.tmpdir} and are deleted afterwards.
 */
public final class WholeFileBenchmark {
    private static final PrintStream OUT = System.out;
    private static final ToolContext CTX = new ToolContext("bench", null, "bench", "bench", null);

    private WholeFileBenchmark() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args {@code [editMiB] [writeMiB]}
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        int editMiB = args.length > 0 ? Integer.parseInt(args[0]) : 600;
        int writeMiB = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        Path dir = Files.createTempDirectory("wt-whole-");
        try {
            LocalBackend local = LocalBackend.builder().workDirectory(dir).build();
            OUT.printf(Locale.ROOT, "maxHeap=%d MiB java=%s%n", Runtime.getRuntime().maxMemory() >> 20,
                    System.getProperty("java.version"));
            if (editMiB > 0) {
                byte[] block = "0123456789abcdefghijklmnopqrstuvwxyz the quick brown fox\n".repeat(18_000)
                        .getBytes(StandardCharsets.US_ASCII);
                long target = (long) editMiB << 20;
                try (OutputStream out = Files.newOutputStream(dir.resolve("big.txt"))) {
                    out.write("needle\n".getBytes(StandardCharsets.US_ASCII));
                    for (long n = 0; n < target; n += block.length) {
                        out.write(block);
                    }
                }
                call(tool(local, "client_file_edit"), Map.of("path", "big.txt", "oldText", "needle", "newText", "pin"),
                        "file_edit of a " + editMiB + " MiB file");
                Files.delete(dir.resolve("big.txt"));
            }
            if (writeMiB > 0) {
                String content = "0123456789abcdefghijklmnopqrstuvwxyz the quick brown fox\n"
                        .repeat((int) (((long) writeMiB << 20) / 58));
                call(tool(local, "client_file_write"), Map.of("path", "w.txt", "content", content),
                        "file_write of " + writeMiB + " MiB of content");
            }
        } finally {
            try (var s = Files.walk(dir)) {
                for (Path p : s.sorted((x, y) -> y.getNameCount() - x.getNameCount()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    private static void call(BackendTool tool, Map<String, Object> params, String label) {
        System.gc();
        long base = heapUsed();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                p.resetPeakUsage();
            }
        }
        long t0 = System.nanoTime();
        String outcome;
        try {
            Map<String, Object> r = tool.invoke(params, CTX);
            outcome = "ok " + r.keySet();
        } catch (ToolException e) {
            outcome = e.code().wire() + ": " + e.getMessage();
        } catch (OutOfMemoryError e) {
            outcome = "OutOfMemoryError: " + e.getMessage();
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        long peak = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                peak += p.getPeakUsage().getUsed();
            }
        }
        OUT.printf(Locale.ROOT, "%s: %.0f ms, heap before %d MiB, peak during the call %d MiB; %s%n", label, ms,
                base >> 20, peak >> 20, outcome.length() > 260 ? outcome.substring(0, 260) + "…" : outcome);
    }

    private static long heapUsed() {
        long used = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                used += p.getUsage().getUsed();
            }
        }
        return used;
    }

    private static BackendTool tool(LocalBackend b, String name) {
        return b.tools().stream().filter(t -> t.spec().name().equals(name)).findFirst().orElseThrow();
    }
}
