package org.vancetope.worktarget.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * Times {@code file_grep} and {@code file_find} against GNU {@code grep -rn} and {@code find} over the
 * same generated tree in the same run (page cache warm, several repetitions, medians), and prints the
 * figures and the ratios. The GNU tools get the same pruning of generated directories
 * ({@code --exclude-dir} / {@code -prune}), so both sides do the same work and report the same matches.
 *
 * <pre>
 * mvn -q -pl benchmarks -am package -DskipTests
 * java -Xms1g -Xmx1g -XX:+AlwaysPreTouch \
 *      -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) \
 *      org.vancetope.worktarget.benchmarks.FileSearchBenchmark [dir] [files] [avgBytes] [reps]
 * </pre>
 *
 * <p>Defaults: a fresh directory under {@code java.io.tmpdir}, 20,000 files of ~20 KB on average
 * (~400 MB; about 6 % of them in generated directories), 7 repetitions. The tree is deleted afterwards
 * unless a directory was given.
 */
public final class FileSearchBenchmark {
    private static final PrintStream OUT = System.out;
    private static final List<String> GENERATED = List.of("node_modules", "target", ".git");
    private static final String NEEDLE = "needle_in_the_haystack";
    /** Only common letters: the rare-character scan finds no rare character and falls back. */
    private static final String PLAIN_WORD = "haystack";
    private static final String REGEX = "fo+ba[rz]_[0-9]+q";
    private static final ToolContext CTX = new ToolContext("bench", null, "bench", "bench", null);
    private static final String[] WORDS = ("the quick brown fox jumps over lazy dog public static final class void "
            + "return import package private int long string value result error warning info debug trace config "
            + "server client request response handler buffer stream channel future promise").split(" ");

    private FileSearchBenchmark() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args {@code [dir] [files] [avgBytes] [reps]}
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        boolean own = args.length < 1 || args[0].isEmpty();
        Path dir = own ? Files.createTempDirectory("wt-bench-") : Paths.get(args[0]);
        int files = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        int avg = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
        int reps = args.length > 3 ? Integer.parseInt(args[3]) : 7;
        try {
            if (own || isEmpty(dir)) {
                long t0 = System.nanoTime();
                long bytes = generate(dir, files, avg);
                OUT.printf(Locale.ROOT, "generated %,d files, %,d MB in %s in %.1f s%n", files, bytes >> 20, dir,
                        (System.nanoTime() - t0) / 1e9);
            }
            run(dir, reps);
        } finally {
            if (own) {
                deleteTree(dir);
            }
        }
    }

    private static void run(Path dir, int reps) throws Exception {
        LocalBackend local = LocalBackend.builder().workDirectory(dir).build();
        BackendTool grep = tool(local, "client_file_grep");
        BackendTool find = tool(local, "client_file_find");
        OUT.printf(Locale.ROOT, "cores=%d java=%s%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));

        List<String> exclude = new ArrayList<>();
        for (String g : GENERATED) {
            exclude.add("--exclude-dir=" + g);
        }
        List<String> grepLiteral = new ArrayList<>(List.of("grep", "-rn", "-F", NEEDLE));
        grepLiteral.addAll(exclude);
        grepLiteral.add(".");
        List<String> grepWord = new ArrayList<>(List.of("grep", "-rn", "-F", PLAIN_WORD));
        grepWord.addAll(exclude);
        grepWord.add(".");
        List<String> grepRegex = new ArrayList<>(List.of("grep", "-rn", "-E", REGEX));
        grepRegex.addAll(exclude);
        grepRegex.add(".");
        List<String> findCmd = new ArrayList<>(List.of("find", ".", "("));
        for (int i = 0; i < GENERATED.size(); i++) {
            if (i > 0) {
                findCmd.add("-o");
            }
            findCmd.addAll(List.of("-name", GENERATED.get(i)));
        }
        findCmd.addAll(List.of(")", "-prune", "-o", "-type", "f", "-name", "*.java", "-print"));

        Map<String, Object> literalParams = Map.of("pattern", NEEDLE, "limit", 1000);
        Map<String, Object> wordParams = Map.of("pattern", PLAIN_WORD, "limit", 1000);
        Map<String, Object> regexParams = Map.of("pattern", REGEX, "limit", 1000);
        Map<String, Object> findParams = Map.of("pathGlob", "*.java", "limit", 2000);

        // correctness: the same number of matches on both sides
        long javaLit = ((Number) grep.invoke(literalParams, CTX).get("count")).longValue();
        long gnuLit = countLines(dir, grepLiteral);
        long javaWord = ((Number) grep.invoke(wordParams, CTX).get("count")).longValue();
        long gnuWord = countLines(dir, grepWord);
        long javaRe = ((Number) grep.invoke(regexParams, CTX).get("count")).longValue();
        long gnuRe = countLines(dir, grepRegex);
        long javaFind = ((Number) find.invoke(findParams, CTX).get("totalMatches")).longValue();
        long gnuFind = countLines(dir, findCmd);
        OUT.printf(Locale.ROOT, "matches: literal java=%d gnu=%d | word java=%d gnu=%d | regex java=%d gnu=%d | "
                + "find java=%d gnu=%d%n", javaLit, gnuLit, javaWord, gnuWord, javaRe, gnuRe, javaFind, gnuFind);

        compare("file_grep literal vs grep -rn -F", reps, () -> time(() -> grep.invoke(literalParams, CTX)),
                () -> time(() -> exec(dir, grepLiteral)), 1.0);
        compare("file_grep word    vs grep -rn -F", reps, () -> time(() -> grep.invoke(wordParams, CTX)),
                () -> time(() -> exec(dir, grepWord)), 1.0);
        compare("file_grep regex   vs grep -rn -E", reps, () -> time(() -> grep.invoke(regexParams, CTX)),
                () -> time(() -> exec(dir, grepRegex)), 1.0);
        compare("file_find *.java  vs find -name ", reps, () -> time(() -> find.invoke(findParams, CTX)),
                () -> time(() -> exec(dir, findCmd)), 1.5);
    }

    private static void compare(String label, int reps, Supplier<Double> ours, Supplier<Double> theirs, double target) {
        for (int i = 0; i < 3; i++) {
            ours.get();
            theirs.get();
        }
        double[] a = new double[reps];
        double[] b = new double[reps];
        for (int i = 0; i < reps; i++) {
            a[i] = ours.get();
            b[i] = theirs.get();
        }
        double ma = median(a);
        double mb = median(b);
        double ratio = ma / mb;
        OUT.printf(Locale.ROOT, "%s: worktarget %7.1f ms, GNU %7.1f ms, ratio %.2f (target <= %.1f) %s%n", label, ma,
                mb, ratio, target, ratio <= target ? "OK" : "MISSED");
    }

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

    private static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
    }

    private static void exec(Path dir, List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        int rc = p.waitFor();
        if (rc > 1) {
            throw new IllegalStateException(cmd.get(0) + " failed with " + rc);
        }
    }

    private static long countLines(Path dir, List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        long n;
        try (var in = p.getInputStream()) {
            n = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().count();
        }
        p.waitFor();
        return n;
    }

    private static BackendTool tool(LocalBackend b, String name) {
        return b.tools().stream().filter(t -> t.spec().name().equals(name)).findFirst().orElseThrow();
    }

    private static boolean isEmpty(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir);
            return true;
        }
        try (var s = Files.list(dir)) {
            return s.findAny().isEmpty();
        }
    }

    /** Generates a source-like tree; about 1 in 40 files carries the needle, 1 in 50 the regex. */
    private static long generate(Path root, int files, int avg) throws IOException {
        Random rnd = new Random(42);
        long total = 0;
        String[] exts = {".java", ".md", ".txt", ".js", ".py", ".xml"};
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < files; i++) {
            Path dir;
            if (i % 16 == 0) {
                String g = GENERATED.get(rnd.nextInt(GENERATED.size()));
                dir = root.resolve("mod" + (i % 7)).resolve(g).resolve("d" + (i % 13));
            } else {
                dir = root.resolve("mod" + (i % 7)).resolve("pkg" + (i % 23)).resolve("sub" + (i % 11));
            }
            Files.createDirectories(dir);
            String ext = i % 3 == 0 ? ".java" : exts[1 + rnd.nextInt(exts.length - 1)];
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
