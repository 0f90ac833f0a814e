package org.vancetope.worktarget.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.internal.exec.ExecEngine;
import org.vancetope.worktarget.core.internal.exec.ExecResolvers;
import org.vancetope.worktarget.core.internal.exec.ExecTools;
import org.vancetope.worktarget.core.internal.home.ExecEnvPolicy;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.core.internal.home.Homes;
import org.vancetope.worktarget.spi.BackendTool;

/** The exec contract on the engine bound as WORK tools: scoped HOME, sealed env, outputs in the root. */
class WorkExecToolsContractTest extends ExecToolsContract {
    private ExecEngine engine;

    @Override
    protected List<BackendTool> createExecTools(Path workDir) throws Exception {
        engine = ExecEngine.builder().settings(ExecSettings.builder().killGrace(Duration.ofMillis(500)).build()).build();
        Homes homes = Homes.builder().homesRoot(workDir.resolve(".homes")).build();
        ConfinedRoot root = ConfinedRoot.of(workDir);
        return ExecTools.create(engine, ToolCatalog.WORK_PREFIX,
                ExecResolvers.work((params, ctx) -> root, homes, ExecEnvPolicy.work(System.getenv())));
    }

    @Override
    protected void closeBackend() {
        engine.close();
    }
}
