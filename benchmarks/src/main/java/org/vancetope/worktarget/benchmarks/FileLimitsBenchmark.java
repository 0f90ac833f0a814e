package org.vancetope.worktarget.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Measures what one file-tool call can cost the rest of the system: the cost of one {@code file_read}
 * page of a big file, how long a catastrophically backtracking {@code file_grep} runs, how long another
 * caller's small {@code file_grep} takes while two such greps run, and the JSON size of a
 * {@code file_grep} result with the most context.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -Xms1g -Xmx1g -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *      org.vancetope.worktarget.benchmarks.FileLimitsBenchmark [bigFileMiB] [evilLineChars] [evilLines]
 * </pre>
 *
 * <p>Defaults: a 2,048 MiB text file (a 1 MiB block of numbered lines written over and over), lines of
 * 32,000 {@code 'a'} followed by {@code '!'} searched with {@code (a+)+$}, 4 such lines per evil file.
 * {@code -Dlimits.searchTimeoutMs=N} sets the search deadline ({@code FileToolSettings.searchTimeout}) to
 * N milliseconds. The
 * files live in a fresh directory under {@code java.io.tmpdir} and are deleted afterwards.
 */
public final class FileLimitsBenchmark {
    private static final PrintStream OUT = System.out;
    private static final ToolContext CTX = new ToolContext("bench", null, "bench", "bench", null);
    private static final String EVIL = "(a+)+$";

    private FileLimitsBenchmark() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args {@code [bigFileMiB] [evilLineChars] [evilLines]}
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        int bigMiB = args.length > 0 ? Integer.parseInt(args[0]) : 2048;
        int evilChars = args.length > 1 ? Integer.parseInt(args[1]) : 32_000;
        int evilLines = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        Path dir = Files.createTempDirectory("wt-limits-");
        try {
            FileToolSettings.Builder b = FileToolSettings.builder();
            String timeout = System.getProperty("limits.searchTimeoutMs");
            if (timeout != null) {
                b.searchTimeout(Duration.ofMillis(Long.parseLong(timeout)));
            }
            FileToolSettings settings = b.build();
            LocalBackend local = LocalBackend.builder().workDirectory(dir).fileSettings(settings).build();
            OUT.printf(Locale.ROOT, "cores=%d java=%s maxHeap=%d MiB settings=%s%n",
                    Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"),
                    Runtime.getRuntime().maxMemory() >> 20, settings);
            readPages(local, dir, bigMiB);
            grepResultSize(local, dir);
            evilGreps(local, dir, evilChars, evilLines);
        } finally {
            deleteTree(dir);
        }
    }

    // ------------------------------------------------------------------ file_read of a big file

    private static void readPages(LocalBackend local, Path dir, int mib) throws Exception {
        Path big = dir.resolve("big.txt");
        long t0 = System.nanoTime();
        long lines = generateBig(big, mib);
        OUT.printf(Locale.ROOT, "generated big.txt: %,d MiB, %,d lines in %.1f s%n", mib, lines,
                (System.nanoTime() - t0) / 1e9);
        BackendTool read = tool(local, "client_file_read");
        Map<String, Object> first = read.invoke(Map.of("path", "big.txt"), CTX);
        OUT.printf(Locale.ROOT, "first page: %d chars, totalLines=%s totalChars=%s totalsKnown=%s nextStartLine=%s%n",
                ((String) first.get("content")).length(), first.get("totalLines"), first.get("totalChars"),
                first.get("totalsKnown"), first.get("nextStartLine"));
        double firstMs = median(5, () -> read.invoke(Map.of("path", "big.txt"), CTX));
        double secondMs = median(5, () -> read.invoke(Map.of("path", "big.txt", "startLine", 200), CTX));
        long middle = lines / 2;
        double middleFirst = time(() -> read.invoke(Map.of("path", "big.txt", "startLine", middle), CTX));
        double middleAgain = median(5, () -> read.invoke(Map.of("path", "big.txt", "startLine", middle + 150), CTX));
        OUT.printf(Locale.ROOT, "file_read page of a %,d MiB file: page 1 %.1f ms, startLine=200 %.1f ms, "
                + "startLine=%,d first %.1f ms, next page there %.1f ms%n", mib, firstMs, secondMs, middle, middleFirst,
                middleAgain);
        Files.delete(big);
    }

    /** Writes a 1 MiB block of numbered lines over and over; returns the number of lines. */
    private static long generateBig(Path file, int mib) throws IOException {
        StringBuilder sb = new StringBuilder(1 << 20);
        int n = 0;
        while (sb.length() < (1 << 20) - 100) {
            sb.append("line ").append(n++).append(" the quick brown fox jumps over the lazy dog\n");
        }
        byte[] block = sb.toString().getBytes(StandardCharsets.US_ASCII);
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int i = 0; i < mib; i++) {
                out.write(block);
            }
        }
        return (long) n * mib;
    }

    // ------------------------------------------------------------------ the size of a grep result

    private static void grepResultSize(LocalBackend local, Path dir) throws Exception {
        StringBuilder sb = new StringBuilder();
        String line = "match " + "x".repeat(600) + "\n";
        while (sb.length() < 1_900_000) {
            sb.append(line);
        }
        Files.createDirectories(dir.resolve("ctx"));
        Files.writeString(dir.resolve("ctx/wide.txt"), sb.toString());
        BackendTool grep = tool(local, "client_file_grep");
        Map<String, Object> r = grep.invoke(Map.of("pattern", "match", "path", "ctx", "contextBefore", 20,
                "contextAfter", 20, "limit", 1000), CTX);
        int bytes = new ObjectMapper().writeValueAsBytes(r).length;
        OUT.printf(Locale.ROOT, "file_grep with 20+20 lines of context, limit 1000: %,d matches, %,d bytes of JSON, "
                + "truncated=%s%n", ((List<?>) r.get("matches")).size(), bytes, r.get("truncated"));
    }

    // ------------------------------------------------------------------ catastrophic greps

    private static void evilGreps(LocalBackend local, Path dir, int chars, int lines) throws Exception {
        String evil = ("a".repeat(chars) + "!\n").repeat(lines);
        for (int i = 0; i < 2; i++) {
            Files.createDirectories(dir.resolve("evil" + i));
            Files.writeString(dir.resolve("evil" + i + "/e.txt"), evil);
        }
        Files.createDirectories(dir.resolve("small"));
        for (int i = 0; i < 200; i++) {
            Files.writeString(dir.resolve("small/f" + i + ".txt"), "alpha\nbeta needle " + i + "\ngamma\n");
        }
        BackendTool grep = tool(local, "client_file_grep");
        Map<String, Object> small = Map.of("pattern", "needle \\d+", "path", "small");
        double idle = median(7, () -> grep.invoke(small, CTX));
        OUT.printf(Locale.ROOT, "another caller's file_grep (200 files), idle: %.1f ms%n", idle);

        ExecutorService threads = Executors.newFixedThreadPool(2);
        List<Future<String>> evils = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < 2; i++) {
            Map<String, Object> p = Map.of("pattern", EVIL, "path", "evil" + i);
            evils.add(threads.submit(() -> {
                long s = System.nanoTime();
                String outcome;
                try {
                    outcome = "result with " + ((List<?>) grep.invoke(p, CTX).get("matches")).size() + " matches";
                } catch (ToolException e) {
                    outcome = e.code().wire() + ": " + e.getMessage();
                }
                return String.format(Locale.ROOT, "%.1f s, %s", (System.nanoTime() - s) / 1e9, outcome);
            }));
        }
        Thread.sleep(1000);
        double[] loaded = new double[5];
        for (int i = 0; i < loaded.length; i++) {
            loaded[i] = time(() -> grep.invoke(small, CTX));
        }
        OUT.printf(Locale.ROOT, "another caller's file_grep while two (a+)+$ greps run: %s ms (started %.1f s after "
                + "them)%n", Arrays.toString(Arrays.stream(loaded).map(v -> Math.round(v * 10) / 10.0).toArray()), 1.0);
        for (int i = 0; i < evils.size(); i++) {
            String o = evils.get(i).get();
            OUT.printf(Locale.ROOT, "evil grep %d (%d lines of %,d chars): %s%n", i, lines, chars,
                    o.length() > 300 ? o.substring(0, 300) + "…" : o);
        }
        OUT.printf(Locale.ROOT, "both evil greps done after %.1f s%n", (System.nanoTime() - start) / 1e9);
        threads.shutdown();
    }

    // ------------------------------------------------------------------ helpers

    @FunctionalInterface
    private interface Task {
        void run() throws Exception;
    }

    private static double time(Task t) {
        long s = System.nanoTime();
        try {
            t.run();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return (System.nanoTime() - s) / 1e6;
    }

    private static double median(int reps, Task t) {
        double[] v = new double[reps];
        for (int i = 0; i < reps; i++) {
            v[i] = time(t);
        }
        Arrays.sort(v);
        return v[reps / 2];
    }

    private static BackendTool tool(LocalBackend b, String name) {
        return b.tools().stream().filter(t -> t.spec().name().equals(name)).findFirst().orElseThrow();
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var s = Files.walk(dir)) {
            for (Path p : s.sorted((x, y) -> y.getNameCount() - x.getNameCount()).toList()) {
                Files.delete(p);
            }
        }
    }
}
