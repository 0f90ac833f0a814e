package org.vancetope.worktarget.examples;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.InMemoryProcessStore;

/**
 * The smallest useful setup: one JVM, a WORK backend on a workspace directory, and an agent process
 * whose generic tools land in its own temporary RootDir. No network, no client.
 */
public final class InProcessWorkExample {
    private InProcessWorkExample() {
    }

    /**
     * Runs the example.
     *
     * @param args ignored
     * @throws Exception if a call fails
     */
    public static void main(String[] args) throws Exception {
        Path workspace = Files.createTempDirectory("worktarget-example");
        InMemoryProcessStore processes = new InMemoryProcessStore();   // your host's process model
        processes.process("agent-1").tenant("acme").project("proj").add();
        try (WorkspaceBackend work = WorkspaceBackend.builder().workspaceRoot(workspace).build()) {
            WorkTargetDispatcher tools = WorkTargetDispatcher.builder()
                    .processStore(processes).backend(work).build();

            tools.invoke("agent-1", "file_write", Map.of("path", "hello.txt", "content", "hello\nworld\n"));
            System.out.println(Print.json(tools.invoke("agent-1", "file_grep", Map.of("pattern", "wor"))));
            System.out.println(Print.json(tools.invoke("agent-1", "exec_run", Map.of("command", "wc -l hello.txt"))));

            work.closeProcess("agent-1");   // the process ends: its temp RootDir goes, with its jobs
        }
    }
}
