package org.vancetope.worktarget.benchmarks;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The WorkTarget MCP server beside the reference MCP filesystem server
 * ({@code @modelcontextprotocol/server-filesystem}, pinned in {@code worktarget-mcp/src/test/node}): one
 * TypeScript SDK client ({@code mcp-bench.mjs}) drives both over stdio on the same directory and runs the
 * same operations, interleaved call by call, and this main prints its table of medians and ratios.
 *
 * <pre>{@code
 * npm ci --prefix worktarget-mcp/src/test/node --ignore-scripts
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *      org.vancetope.worktarget.benchmarks.McpBenchmark [reps=21] [idleMs=0] [runs=1] [srcZip=the first JDK lib/src.zip under /usr/lib/jvm]
 * }</pre>
 *
 * <p>The directory (a fresh temp directory, deleted at the end) holds a 4 KiB text file, a 100 MB log of
 * short numbered lines, a 4 KiB file to edit per server, and a JDK's {@code lib/src.zip} unpacked under
 * {@code src/} (about 15,000 files): the real source tree the name search runs over. The WorkTarget server is
 * started as {@code java -cp <this class path> …McpMain mcp --workdir DIR} with default JVM flags, as an MCP
 * client's config launches the jar ({@code -Dmcpbench.jvmArgs="-XX:… -XX:…"} puts flags before {@code -cp}, to
 * measure a config that passes some); the reference as {@code node …/server-filesystem/dist/index.js DIR}.
 * Connect time (spawn, initialize, tools/list) is reported apart from the per-call medians. With {@code idleMs}
 * the client waits that long after connecting before its first call, as an MCP client that starts its servers at
 * launch and calls them when the model first uses a tool: the time the WorkTarget server's warm-up has
 * ({@code -Dmcpbench.warmUp=off} starts it with {@code --warm-up off}). With {@code runs} above 1 both servers are
 * started afresh that many times in the one directory and measured each time; the table per run is followed by
 * the median over the runs (a client calling at once after the start meets a JVM still compiling, whose
 * medians vary most from one start to the next).
 */
public final class McpBenchmark {
    private McpBenchmark() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args optional repetitions per operation (21), idle milliseconds after connecting (0), runs (1: how
     *             many times both servers are started afresh and measured) and the path of a JDK's src.zip
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        int reps = args.length > 0 ? Integer.parseInt(args[0]) : 21;
        long idleMs = args.length > 1 ? Long.parseLong(args[1]) : 0;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        Path srcZip = args.length > 3 ? Path.of(args[3]) : findSrcZip();
        Path node = Path.of("worktarget-mcp/src/test/node").toAbsolutePath();
        Path reference = node.resolve("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
        if (!Files.isRegularFile(reference)) {
            throw new IllegalStateException("The reference server is not installed: run 'npm ci --prefix "
                    + "worktarget-mcp/src/test/node --ignore-scripts' from the repository root first.");
        }
        Path base = Files.createTempDirectory("wt-mcpbench");
        try {
            Path dir = Files.createDirectories(base.resolve("dir")).toRealPath();
            prepare(dir, srcZip);
            List<String> wt = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
            String jvmArgs = System.getProperty("mcpbench.jvmArgs", "").trim();
            if (!jvmArgs.isEmpty()) {
                wt.addAll(List.of(jvmArgs.split("\\s+")));
            }
            wt.addAll(List.of("-cp", System.getProperty("java.class.path"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                    "org.vancetope.worktarget.mcp.cli.McpMain", "mcp", "--workdir", dir.toString(),
                    "--warm-up", System.getProperty("mcpbench.warmUp", "on")));
            List<String> ref = List.of("node", reference.toString(), dir.toString());
            ProcessBuilder pb = new ProcessBuilder("node", "mcp-bench.mjs").directory(node.toFile()).inheritIO();
            pb.environment().put("WT_SERVER_CMD", json(wt));
            pb.environment().put("REF_SERVER_CMD", json(ref));
            pb.environment().put("BENCH_DIR", dir.toString());
            pb.environment().put("BENCH_REPS", Integer.toString(reps));
            pb.environment().put("BENCH_IDLE_MS", Long.toString(idleMs));
            pb.environment().put("BENCH_RUNS", Integer.toString(runs));
            System.out.println("source tree: " + srcZip + "; directory " + dir + "; worktarget --warm-up "
                    + wt.get(wt.size() - 1) + (jvmArgs.isEmpty() ? "" : "; worktarget JVM flags " + jvmArgs));
            int code = pb.start().waitFor();
            if (code != 0) {
                throw new IllegalStateException("mcp-bench.mjs failed with exit code " + code);
            }
        } finally {
            WireTransferBenchmark.deleteTree(base);
        }
    }

    private static Path findSrcZip() throws IOException {
        try (Stream<Path> s = Files.walk(Path.of("/usr/lib/jvm"), 4)) {
            return s.filter(p -> p.getFileName().toString().equals("src.zip") && Files.isRegularFile(p))
                    .sorted().findFirst().orElseThrow(() -> new IllegalStateException(
                            "No JDK lib/src.zip under /usr/lib/jvm: pass the path of one as the fourth argument."));
        }
    }

    private static void prepare(Path dir, Path srcZip) throws IOException {
        String line = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghij\n";
        Files.writeString(dir.resolve("small.txt"), line.repeat(4096 / line.length()));
        String edit = "alpha\nbeta\ngamma\n" + line.repeat(4000 / line.length());
        Files.writeString(dir.resolve("edit-wt.txt"), edit);
        Files.writeString(dir.resolve("edit-ref.txt"), edit);
        try (BufferedWriter w = Files.newBufferedWriter(dir.resolve("big.log"), StandardCharsets.UTF_8)) {
            for (long i = 0, bytes = 0; bytes < 100_000_000L; i++) {
                String l = "2026-12-01T12:00:00Z INFO request " + i + " served in " + (i % 997) + " ms\n";
                w.write(l);
                bytes += l.length();
            }
        }
        Path src = Files.createDirectories(dir.resolve("src"));
        List<ZipEntry> entries = new ArrayList<>();
        try (ZipFile zip = new ZipFile(srcZip.toFile())) {
            for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                entries.add(e.nextElement());
            }
            for (ZipEntry e : entries) {
                Path target = src.resolve(e.getName()).normalize();
                if (!target.startsWith(src)) {
                    throw new IOException("A zip entry leads outside the directory: " + e.getName());
                }
                if (e.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    try (InputStream in = zip.getInputStream(e)) {
                        Files.copy(in, target);
                    }
                }
            }
        }
    }

    private static String json(List<String> args) {
        StringBuilder b = new StringBuilder("[");
        for (String a : args) {
            if (b.length() > 1) {
                b.append(',');
            }
            b.append('"').append(a.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
        return b.append(']').toString();
    }
}
