package org.vancetope.worktarget.backend.workspace;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testkit.ExecToolsContract;

/** Runs the exec-tools contract on the WORK backend's work_exec_* tools, in the caller's temp RootDir. */
class WorkspaceBackendExecContractTest extends ExecToolsContract {
    private WorkspaceBackend work;

    @Override
    protected List<BackendTool> createExecTools(Path workDir) {
        work = WorkspaceBackend.builder().workspaceRoot(workDir.resolve("workspace"))
                .execSettings(ExecSettings.builder().killGrace(Duration.ofMillis(500)).build()).build();
        return work.tools().stream().filter(t -> t.spec().name().startsWith("work_exec_")).toList();
    }

    @Override
    protected Path expectedWorkingDirectory() {
        try {
            return work.resolveRoot(context(), null);
        } catch (ToolException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected void closeBackend() {
        work.close();
    }
}
