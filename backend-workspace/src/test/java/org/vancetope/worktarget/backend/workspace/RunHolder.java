package org.vancetope.worktarget.backend.workspace;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * A child JVM for {@link EndedRunTest}: opens the workspace given as its argument as serve does (processes
 * end with the JVM), makes the temp RootDir of process {@code child}, says {@code ready} and waits to be
 * killed.
 */
public final class RunHolder {
    private RunHolder() {
    }

    /**
     * Runs until killed.
     *
     * @param args the workspace directory
     * @throws Exception when the workspace cannot be opened
     */
    public static void main(String[] args) throws Exception {
        WorkspaceBackend work = WorkspaceBackend.builder().workspaceRoot(Path.of(args[0]))
                .homesRoot(Path.of(args[0]).resolveSibling("homes")).hostEnvironment(Map.of())
                .processesEndWithJvm(Duration.ZERO).build();
        work.tempRootDir(new ToolContext("child", null, "acme", "proj", null));
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
