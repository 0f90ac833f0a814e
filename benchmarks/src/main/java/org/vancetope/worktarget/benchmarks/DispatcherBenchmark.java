package org.vancetope.worktarget.benchmarks;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.BackendToolProvider;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.ProcessStore;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The dispatcher's own overhead per call, in process: a WORK call routed to a backend tool that does
 * nothing, against calling that backend tool directly in the same run. Target:
 * at most 2 µs per call.
 *
 * <pre>{@code
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
 *     org.vancetope.worktarget.benchmarks.DispatcherBenchmark
 * }</pre>
 */
public final class DispatcherBenchmark {
    private static final int ROUNDS = 7;
    private static final int CALLS = 1_000_000;

    private DispatcherBenchmark() {
    }

    /**
     * Runs the benchmark.
     *
     * @param args ignored
     * @throws ToolException never, the backend does not fail
     */
    public static void main(String[] args) throws ToolException {
        Map<String, Object> result = Map.of("ok", true);
        BackendTool noop = BackendTool.of(ToolCatalog.backend("work_file_read").orElseThrow(), (p, c) -> result);
        ProcessInfo process = new ProcessInfo("p1", null, null, "acme", "proj", null,
                Map.of(WorkTarget.ENGINE_PARAM_KEY, WorkTarget.work("src").toMap()));
        ProcessStore store = new ProcessStore() {
            @Override
            public java.util.Optional<ProcessInfo> find(String processId) {
                return java.util.Optional.of(process);
            }

            @Override
            public void putEngineParam(String processId, String key, Object value) {
                throw new UnsupportedOperationException("read-only store in this benchmark");
            }
        };
        BackendToolProvider provider = new BackendToolProvider() {
            @Override
            public String name() {
                return "noop";
            }

            @Override
            public List<BackendTool> tools() {
                return List.of(noop);
            }
        };
        WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder().processStore(store).backend(provider).build();
        Map<String, Object> params = Map.of("path", "README.md");
        org.vancetope.worktarget.spi.ToolContext ctx = org.vancetope.worktarget.spi.ToolContext.of(process);

        double[] direct = new double[ROUNDS];
        double[] dispatched = new double[ROUNDS];
        long sink = 0;
        for (int r = 0; r < ROUNDS; r++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < CALLS; i++) {
                sink += noop.invoke(params, ctx).size();
            }
            direct[r] = (System.nanoTime() - t0) / (double) CALLS;
            t0 = System.nanoTime();
            for (int i = 0; i < CALLS; i++) {
                sink += dispatcher.invoke("p1", "file_read", params).size();
            }
            dispatched[r] = (System.nanoTime() - t0) / (double) CALLS;
        }
        // The first rounds warm the JIT; report medians of the rest.
        double d = median(Arrays.copyOfRange(direct, 2, ROUNDS));
        double w = median(Arrays.copyOfRange(dispatched, 2, ROUNDS));
        System.out.printf("direct backend call     %8.3f µs/call%n", d / 1000);
        System.out.printf("through the dispatcher  %8.3f µs/call%n", w / 1000);
        System.out.printf("dispatcher overhead     %8.3f µs/call (target ≤ 2 µs)   [sink %d]%n", (w - d) / 1000, sink % 10);
    }

    private static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v[v.length / 2];
    }
}
