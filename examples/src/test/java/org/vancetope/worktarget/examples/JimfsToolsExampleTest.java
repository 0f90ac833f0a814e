package org.vancetope.worktarget.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import java.nio.file.FileSystem;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.core.InMemoryProcessStore;

/**
 * How an agent framework tests its tool layer without touching the disk: the whole WORK backend on
 * an in-memory Jimfs file system, driven through the dispatcher as the LLM would drive it.
 */
class JimfsToolsExampleTest {
    private FileSystem fs;
    private WorkspaceBackend work;
    private WorkTargetDispatcher tools;

    @BeforeEach
    void setUp() {
        fs = Jimfs.newFileSystem(Configuration.unix());
        work = WorkspaceBackend.builder().workspaceRoot(fs.getPath("/workspace")).build();
        InMemoryProcessStore processes = new InMemoryProcessStore();
        processes.process("agent-1").tenant("acme").project("proj").add();
        tools = WorkTargetDispatcher.builder().processStore(processes).backend(work).build();
    }

    @AfterEach
    void tearDown() throws Exception {
        work.close();
        fs.close();
    }

    @Test
    void anAgentCanWriteEditAndReadAFile() throws ToolException {
        tools.invoke("agent-1", "file_write", Map.of("path", "src/App.java", "content", "class App {}\n"));
        tools.invoke("agent-1", "file_edit", Map.of("path", "src/App.java", "oldText", "App", "newText", "Main"));
        assertThat(tools.invoke("agent-1", "file_read", Map.of("path", "src/App.java")))
                .containsEntry("content", "class Main {}\n");
    }

    @Test
    void anAgentCannotLeaveItsRootDir() {
        assertThatThrownBy(() -> tools.invoke("agent-1", "file_read", Map.of("path", "../../etc/passwd")))
                .isInstanceOf(ToolException.class)
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.PATH_ESCAPE);
    }
}
