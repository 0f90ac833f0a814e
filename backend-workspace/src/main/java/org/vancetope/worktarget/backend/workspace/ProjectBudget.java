package org.vancetope.worktarget.backend.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.SizeBudget;
import org.vancetope.worktarget.core.internal.exec.ExecResolvers;
import org.vancetope.worktarget.core.internal.file.FileTools;
import org.vancetope.worktarget.core.internal.path.SafeDirectory;
import org.vancetope.worktarget.core.internal.Utf8;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * The disk budget of one project's RootDirs together ({@link WorkspaceBackend.Builder#projectMaxBytes}): the
 * bytes of the regular files under {@code <workspace>/<tenant>/<project>}, measured at most once per
 * {@link #MEASURE_INTERVAL} (every {@link #RECHECK_INTERVAL} while over), plus what the file tools wrote
 * and the transfers received since. Over it, {@code file_write}, {@code file_edit}, {@code file_mkdir} and
 * transfers into the project's RootDirs are refused, and of {@code exec_run} only a job that looks at files
 * and removes them starts; reading, searching, {@code file_delete} and {@code file_move} go on, so the caller
 * can see what is big and delete it. A {@code file_write} or a transfer that would take the project over is
 * refused before it writes anything.
 *
 * <p>It is a guard against a caller filling the server's disk through the tools, not a hard limit: a job
 * that started under the budget writes until it ends (its run time is capped by the exec settings), and
 * what it wrote counts from the next measurement on. A file system quota is the hard limit.
 */
final class ProjectBudget implements ExecResolvers.SpaceCheck {
    /** How long a measurement that does not refuse is trusted. */
    static final Duration MEASURE_INTERVAL = Duration.ofMinutes(1);
    /** How long a measurement that refuses is trusted: the caller may be cleaning up. */
    static final Duration RECHECK_INTERVAL = Duration.ofSeconds(2);

    private static final Logger LOG = LoggerFactory.getLogger(ProjectBudget.class);
    /** The file tools that add to a RootDir, refused over the budget. */
    private static final Set<String> GROWING = Set.of(ToolCatalog.WORK_PREFIX + "file_write",
            ToolCatalog.WORK_PREFIX + "file_edit", ToolCatalog.WORK_PREFIX + "file_mkdir");

    private final RootDirIndex index;
    private final SizeBudget<String> budget;

    ProjectBudget(RootDirIndex index, long maxBytes, Clock clock) {
        this.index = index;
        this.budget = new SizeBudget<>(maxBytes, MEASURE_INTERVAL, RECHECK_INTERVAL, clock, this::measure);
    }

    /**
     * The tools, the growing file tools checked against the budget before they run and charged with what they
     * changed: {@code file_write} adds its content's bytes less the file's size before (refused before it
     * writes when that would take the project over), {@code file_edit} the file's size after less before. The
     * call's RootDir is resolved once for both sizes; {@code file_write}'s size after is the one it reports.
     *
     * @param tools the workspace's tools
     * @param gates how a call finds its RootDir, as the tools do
     * @return the same tools, guarded; the same list when the budget is off
     */
    List<BackendTool> guard(List<BackendTool> tools, FileTools.GateResolver gates) {
        if (budget.maxBytes() == 0) {
            return tools;
        }
        return tools.stream().map(t -> !GROWING.contains(t.spec().name()) ? t : BackendTool.of(t.spec(),
                (given, ctx) -> {
                    Map<String, Object> params = given == null ? Map.of() : given;
                    String tool = t.spec().name().substring(ToolCatalog.WORK_PREFIX.length());
                    boolean write = tool.equals("file_write");
                    Path file = tool.equals("file_mkdir") ? null : file(gates, params, ctx);
                    long before = size(file);
                    long content = write && params.get("content") instanceof String s ? Utf8.length(s) : 0;
                    requireRoom(ctx, Math.max(0, content - before), tool);
                    Map<String, Object> result = t.invoke(given, ctx);
                    if (file != null) {
                        long after = write && result.get("bytes") instanceof Number n ? n.longValue() : size(file);
                        budget.charge(key(ctx), after - before);
                    }
                    return result;
                })).toList();
    }

    /** The entry a call's {@code path} names in its RootDir, or null when it names none (the tool says why). */
    private static Path file(FileTools.GateResolver gates, Map<String, Object> params, ToolContext ctx) {
        if (!(params.get("path") instanceof String path)) {
            return null;
        }
        try {
            return gates.gate(params, ctx).resolveEntry(path);
        } catch (ToolException | RuntimeException e) {
            return null;
        }
    }

    /** The size of a regular file, 0 for none (no file, a directory, a link, or it cannot be seen). */
    private static long size(Path file) {
        if (file == null) {
            return 0;
        }
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return a.isRegularFile() ? a.size() : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    @Override
    public void check(ToolContext context, boolean cleanUp) throws ToolException {
        if (!cleanUp) {
            requireRoom(context, 0, "exec_run");
        }
    }

    /**
     * Refuses a call that would take the caller's project over its budget, or that adds to a project over it.
     *
     * @param ctx the caller
     * @param adding the bytes the call writes, 0 when unknown or none
     * @param tool the tool, for the message
     * @throws ToolException {@code budget_exceeded}, saying what the project holds and what to do
     */
    void requireRoom(ToolContext ctx, long adding, String tool) throws ToolException {
        String refusal = refusal(ctx.tenant(), ctx.project(), adding, tool);
        if (refusal != null) {
            throw new ToolException(ErrorCode.BUDGET_EXCEEDED, refusal);
        }
    }

    /**
     * Takes the room for a file a transfer is about to receive into a RootDir of the project: its bytes count
     * from now until the next measurement.
     *
     * @param tenant the tenant
     * @param project the project
     * @param bytes the size of the file
     * @return null when it fits, else the refusal
     */
    String take(String tenant, String project, long bytes) {
        String refusal = refusal(tenant, project, bytes, "transfer");
        if (refusal == null) {
            budget.charge(key(tenant, project), bytes);
        }
        return refusal;
    }

    /** Null when the call fits, else what the project holds and what to do. */
    private String refusal(String tenant, String project, long adding, String tool) {
        String key = key(tenant, project);
        if (budget.fits(key, adding)) {
            return null;
        }
        long held = budget.usage(key, adding);
        long max = budget.maxBytes();
        boolean over = held > max;
        String what = tool.equals("exec_run")
                ? "the job was not started. While it is over, only jobs that look at files and remove them start (rm, "
                        + "rmdir, du, ls, find without -exec, df, sort, head, tail, cat, wc, stat, echo, cd, each named "
                        + "without a path; no redirection into a file, no env parameter)"
                : "nothing was written. While it is over, file_write, file_edit, file_mkdir and transfers into its "
                        + "RootDirs are refused, and of exec_run only jobs that look at files and remove them start";
        return "The RootDirs of project '" + project + "' hold " + SizeBudget.human(held)
                + (over ? ", over" : (" and this " + tool + " adds " + SizeBudget.human(adding) + ", more than"))
                + " the project's disk budget of " + SizeBudget.human(max) + ", so " + what + ". Options: (1) delete "
                + "what is not needed: file_delete, or exec_run 'du -sh * .[!.]* 2>/dev/null | sort -h' to see what is "
                + "big, then 'rm -rf DIR'; every RootDir of the project counts (pass dirName to clean up another); "
                + "(2) ask the operator to raise the project budget (project-max-mib). The size is measured again "
                + "within " + RECHECK_INTERVAL.toSeconds() + " s while it is over the budget.";
    }

    /** The key of a caller's project. */
    private static String key(ToolContext ctx) {
        return key(ctx.tenant(), ctx.project());
    }

    private static String key(String tenant, String project) {
        return tenant + '/' + project;
    }

    /** The bytes under {@code <workspace>/<tenant>/<project>}: every RootDir folder of the project. */
    private long measure(String key) {
        int slash = key.indexOf('/');
        String tenant = key.substring(0, slash);
        String project = key.substring(slash + 1);
        try (SafeDirectory tenants = index.workspace().openRoot(); SafeDirectory dir = tenants.openChild(tenant)) {
            return dir.treeSize(project);
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException e) {
            LOG.warn("measuring the RootDirs of {} failed, counting nothing: {}", key, e.toString());
            return 0;
        }
    }
}
