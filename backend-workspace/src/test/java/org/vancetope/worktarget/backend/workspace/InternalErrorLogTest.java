package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A call that fails {@code internal} tells the caller only that; the operator's log gets the cause. Here
 * the cause is a workspace whose {@code .rootdirs} was replaced by a file, so no RootDir can be made.
 */
class InternalErrorLogTest {
    @TempDir
    Path dir;

    @Test
    void anInternalFailureIsLoggedWithItsCauseWhileTheCallerSeesOnlyInternal() throws Exception {
        Files.createDirectories(dir.resolve("acme/proj"));
        Files.writeString(dir.resolve("acme/proj/.rootdirs"), "not a directory");
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p").tenant("acme").project("proj").add();
        store.putEngineParam("p", WorkTarget.ENGINE_PARAM_KEY, WorkTarget.WORK_TEMP.toMap());
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream err = System.err;
        try (WorkspaceBackend work = WorkspaceBackend.builder().workspaceRoot(dir).build()) {
            WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder().processStore(store).backend(work).build();
            System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));     // slf4j-simple writes here
            try {
                assertThatThrownBy(() -> dispatcher.invoke("p", "file_list", Map.of("path", ".")))
                        .isInstanceOfSatisfying(ToolException.class, e -> {
                            assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL);
                            assertThat(e.getMessage()).doesNotContain(dir.toString());
                        });
            } finally {
                System.setErr(err);
            }
        }
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("file_list", "for process p failed",
                "could not be created", ".rootdirs");
    }

    @Test
    void aToolThatThrowsIsLoggedOnceWithItsStackTrace() throws Exception {
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p").tenant("acme").project("proj").add();
        org.vancetope.worktarget.spi.BackendTool broken = org.vancetope.worktarget.spi.BackendTool.of(
                new org.vancetope.worktarget.spi.ToolSpec("broken_tool", "Throws.", true, java.util.Set.of(),
                        Map.of("type", "object", "properties", Map.of())), (params, ctx) -> {
                    throw new IllegalStateException("boom in a host's tool");
                });
        WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder().processStore(store).hostTool(broken).build();
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream err = System.err;
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
        try {
            assertThatThrownBy(() -> dispatcher.invoke("p", "broken_tool", Map.of()))
                    .isInstanceOfSatisfying(ToolException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL));
        } finally {
            System.setErr(err);
        }
        String text = log.toString(StandardCharsets.UTF_8);
        assertThat(text.lines().filter(l -> l.contains("IllegalStateException: boom in a host's tool")).count())
                .as("one stack trace:%n%s", text).isEqualTo(1);
        assertThat(text).contains("broken_tool", "for process p failed");
    }
}
