package org.vancetope.worktarget.core.internal.exec;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.JsonValues;
import org.vancetope.worktarget.core.internal.Params;
import org.vancetope.worktarget.core.internal.home.ExecEnvPolicy;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * Binds an {@link ExecEngine} to the four exec backend tools of one prefix ({@code client_} or
 * {@code work_}), with their specs from {@link ToolCatalog} so the manifest has one source.
 *
 * <pre>{@code
 * List<BackendTool> tools = ExecTools.create(engine, ToolCatalog.WORK_PREFIX, ExecResolvers.work(roots, homes, policy));
 * }</pre>
 *
 * <p>The {@code env} parameter of {@code exec_run} is applied on top of the resolver's environment
 * (so it may override HOME and PATH). This class does no path checks of its own: the resolver chooses the
 * root, the engine checks {@code cwd} below it.
 */
public final class ExecTools {
    private ExecTools() {
    }

    /**
     * The four tools {@code <prefix>exec_run}, {@code exec_status}, {@code exec_tail}, {@code exec_kill}.
     *
     * @param engine the engine
     * @param prefix {@link ToolCatalog#CLIENT_PREFIX} or {@link ToolCatalog#WORK_PREFIX}
     * @param resolver the backend's target and scope resolution
     * @return the tools, in that order
     * @throws IllegalArgumentException for another prefix
     */
    public static List<BackendTool> create(ExecEngine engine, String prefix, ExecResolver resolver) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(resolver, "resolver");
        if (!ToolCatalog.CLIENT_PREFIX.equals(prefix) && !ToolCatalog.WORK_PREFIX.equals(prefix)) {
            throw new IllegalArgumentException("exec tools prefix must be '" + ToolCatalog.CLIENT_PREFIX + "' or '"
                    + ToolCatalog.WORK_PREFIX + "', got '" + prefix + "'");
        }
        return List.of(
                BackendTool.of(spec(prefix, "exec_run"), (params, ctx) -> {
                    String command = Params.requireString(params, "command");
                    Long waitMs = optional(params, "waitMs", 0);
                    Long deadline = optional(params, "deadlineSeconds", 1);
                    Map<String, String> extras = Params.optStringMap(params, "env");
                    ExecTarget t = resolver.target(params, ctx);
                    Map<String, String> env = ExecEnvPolicy.withExtras(t.env(), extras);
                    String stdin = Params.optString(params, "stdin", null);
                    String cwd = Params.optString(params, "cwd", null);
                    return JsonValues.normalize(engine.run(new ExecRequest(resolver.scope(ctx), command, t.root(), env,
                            waitMs, deadline, t.home(), stdin, cwd)).toMap());
                }),
                BackendTool.of(spec(prefix, "exec_status"), (params, ctx) -> {
                    String id = Params.optString(params, "id", null);
                    if (id != null && id.isEmpty()) {
                        throw Params.invalid("Parameter 'id' must not be empty; omit it to list the jobs.");
                    }
                    return JsonValues.normalize(id == null ? engine.list(resolver.scope(ctx)).toMap()
                            : engine.status(resolver.scope(ctx), id).toMap());
                }),
                BackendTool.of(spec(prefix, "exec_tail"), (params, ctx) -> {
                    String id = Params.requireString(params, "id");
                    int n = Params.optInt(params, "n", ExecEngine.DEFAULT_TAIL_LINES, 1, ExecEngine.MAX_TAIL_LINES);
                    String stream = Params.optChoice(params, "stream", "stdout", List.of("stdout", "stderr"));
                    return JsonValues.normalize(engine.tail(resolver.scope(ctx), id, n, stream.equals("stderr")).toMap());
                }),
                BackendTool.of(spec(prefix, "exec_kill"), (params, ctx) -> {
                    String id = Params.requireString(params, "id");
                    Map<String, Object> out = new LinkedHashMap<>();
                    out.put("id", id);
                    String scope = resolver.scope(ctx);
                    boolean killed = engine.kill(scope, id);
                    // a job that had ended may still have left a server running in the background: end that
                    int leftBehind = killed ? 0 : engine.endLeftBehind(scope, id);
                    out.put("killed", killed || leftBehind > 0);
                    if (leftBehind > 0) {
                        out.put("hint", ExecEngine.leftBehindEnded(id, leftBehind));
                    } else if (!killed) {
                        out.put("hint", engine.notKilledReason(scope, id));
                    }
                    return out;
                }));
    }

    private static Long optional(Map<String, Object> params, String name, long min) throws ToolException {
        if (params.get(name) == null) {
            return null;
        }
        return Params.optLong(params, name, 0, min, Long.MAX_VALUE);
    }

    private static ToolSpec spec(String prefix, String tool) {
        return ToolCatalog.backend(prefix + tool).orElseThrow(() ->
                new IllegalStateException("ToolCatalog has no backend tool " + prefix + tool));
    }
}
