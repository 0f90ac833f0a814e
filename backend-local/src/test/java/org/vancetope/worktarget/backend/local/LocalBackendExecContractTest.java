package org.vancetope.worktarget.backend.local;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.testkit.ExecToolsContract;

/** Runs the exec-tools contract on the CLIENT backend's client_exec_* tools. */
class LocalBackendExecContractTest extends ExecToolsContract {
    private LocalBackend local;

    @Override
    protected List<BackendTool> createExecTools(Path workDir) {
        local = LocalBackend.builder().workDirectory(workDir)
                .execSettings(ExecSettings.builder().killGrace(Duration.ofMillis(500)).build()).build();
        return local.tools();   // the contract takes the four exec tools and leaves the file tools aside
    }

    @Override
    protected void closeBackend() {
        local.close();
    }
}
