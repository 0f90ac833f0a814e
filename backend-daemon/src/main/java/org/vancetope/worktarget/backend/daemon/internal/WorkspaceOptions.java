package org.vancetope.worktarget.backend.daemon.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.FileToolSettings;
import org.vancetope.worktarget.core.internal.home.HomeScope;
import org.vancetope.worktarget.spi.SettingLevel;
import org.vancetope.worktarget.spi.SettingsCascade;

/**
 * The command-line options of a WORK backend that serves callers of several tenants, the same for
 * {@code serve} and {@code mcp --http}: whose HOME a job gets and where ({@code --home-scope},
 * {@code --homes}, {@code --home-max-mib}), how jobs are isolated ({@code --isolation},
 * {@code --isolation-wrapper}), how they end and how many run ({@code --kill-grace-ms}, {@code --max-jobs}),
 * the RootDirs and disk of a project ({@code --max-rootdirs}, {@code --project-max-mib}) and the largest
 * file tool result ({@code --result-max-kib}); with {@link ExecOptions}' caps per job.
 */
public final class WorkspaceOptions {
    /** The jobs one project may have running at once unless {@code --max-jobs} says otherwise. */
    public static final int DEFAULT_MAX_JOBS = 32;
    /** Every option of this class (without those of {@link ExecOptions}). */
    public static final List<String> NAMES = List.of("home-scope", "homes", "home-max-mib", "isolation",
            "isolation-wrapper", "kill-grace-ms", "max-jobs", "max-rootdirs", "project-max-mib", "result-max-kib");
    /** The options in usage lines, after the command's own. */
    public static final List<String> USAGE = List.of(
            "[--home-scope project|tenant|user] [--homes DIR] [--home-max-mib N]",
            "[--isolation none|custom] [--isolation-wrapper TEMPLATE] [--kill-grace-ms N] [--max-jobs N]",
            "[--max-rootdirs N] [--project-max-mib N] [--result-max-kib N]");

    private WorkspaceOptions() {
    }

    /**
     * The lines of a command's help that describe these options.
     *
     * @param column where the descriptions start (the option names are padded to it)
     * @return the lines
     */
    public static List<String> help(int column) {
        List<String> out = new ArrayList<>();
        option(out, column, "--home-scope S", "whose HOME a WORK job gets: project (default, each project its own),",
                "tenant (shared by the tenant's projects) or user (shared by a user's projects)");
        option(out, column, "--homes DIR", "where the HOMEs live (default DIR/../homes)");
        option(out, column, "--home-max-mib N", "the size budget of one HOME; over it only jobs that look at files",
                "and remove them start (rm, du, ls, find; default 2048; 0 off)");
        option(out, column, "--isolation MODE", "none (default: WORK jobs run as this user, and can read what it",
                "can: other tenants' files, the tokens file) or custom (each job runs inside",
                "--isolation-wrapper); $VANCE_EXEC_ISOLATION_MODE overrides. Use custom for callers of",
                "several tenants");
        option(out, column, "--isolation-wrapper TEMPLATE", "the wrapper of custom isolation, split on blanks,",
                "with {cmd} as one word (default: a bubblewrap sandbox of the job's directories)");
        option(out, column, "--kill-grace-ms N", "how long a job's processes get between SIGTERM and SIGKILL",
                "(default " + ExecSettings.defaults().killGrace().toMillis() + ")");
        option(out, column, "--max-jobs N", "the jobs one project may have running at once, over all its",
                "sessions and processes (default " + DEFAULT_MAX_JOBS + ")");
        option(out, column, "--max-rootdirs N", "the RootDirs one project may hold; one more",
                "(workspace_create_ephemeral_dir) fails size_limit (default "
                        + WorkspaceBackend.DEFAULT_MAX_ROOT_DIRS_PER_PROJECT + ")");
        option(out, column, "--project-max-mib N", "the disk budget of one project's RootDirs together (default 0:",
                "none); over it file_write, file_edit and file_mkdir are refused and only jobs that",
                "look at files and remove them start; measured at most every minute");
        option(out, column, "--result-max-kib N", "the largest result of a file tool (default "
                + (FileToolSettings.DEFAULT_RESULT_MAX_BYTES >> 10) + "; at least 1)");
        return out;
    }

    private static void option(List<String> out, int column, String name, String... description) {
        String head = "  " + name;
        if (head.length() + 1 > column) {
            out.add(head);
            head = "";
        }
        out.add(head + " ".repeat(column - head.length()) + description[0]);
        for (int i = 1; i < description.length; i++) {
            out.add(" ".repeat(column) + description[i]);
        }
    }

    /**
     * A WORK backend's builder with the options applied (its exec settings included, with
     * {@link ExecOptions}' caps per job).
     *
     * @param a the command line
     * @param workspace the workspace directory
     * @return the builder
     * @throws Args.UsageException for a bad value, naming the option
     */
    public static WorkspaceBackend.Builder builder(Args a, Path workspace) throws Args.UsageException {
        WorkspaceBackend.Builder b = WorkspaceBackend.builder().workspaceRoot(workspace);
        HomeScope scope = HomeScope.parse(a.get("home-scope", "project")).orElseThrow(() -> new Args.UsageException(
                "--home-scope must be project, tenant or user, got '" + a.get("home-scope", "") + "'."));
        if (scope != HomeScope.PROJECT) {
            b.settings(homeScope(scope));
        }
        Path homes = a.directoryOrAbsent("homes");
        if (homes != null) {
            b.homesRoot(homes);
        }
        if (a.has("home-max-mib")) {
            b.homeMaxBytes((long) a.intOption("home-max-mib", 0, 0, Integer.MAX_VALUE) << 20);
        }
        b.maxRootDirsPerProject(a.intOption("max-rootdirs", WorkspaceBackend.DEFAULT_MAX_ROOT_DIRS_PER_PROJECT, 1,
                1_000_000));
        b.projectMaxBytes((long) a.intOption("project-max-mib", 0, 0, Integer.MAX_VALUE) << 20);
        ExecSettings.Builder exec = ExecSettings.defaults().toBuilder();
        try {
            if (a.has("isolation")) {
                exec.isolationMode(ExecSettings.IsolationMode.parse(a.get("isolation", "")));
            }
            if (a.has("isolation-wrapper")) {
                exec.isolationWrapper(a.get("isolation-wrapper", ""));
            }
            exec.killGrace(Duration.ofMillis(a.intOption("kill-grace-ms",
                    (int) ExecSettings.defaults().killGrace().toMillis(), 0, Integer.MAX_VALUE)));
            exec.maxRunningJobsPerProject(a.intOption("max-jobs", DEFAULT_MAX_JOBS, 1, Integer.MAX_VALUE));
            ExecOptions.apply(a, exec);
            b.execSettings(exec.build());
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException("The exec settings (--isolation, --isolation-wrapper, --"
                    + String.join(", --", ExecOptions.NAMES) + "): " + e.getMessage() + ".");
        }
        if (a.has("result-max-kib")) {
            int kib = a.intOption("result-max-kib", 0, 1, 1 << 20);
            try {
                b.fileSettings(FileToolSettings.defaults().toBuilder().resultMaxBytes(kib << 10).build());
            } catch (IllegalArgumentException e) {
                throw new Args.UsageException("--result-max-kib: " + e.getMessage() + ".");
            }
        }
        return b;
    }

    /** A cascade whose every tenant has the given HOME scope. */
    private static SettingsCascade homeScope(HomeScope scope) {
        return (level, tenant, id, key) -> level == SettingLevel.TENANT && HomeScope.SETTING.equals(key)
                ? Optional.of(scope.wire()) : Optional.empty();
    }
}
