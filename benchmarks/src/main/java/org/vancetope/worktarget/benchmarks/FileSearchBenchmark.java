package org.vancetope.worktarget.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Times {@code work_file_grep} and {@code work_file_find} (the WORK backend, through the tools as an
 * agent calls them: parameter guard, confinement gate, file engine) against ripgrep ({@code rg}), GNU
 * {@code grep -rn} and GNU {@code find} over the same trees in the same run, with {@code .gitignore}
 * handling on and off, and prints each median beside its references and the ratios.
 *
 * <pre>
 * mvn -B -o -pl benchmarks -am package -DskipTests
 * java -Xms1g -Xmx1g -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *      org.vancetope.worktarget.benchmarks.FileSearchBenchmark [trees] [reps] [files] [avgBytes] [srcZip]
 * </pre>
 *
 * <p>{@code trees}: {@code synthetic}, {@code jdk} or {@code both} (default). The synthetic tree
 * ({@code files} files, default 12,000, of about {@code avgBytes} bytes, default 12,000) is
 * generated with a top-level {@code .gitignore} ({@code node_modules/}, {@code target/}, {@code *.log}),
 * a nested one ({@code generated/}), directories of those names, and a few binary files. The real tree
 * is the JDK's {@code lib/src.zip} ({@code srcZip}, default the first readable one under
 * {@code /usr/lib/jvm}) unzipped. Both live in a temporary WORK RootDir that is deleted afterwards.
 * {@code reps} (default 9) timed runs follow 3 warm-up runs; each run times every side once, in turn.
 * Before those, WorkTarget's call alone runs until the JIT has settled on it: until the JVM's total
 * compilation time did not grow over {@value #JIT_QUIET_CALLS} calls in a row (at least
 * {@value #JIT_MIN_CALLS}, at most {@value #JIT_MAX_CALLS} calls; {@code -Dsearchbench.jit=off} skips this).
 * The figures are then those of a long-running server; with the JIT still compiling, a case's first
 * calls also pay for the compiler threads, which on 2 cores compete with the search's own two threads.
 *
 * <p>How both sides do the same work:
 * <ul>
 *   <li>gitignore on: {@code file_grep}/{@code file_find} with their defaults (the {@code .gitignore}
 *       files honoured, generated directories pruned; the trees have generated directories only where a
 *       {@code .gitignore} ignores them); {@code rg --no-require-git --hidden} (ignore files outside a git
 *       repository; hidden files searched, as {@code file_grep} does); GNU grep and find with the
 *       ignored names excluded ({@code --exclude-dir}, {@code --exclude}, {@code -prune}).</li>
 *   <li>gitignore off: {@code includeIgnored} and {@code includeGenerated} true; {@code rg --no-ignore
 *       --hidden}; GNU grep and find over everything.</li>
 *   <li>Binary files are skipped by all ({@code grep -I}); GNU tools run with {@code LC_ALL=C}
 *       (their fastest mode). {@code file_grep}'s literal search uses {@code literal: true}
 *       ({@code rg -F}, {@code grep -F}).</li>
 * </ul>
 * Match counts of every side are printed and must agree; a mismatch is reported. Besides the wall-time
 * medians (the figures the goals are about) it prints the mean CPU time per call of each side (user +
 * system of all threads, from {@code /proc/self/stat}, in 10 ms ticks summed over the runs), which
 * depends less on what else runs on a shared machine.
 */
public final class FileSearchBenchmark {
    private static final PrintStream OUT = System.out;
    private static final ToolContext CTX = new ToolContext("bench", null, "bench", "bench", null);
    private static final String NEEDLE = "needle_in_the_haystack";
    private static final String SYNTH_REGEX = "fo+ba[rz]_[0-9]+q";
    private static final String JDK_LITERAL = "Spliterators.spliteratorUnknownSize";
    private static final String JDK_REGEX = "synchronized \\([a-z]+Lock\\)";
    private static final String[] WORDS = ("the quick brown fox jumps over lazy dog public static final class void "
            + "return import package private int long string value result error warning info debug trace config "
            + "server client request response handler buffer stream channel future promise").split(" ");
    private static final int WARMUP = 3;
    /** Calls without new compilation that end the JIT warm-up of a case. */
    private static final int JIT_QUIET_CALLS = 5;
    /** The fewest calls of the JIT warm-up of a case. */
    private static final int JIT_MIN_CALLS = 10;
    /** The most calls of the JIT warm-up of a case. */
    private static final int JIT_MAX_CALLS = 100;
    private static final boolean JIT_WARMUP = !"off".equals(System.getProperty("searchbench.jit"));
    /** Linux's USER_HZ: the unit of the CPU times in {@code /proc/self/stat}. */
    private static final int CLOCK_TICKS = 100;

    private final int reps;
    private final List<String> summary = new ArrayList<>();
    private int mismatches;
    /** The calls the last case's JIT warm-up took. */
    private int jitCalls;

    private FileSearchBenchmark(int reps) {
        this.reps = reps;
    }

    /** One tree and what is searched in it. */
    private record Tree(String name, String dir, String literal, String regex, List<String> ignoredDirs,
                        List<String> ignoredFiles) {
    }

    /**
     * Runs the benchmark.
     *
     * @param args {@code [trees] [reps] [files] [avgBytes] [srcZip]}
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        String trees = args.length > 0 ? args[0] : "both";
        int reps = args.length > 1 ? Integer.parseInt(args[1]) : 9;
        int files = args.length > 2 ? Integer.parseInt(args[2]) : 12_000;
        int avg = args.length > 3 ? Integer.parseInt(args[3]) : 12_000;
        Path zip = args.length > 4 ? Paths.get(args[4]) : findSrcZip();
        Path base = Files.createTempDirectory("wt-search-bench-");
        try (WorkspaceBackend work = WorkspaceBackend.builder().workspaceRoot(base.resolve("workspace"))
                .homesRoot(base.resolve("homes")).build()) {
            Path root = work.resolveRoot(CTX, null);
            FileSearchBenchmark b = new FileSearchBenchmark(reps);
            OUT.printf(Locale.ROOT, "cores=%d java=%s load=%s rg=%s%n", Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.version"), loadAverage(), firstLine(List.of("rg", "--version")));
            if (!trees.equals("jdk")) {
                long t0 = System.nanoTime();
                long bytes = generate(root.resolve("synthetic"), files, avg);
                OUT.printf(Locale.ROOT, "synthetic: %,d files, %,d MB in %.1f s%n", files, bytes >> 20,
                        (System.nanoTime() - t0) / 1e9);
                b.run(work, root, new Tree("synthetic", "synthetic", NEEDLE, SYNTH_REGEX,
                        List.of("node_modules", "target", "generated"), List.of("*.log")));
            }
            if (!trees.equals("synthetic")) {
                if (zip == null) {
                    OUT.println("jdk: no readable lib/src.zip under /usr/lib/jvm; give its path as the 5th argument");
                } else {
                    long t0 = System.nanoTime();
                    long[] n = unzip(zip, root.resolve("jdk"));
                    OUT.printf(Locale.ROOT, "jdk: %s, %,d files, %,d MB in %.1f s%n", zip, n[0], n[1] >> 20,
                            (System.nanoTime() - t0) / 1e9);
                    b.run(work, root, new Tree("jdk", "jdk", JDK_LITERAL, JDK_REGEX, List.of(), List.of()));
                }
            }
            OUT.println();
            OUT.println("| tree | case | .gitignore | WorkTarget ms | rg ms | GNU ms | ratio to rg | ratio to GNU "
                    + "| CPU ms WT / rg / GNU |");
            OUT.println("|---|---|---|---:|---:|---:|---:|---:|---:|");
            b.summary.forEach(OUT::println);
            OUT.printf(Locale.ROOT, "count mismatches: %d%n", b.mismatches);
        } finally {
            deleteTree(base);
        }
    }

    private void run(WorkspaceBackend work, Path root, Tree t) throws Exception {
        BackendTool grep = tool(work, "work_file_grep");
        BackendTool find = tool(work, "work_file_find");
        Path dir = root.resolve(t.dir());
        for (boolean ignoreOn : new boolean[] {true, false}) {
            String mode = ignoreOn ? "on" : "off";
            Map<String, Object> common = new HashMap<>();
            common.put("path", t.dir());
            if (!ignoreOn) {
                common.put("includeIgnored", true);
                common.put("includeGenerated", true);
            }
            List<String> rgBase = new ArrayList<>(List.of("rg", "-n", "--hidden"));
            rgBase.add(ignoreOn ? "--no-require-git" : "--no-ignore");
            List<String> grepBase = new ArrayList<>(List.of("grep", "-rnI"));
            if (ignoreOn) {
                t.ignoredDirs().forEach(d -> grepBase.add("--exclude-dir=" + d));
                t.ignoredFiles().forEach(f -> grepBase.add("--exclude=" + f));
            }

            Map<String, Object> lit = new HashMap<>(common);
            lit.put("pattern", t.literal());
            lit.put("literal", true);
            lit.put("limit", 1000);
            compareGrep(t, "literal", mode, grep, lit, dir, cmd(rgBase, "-F", t.literal(), "."),
                    cmd(grepBase, "-F", t.literal(), "."));

            Map<String, Object> re = new HashMap<>(common);
            re.put("pattern", t.regex());
            re.put("limit", 1000);
            compareGrep(t, "regex", mode, grep, re, dir, cmd(rgBase, "-e", t.regex(), "."),
                    cmd(grepBase, "-E", t.regex(), "."));

            Map<String, Object> fp = new HashMap<>(common);
            fp.put("pathGlob", "*.java");
            fp.put("limit", 1000);
            List<String> findCmd = new ArrayList<>(List.of("find", "."));
            if (ignoreOn && !t.ignoredDirs().isEmpty()) {
                findCmd.add("(");
                for (int i = 0; i < t.ignoredDirs().size(); i++) {
                    if (i > 0) {
                        findCmd.add("-o");
                    }
                    findCmd.addAll(List.of("-name", t.ignoredDirs().get(i)));
                }
                findCmd.addAll(List.of(")", "-prune", "-o"));
            }
            findCmd.addAll(List.of("-type", "f", "-name", "*.java", "-print"));
            List<String> rgFiles = new ArrayList<>(List.of("rg", "--files", "--hidden", "-g", "*.java"));
            rgFiles.add(ignoreOn ? "--no-require-git" : "--no-ignore");
            long ours = number(find.invoke(fp, CTX), "totalMatches");
            long gnu = countLines(dir, findCmd);
            long rg = countLines(dir, rgFiles);
            check(t, "find", mode, ours, rg, gnu);
            double[] m = measure(() -> find.invoke(fp, CTX), dir, rgFiles, findCmd);
            report(t, "find *.java", mode, ours, rg, gnu, m, "rg --files", "find");
        }
    }

    private void compareGrep(Tree t, String label, String mode, BackendTool grep, Map<String, Object> params,
                             Path dir, List<String> rg, List<String> gnu) throws Exception {
        long ours = number(grep.invoke(params, CTX), "count");
        long rgCount = countLines(dir, rg);
        long gnuCount = countLines(dir, gnu);
        check(t, label, mode, ours, rgCount, gnuCount);
        double[] m = measure(() -> grep.invoke(params, CTX), dir, rg, gnu);
        report(t, "grep " + label, mode, ours, rgCount, gnuCount, m, "rg", "grep -rn");
    }

    private void check(Tree t, String label, String mode, long ours, long rg, long gnu) {
        if (ours != rg || ours != gnu) {
            mismatches++;
            OUT.printf(Locale.ROOT, "MISMATCH %s %s gitignore %s: worktarget=%d rg=%d gnu=%d%n", t.name(), label, mode,
                    ours, rg, gnu);
        }
    }

    private void report(Tree t, String label, String mode, long count, long rgCount, long gnuCount, double[] m,
                        String rgName, String gnuName) {
        OUT.printf(Locale.ROOT, "%-9s %-13s gitignore %-3s: worktarget %7.1f ms | %s %7.1f ms | %s %7.1f ms | "
                        + "ratio %.2f x rg, %.2f x GNU | cpu ms %.0f/%.0f/%.0f | counts %d/%d/%d | JIT warm-up %d calls%n",
                t.name(), label, mode, m[0], rgName, m[1], gnuName, m[2], m[0] / m[1], m[0] / m[2], m[3], m[4], m[5],
                count, rgCount, gnuCount, JIT_WARMUP ? jitCalls : 0);
        summary.add(String.format(Locale.ROOT, "| %s | %s | %s | %.1f | %.1f | %.1f | %.2f | %.2f | %.0f / %.0f / %.0f |",
                t.name(), label, mode, m[0], m[1], m[2], m[0] / m[1], m[0] / m[2], m[3], m[4], m[5]));
    }

    @FunctionalInterface
    private interface Call {
        void run() throws ToolException;
    }

    /** Runs WorkTarget's call until the JVM's compilation time stays put over a few calls (see the class doc). */
    private void jitWarmUp(Call ours) throws Exception {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        long last = jit.getTotalCompilationTime();
        int quiet = 0;
        int calls = 0;
        while (calls < JIT_MAX_CALLS && (calls < JIT_MIN_CALLS || quiet < JIT_QUIET_CALLS)) {
            ours.run();
            calls++;
            long now = jit.getTotalCompilationTime();
            quiet = now == last ? quiet + 1 : 0;
            last = now;
        }
        jitCalls = calls;
    }

    /**
     * Medians of the wall times of {@code [ours, rg, gnu]}, each timed once per round after the warm-up
     * rounds, then their mean CPU times (user + system, all threads) per call: this JVM's own for
     * WorkTarget (its GC and compiler threads included), the waited-for children's for the references.
     */
    private double[] measure(Call ours, Path dir, List<String> rg, List<String> gnu) throws Exception {
        double[][] t = new double[3][reps];
        long[] cpu = new long[3];
        if (JIT_WARMUP) {
            jitWarmUp(ours);
        }
        for (int i = -WARMUP; i < reps; i++) {
            long[] c0 = cpuTicks();
            long s = System.nanoTime();
            ours.run();
            double a = (System.nanoTime() - s) / 1e6;
            long[] c1 = cpuTicks();
            double b = timeProcess(dir, rg);
            long[] c2 = cpuTicks();
            double c = timeProcess(dir, gnu);
            long[] c3 = cpuTicks();
            if (i >= 0) {
                t[0][i] = a;
                t[1][i] = b;
                t[2][i] = c;
                cpu[0] += c1[0] - c0[0];
                cpu[1] += c2[1] - c1[1];
                cpu[2] += c3[1] - c2[1];
            }
        }
        double tick = 1000.0 / CLOCK_TICKS / reps;
        return new double[] {median(t[0]), median(t[1]), median(t[2]), cpu[0] * tick, cpu[1] * tick, cpu[2] * tick};
    }

    /**
     * {@code [own, children]} CPU ticks (user + system) from {@code /proc/self/stat}; zeros elsewhere.
     */
    private static long[] cpuTicks() {
        try {
            String stat = Files.readString(Paths.get("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after the command name: state is field 3, utime 14, stime 15, cutime 16, cstime 17
            return new long[] {Long.parseLong(f[11]) + Long.parseLong(f[12]), Long.parseLong(f[13]) + Long.parseLong(f[14])};
        } catch (IOException | RuntimeException e) {
            return new long[2];
        }
    }

    private static List<String> cmd(List<String> base, String... more) {
        List<String> c = new ArrayList<>(base);
        c.addAll(List.of(more));
        return c;
    }

    private static long number(Map<String, Object> result, String key) {
        return ((Number) result.get(key)).longValue();
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
    }

    private static ProcessBuilder builder(Path dir, List<String> cmd) {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().put("LC_ALL", "C");
        return pb;
    }

    /** Wall time of a process from start to exit, its output discarded (as the tools' output is not printed). */
    private static double timeProcess(Path dir, List<String> cmd) throws IOException, InterruptedException {
        ProcessBuilder pb = builder(dir, cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        long s = System.nanoTime();
        int rc = pb.start().waitFor();
        double ms = (System.nanoTime() - s) / 1e6;
        if (rc > 1) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed with " + rc);
        }
        return ms;
    }

    private static long countLines(Path dir, List<String> cmd) throws IOException, InterruptedException {
        Process p = builder(dir, cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        long n;
        try (InputStream in = p.getInputStream()) {
            n = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1).lines().count();
        }
        p.waitFor();
        return n;
    }

    private static String firstLine(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String s;
            try (InputStream in = p.getInputStream()) {
                s = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().findFirst().orElse("?");
            }
            p.waitFor();
            return s;
        } catch (IOException e) {
            return "missing (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "?";
        }
    }

    private static String loadAverage() {
        try {
            return Files.readString(Paths.get("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "?";
        }
    }

    private static BackendTool tool(WorkspaceBackend b, String name) {
        return b.tools().stream().filter(t -> t.spec().name().equals(name)).findFirst().orElseThrow();
    }

    /** The first readable {@code lib/src.zip} of a JDK under {@code /usr/lib/jvm}, or null. */
    private static Path findSrcZip() throws IOException {
        Path jvm = Paths.get("/usr/lib/jvm");
        if (!Files.isDirectory(jvm)) {
            return null;
        }
        try (var s = Files.list(jvm)) {
            return s.sorted().map(p -> p.resolve("lib/src.zip")).filter(Files::isReadable).findFirst().orElse(null);
        }
    }

    private static long[] unzip(Path zip, Path to) throws IOException {
        long files = 0;
        long bytes = 0;
        Path target = to.toAbsolutePath().normalize();
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
            for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                Path p = target.resolve(e.getName()).normalize();
                if (!p.startsWith(target)) {
                    throw new IOException("zip entry outside the target: " + e.getName());
                }
                if (e.isDirectory()) {
                    Files.createDirectories(p);
                    continue;
                }
                Files.createDirectories(p.getParent());
                bytes += Files.copy(in, p);
                files++;
            }
        }
        return new long[] {files, bytes};
    }

    /**
     * Generates a source-like tree: about 1 in 40 files carries the needle, 1 in 50 the regex; 1 in 16
     * lands in an ignored directory, 1 in 100 is an ignored {@code .log}, 1 in 250 is binary.
     */
    private static long generate(Path root, int files, int avg) throws IOException {
        Random rnd = new Random(42);
        Files.createDirectories(root);
        Files.writeString(root.resolve(".gitignore"), "# build output\nnode_modules/\ntarget/\n*.log\n");
        Files.createDirectories(root.resolve("mod3"));
        Files.writeString(root.resolve("mod3").resolve(".gitignore"), "generated/\n");
        long total = 0;
        String[] exts = {".java", ".md", ".txt", ".js", ".py", ".xml"};
        List<String> ignored = List.of("node_modules", "target");
        StringBuilder sb = new StringBuilder();
        Map<Path, Boolean> made = new LinkedHashMap<>();
        for (int i = 0; i < files; i++) {
            Path dir;
            if (i % 16 == 0) {
                String g = i % 7 == 3 ? "generated" : ignored.get(rnd.nextInt(ignored.size()));
                dir = root.resolve("mod" + (i % 7)).resolve(g).resolve("d" + (i % 13));
            } else {
                dir = root.resolve("mod" + (i % 7)).resolve("pkg" + (i % 23)).resolve("sub" + (i % 11));
            }
            if (made.putIfAbsent(dir, Boolean.TRUE) == null) {
                Files.createDirectories(dir);
            }
            String ext = i % 100 == 5 ? ".log" : i % 3 == 0 ? ".java" : exts[1 + rnd.nextInt(exts.length - 1)];
            int size = avg / 2 + rnd.nextInt(avg);
            sb.setLength(0);
            int line = 0;
            while (sb.length() < size) {
                int words = 4 + rnd.nextInt(10);
                for (int w = 0; w < words; w++) {
                    sb.append(WORDS[rnd.nextInt(WORDS.length)]).append(w + 1 < words ? " " : "");
                }
                if (line == 7 && i % 40 == 0) {
                    sb.append(' ').append(NEEDLE);
                }
                if (line == 11 && i % 50 == 0) {
                    sb.append(" foobar_").append(i).append('q');
                }
                sb.append('\n');
                line++;
            }
            byte[] bytes = sb.toString().getBytes(StandardCharsets.UTF_8);
            if (i % 250 == 7) {
                bytes[100] = 0;   // binary: skipped by every side
                ext = ".bin";
            }
            Files.write(dir.resolve("f" + i + ext), bytes);
            total += bytes.length;
        }
        return total;
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var s = Files.walk(dir)) {
            for (Path p : s.sorted((x, y) -> y.getNameCount() - x.getNameCount()).toList()) {
                Files.delete(p);
            }
        }
    }
}
