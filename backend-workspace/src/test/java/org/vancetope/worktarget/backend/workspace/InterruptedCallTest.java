package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.internal.path.Reserved;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * A host that cancels a call by interrupting its thread ({@code Future.cancel(true)}, an MCP cancel) gets
 * {@code cancelled}, not an internal error: the interrupt closes the file channel the tool was using,
 * and that is the caller's doing, not a fault of the host. The file being written stays as it was.
 */
class InterruptedCallTest {
    @TempDir
    Path dir;

    private final InMemoryProcessStore store = new InMemoryProcessStore();
    private WorkspaceBackend work;
    private WorkTargetDispatcher tools;

    @BeforeEach
    void start() {
        work = WorkspaceBackend.builder().workspaceRoot(dir.resolve("ws")).homesRoot(dir.resolve("homes")).build();
        tools = WorkTargetDispatcher.builder().processStore(store).backend(work).build();
        store.process("p").tenant("acme").project("shop").add();
    }

    @AfterEach
    void stop() {
        Thread.interrupted();
        work.close();
    }

    /** Runs a call on this thread with its interrupt status set; returns the failure and clears the status. */
    private ToolException interruptedCall(String process, String tool, Map<String, Object> params) {
        Thread.currentThread().interrupt();
        try {
            tools.invoke(process, tool, params);
            throw new AssertionError(tool + " succeeded on an interrupted thread");
        } catch (ToolException e) {
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt status after the call").isTrue();
            return e;
        } finally {
            Thread.interrupted();
        }
    }

    private List<String> filesIn(Path root) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> s = Files.walk(root)) {
            s.filter(Files::isRegularFile).forEach(f -> names.add(root.relativize(f).toString()));
        }
        return names;
    }

    @Test
    void aWriteOnAnInterruptedThreadFailsCancelledAndLeavesTheFileAsItWas() throws Exception {
        tools.invoke("p", "file_write", Map.of("path", "a.txt", "content", "old\n"));

        ToolException e = interruptedCall("p", "file_write", Map.of("path", "a.txt", "content", "new\n"));

        assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(e.getMessage()).contains("cancelled because the calling thread was interrupted", "'a.txt'",
                "left as it was");
        assertThat(tools.invoke("p", "file_read", Map.of("path", "a.txt")).get("content")).isEqualTo("old\n");
        assertThat(filesIn(dir.resolve("ws"))).noneMatch(f -> Path.of(f).getFileName().toString()
                .startsWith(Reserved.PREFIX));
    }

    @Test
    void aReadOnAnInterruptedThreadFailsCancelled() throws Exception {
        tools.invoke("p", "file_write", Map.of("path", "a.txt", "content", "old\n"));

        ToolException e = interruptedCall("p", "file_read", Map.of("path", "a.txt"));

        assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(e.getMessage()).contains("Could not read 'a.txt'");
    }

    @Test
    void anEditOnAnInterruptedThreadFailsCancelledAndChangesNothing() throws Exception {
        tools.invoke("p", "file_write", Map.of("path", "a.txt", "content", "old\n"));

        ToolException e = interruptedCall("p", "file_edit", Map.of("path", "a.txt", "oldText", "old", "newText", "new"));

        assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(tools.invoke("p", "file_read", Map.of("path", "a.txt")).get("content")).isEqualTo("old\n");
    }

    @Test
    void aFirstCallInterruptedWhileItsRootDirIsMadeFailsCancelledAndTheNextCallMakesIt() throws Exception {
        ToolException e = interruptedCall("p", "file_list", Map.of("path", "."));

        assertThat(e.code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(e.getMessage()).contains("could not be created");
        tools.invoke("p", "file_write", Map.of("path", "b.txt", "content", "b"));
        assertThat(tools.invoke("p", "file_list", Map.of("path", ".")).get("entries")).isEqualTo(List.of("b.txt"));
    }

    @Test
    void writesCancelledAtAnyMomentEndWithTheOldOrTheNewFileWholeAndNoStagingFile() throws Exception {
        String old = "o".repeat(1 << 20);
        String fresh = "n".repeat(1 << 20);
        tools.invoke("p", "file_write", Map.of("path", "big.txt", "content", old));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Queue<String> outcomes = new ConcurrentLinkedQueue<>();
        try {
            for (int i = 0; i < 40; i++) {
                String content = i % 2 == 0 ? fresh : old;
                Future<?> call = pool.submit(() -> {
                    try {
                        tools.invoke("p", "file_write", Map.of("path", "big.txt", "content", content));
                        outcomes.add("ok");
                    } catch (ToolException e) {
                        outcomes.add(e.code().wire());
                    }
                });
                // cancel at a different point of the write each time: some before it starts, some inside it
                for (int spin = 0; spin < i * 20_000 && !call.isDone(); spin++) {
                    Thread.onSpinWait();
                }
                call.cancel(true);
                pool.submit(() -> { }).get(1, TimeUnit.MINUTES);      // the cancelled call has ended
            }
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
        }
        assertThat(outcomes).isNotEmpty().isSubsetOf("ok", "cancelled");
        List<String> files = filesIn(dir.resolve("ws"));
        assertThat(files).noneMatch(f -> Path.of(f).getFileName().toString().startsWith(Reserved.PREFIX));
        String big = files.stream().filter(f -> f.endsWith("big.txt")).findFirst().orElseThrow();
        String text = Files.readString(dir.resolve("ws").resolve(big));
        assertThat(text).hasSize(1 << 20);
        assertThat(text.chars().distinct().count()).as("one kind of character: the old or the new file").isEqualTo(1);
    }
}
