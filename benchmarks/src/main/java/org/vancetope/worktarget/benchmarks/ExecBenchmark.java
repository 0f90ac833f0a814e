package org.vancetope.worktarget.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.exec.ExecEngine;
import org.vancetope.worktarget.core.internal.exec.ExecResolvers;
import org.vancetope.worktarget.core.internal.exec.ExecTools;
import org.vancetope.worktarget.core.internal.home.ExecEnvPolicy;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * Time for {@code client_exec_run} of {@code /bin/true} through the exec engine (own session via
 * setsid, sealed environment, two output files, head/tail capture, HEAD_TAIL rendering) against a bare
 * {@code ProcessBuilder} in the same run: both {@code /bin/sh -c /bin/true} (what the engine runs) and
 * {@code /bin/true} alone (the bare floor). The three variants are interleaved in
 * rounds so that machine noise hits them alike. Prints p50/p90 and the ratios (target ≤ 1.3×). Given a
 * control group directory the process may write (e.g. {@code /sys/fs/cgroup/pids/wt-bench} as root on
 * cgroup v1), or several separated by commas (one per v1 hierarchy), it also runs the engine with every job
 * in a group of its own there ({@code jobControlGroups}, {@code maxJobProcesses} 256, {@code maxJobMemory}
 * when a fourth argument gives it in MiB, {@code maxJobCpus} when a fifth gives it) and prints that cost
 * against the engine without.
 *
 * <pre>{@code
 * java -Xms256m -Xmx256m -XX:+AlwaysPreTouch -cp ... org.vancetope.worktarget.benchmarks.ExecBenchmark [iterations] [warmup] [cgroup-dir[,dir]] [job-memory-mib] [job-cpus]
 * }</pre>
 */
public final class ExecBenchmark {
    private ExecBenchmark() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args optional: iterations per variant (default 2000), warm-up iterations (default 300), a control
     *             group directory (or several, separated by commas) for the variant with a group per job,
     *             and that variant's memory cap in MiB (0 for none) and CPU cap
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        Path[] groups = args.length > 2 ? java.util.Arrays.stream(args[2].split(","))
                .map(d -> Path.of(d).toAbsolutePath()).toArray(Path[]::new) : null;
        long memoryMib = args.length > 3 ? Long.parseLong(args[3]) : 0;
        double cpus = args.length > 4 ? Double.parseDouble(args[4]) : 0;
        Path dir = Files.createTempDirectory("exec-bench");
        ToolContext ctx = new ToolContext("bench", "bench", "acme", "bench", null);
        ExecSettings grouped = groups == null ? ExecSettings.defaults()
                : ExecSettings.builder().jobControlGroups(groups).maxJobProcesses(256).maxJobMemory(memoryMib << 20)
                .maxJobCpus(cpus).build();
        try (ExecEngine engine = ExecEngine.builder().build();
             ExecEngine noSession = ExecEngine.builder().useSetsid(false).build();
             ExecEngine inGroups = ExecEngine.builder().settings(grouped).build()) {
            Map<String, Object> params = Map.of("command", "/bin/true");
            Variant engineRun = tool(engine, dir, ctx, params);
            Variant engineNoSetsid = tool(noSession, dir, ctx, params);
            Variant engineInGroups = groups == null ? () -> { } : tool(inGroups, dir, ctx, params);
            Variant bareShell = () -> bare(dir, "/bin/sh", "-c", "/bin/true");
            Variant bareTrue = () -> bare(dir, "/bin/true");
            Variant bareSetsid = () -> bare(dir, "/usr/bin/setsid", "/bin/sh", "-c", "/bin/true");

            for (int i = 0; i < warmup; i++) {
                engineRun.run();
                bareShell.run();
                bareTrue.run();
                bareSetsid.run();
                engineNoSetsid.run();
                engineInGroups.run();
            }
            long[] e = new long[iterations];
            long[] s = new long[iterations];
            long[] t = new long[iterations];
            long[] x = new long[iterations];
            long[] n = new long[iterations];
            long[] g = new long[iterations];
            // Interleaved one by one, in a rotating order, so that load from elsewhere hits all alike.
            Variant[] order = {engineRun, bareShell, bareTrue, bareSetsid, engineNoSetsid, engineInGroups};
            long[][] into = {e, s, t, x, n, g};
            for (int i = 0; i < iterations; i++) {
                for (int k = 0; k < order.length; k++) {
                    int v = (i + k) % order.length;
                    long t0 = System.nanoTime();
                    order[v].run();
                    into[v][i] = System.nanoTime() - t0;
                }
            }
            Arrays.sort(e);
            Arrays.sort(s);
            Arrays.sort(t);
            Arrays.sort(x);
            Arrays.sort(n);
            Arrays.sort(g);
            System.out.printf(Locale.ROOT, "exec_run /bin/true, %d iterations per variant after %d warm-up, launchMechanism=%s%n",
                    iterations, warmup, System.getProperty("jdk.lang.Process.launchMechanism", "default"));
            row("engine client_exec_run", e);
            row("engine, useSetsid(false)", n);
            row("bare ProcessBuilder sh -c", s);
            row("bare ProcessBuilder /bin/true", t);
            row("bare setsid sh -c (floor)", x);
            System.out.printf(Locale.ROOT, "ratio engine / bare setsid sh -c (same argv): p50 %.2fx  p90 %.2fx%n",
                    pct(e, 50) / pct(x, 50), pct(e, 90) / pct(x, 90));
            System.out.printf(Locale.ROOT, "ratio engine without setsid / bare sh -c   : p50 %.2fx  p90 %.2fx%n",
                    pct(n, 50) / pct(s, 50), pct(n, 90) / pct(s, 90));
            System.out.printf(Locale.ROOT, "ratio engine / bare /bin/true               : p50 %.2fx  p90 %.2fx%n",
                    pct(e, 50) / pct(t, 50), pct(e, 90) / pct(t, 90));
            if (groups != null) {
                row("engine, a control group each", g);
                System.out.printf(Locale.ROOT, "ratio engine with groups / engine without   : p50 %.2fx  p90 %.2fx "
                        + "(%s)%n", pct(g, 50) / pct(e, 50), pct(g, 90) / pct(e, 90), java.util.Arrays.toString(groups));
            }
        }
    }

    private static Variant tool(ExecEngine engine, Path dir, ToolContext ctx, Map<String, Object> params)
            throws IOException {
        List<BackendTool> tools = ExecTools.create(engine, ToolCatalog.CLIENT_PREFIX,
                ExecResolvers.client(ConfinedRoot.of(dir), ExecEnvPolicy.client(System.getenv())));
        BackendTool run = tools.get(0);
        return () -> {
            Map<String, Object> r = run.invoke(params, ctx);
            if (!"exited".equals(r.get("status"))) {
                throw new IllegalStateException("unexpected result " + r);
            }
        };
    }

    @FunctionalInterface
    private interface Variant {
        void run() throws Exception;
    }

    private static void bare(Path dir, String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).directory(dir.toFile()).start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("exit " + p.exitValue());
        }
        p.getInputStream().close();
        p.getErrorStream().close();
        p.getOutputStream().close();
    }

    private static double pct(long[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)] / 1e6;
    }

    private static void row(String name, long[] sorted) {
        System.out.printf(Locale.ROOT, "%-30s p50 %6.2f ms  p90 %6.2f ms%n", name, pct(sorted, 50), pct(sorted, 90));
    }
}
