package org.vancetope.worktarget.backend.workspace;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.exec.ExecEngine;
import org.vancetope.worktarget.core.internal.exec.ExecResolvers;
import org.vancetope.worktarget.core.internal.exec.ExecTools;
import org.vancetope.worktarget.core.internal.file.FileEngine;
import org.vancetope.worktarget.core.internal.file.FileTools;
import org.vancetope.worktarget.core.internal.home.ExecEnvPolicy;
import org.vancetope.worktarget.core.internal.home.Homes;
import org.vancetope.worktarget.spi.BackendTool;

/**
 * The tool table of a workspace: the thirteen {@code work_file_*} tools of the file engine and the four
 * {@code work_exec_*} tools of the exec engine, each finding the RootDir of a call through the same gate
 * resolver, the exec tools with the scoped homes and the sealed WORK environment of the host.
 *
 * <p>It only assembles the list; it does not resolve RootDirs, own the engines or run anything itself.
 */
final class WorkspaceTools {
    private WorkspaceTools() {
    }

    /**
     * The seventeen tools, file tools first, in catalog order.
     *
     * @param engine the file engine
     * @param exec the exec engine
     * @param homes the jobs' scoped homes
     * @param hostEnv the host environment the sealed job environment draws from
     * @param gates how a call (its {@code dirName}, or none for the process's {@code temp}) finds its RootDir
     * @param space whether a job may start given the disk its project's RootDirs hold
     * @return the tools, unmodifiable
     */
    static List<BackendTool> create(FileEngine engine, ExecEngine exec, Homes homes, Map<String, String> hostEnv,
                                    FileTools.GateResolver gates, ExecResolvers.SpaceCheck space) {
        List<BackendTool> all = new ArrayList<>(FileTools.create(ToolCatalog.WORK_PREFIX, engine, gates));
        all.addAll(ExecTools.create(exec, ToolCatalog.WORK_PREFIX, ExecResolvers.work(gates::gate,
                homes, ExecEnvPolicy.work(hostEnv), space)));
        return List.copyOf(all);
    }
}
