package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
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
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.RootDirHandle;
import org.vancetope.worktarget.spi.RootDirTypeHandler;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.Await;

/**
 * A RootDir is never deleted from under a call working in it: the host deletes it, or its process ends,
 * while a call runs there; the RootDir goes once that call has returned, and new calls are refused it
 * meanwhile. The call here is held inside the RootDir by its type handler's {@code recover}, which a call
 * runs when the RootDir's folder is missing, and which this test's type blocks until told to go on.
 */
class RootDirInUseTest {
    private static final ToolContext HOST = new ToolContext("host", null, "acme", "proj", null);

    @TempDir
    Path dir;

    private final CountDownLatch inCall = new CountDownLatch(1);
    private final CountDownLatch goOn = new CountDownLatch(1);
    /** Whether the thread that closed a held RootDir had its interrupt status set then. */
    private final Queue<Boolean> closedInterrupted = new ConcurrentLinkedQueue<>();
    private final InMemoryProcessStore store = new InMemoryProcessStore();
    private final ExecutorService pool = Executors.newFixedThreadPool(3);
    private WorkspaceBackend work;
    private WorkTargetDispatcher tools;

    /** A type whose folder comes back only when the test says so. */
    private final class HeldType implements RootDirTypeHandler {
        @Override
        public String type() {
            return "held";
        }

        @Override
        public void init(RootDirHandle handle) throws IOException {
            Files.createDirectories(handle.path());
        }

        @Override
        public void suspend(RootDirHandle handle) {
        }

        @Override
        public void recover(RootDirHandle handle) throws IOException {
            inCall.countDown();
            try {
                if (!goOn.await(1, TimeUnit.MINUTES)) {
                    throw new IOException("the test never let the call go on");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            Files.createDirectories(handle.path());
        }

        @Override
        public void close(RootDirHandle handle) throws IOException {
            closedInterrupted.add(Thread.currentThread().isInterrupted());
            deleteTree(handle.path());
        }
    }

    private static void deleteTree(Path folder) throws IOException {
        if (!Files.exists(folder)) {
            return;
        }
        try (Stream<Path> all = Files.walk(folder)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @BeforeEach
    void start() {
        work = WorkspaceBackend.builder().workspaceRoot(dir.resolve("ws")).homesRoot(dir.resolve("homes"))
                .rootDirType(new HeldType(), false).build();
        tools = WorkTargetDispatcher.builder().processStore(store).backend(work).build();
        store.process("p").tenant("acme").project("proj").add();
    }

    @AfterEach
    void stop() throws InterruptedException {
        goOn.countDown();
        pool.shutdownNow();
        assertThat(pool.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
        work.close();
    }

    /** Makes RootDir {@code name} of the held type with its folder missing, and starts a write in it that waits. */
    private Future<Map<String, Object>> callHeldIn(ToolContext creator, String name, boolean goesWithCreator)
            throws Exception {
        RootDirInfo info = work.createRootDir(creator, name, "held", null, goesWithCreator, null);
        deleteTree(info.path());
        Future<Map<String, Object>> call = pool.submit(() -> tools.invoke("p", "file_write",
                Map.of("path", "a.txt", "content", "a", "dirName", name)));
        assertThat(inCall.await(1, TimeUnit.MINUTES)).as("the call reached the RootDir").isTrue();
        return call;
    }

    private void assertRefused(String name) {
        assertThatThrownBy(() -> tools.invoke("p", "file_read", Map.of("path", "a.txt", "dirName", name)))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
                    assertThat(e.getMessage()).contains("'" + name + "' is being deleted", "Retry then");
                });
    }

    @Test
    void aRootDirTheHostDeletesWhileACallWorksInItGoesWhenTheCallReturns() throws Exception {
        Future<Map<String, Object>> call = callHeldIn(HOST, "r", false);

        assertThat(work.deleteRootDir("acme", "proj", "r")).isTrue();

        assertRefused("r");
        assertThat(work.rootDir("acme", "proj", "r")).as("still there while the call works in it").isPresent();
        goOn.countDown();
        assertThat(call.get(1, TimeUnit.MINUTES)).containsEntry("created", true);
        Await.until("RootDir r went after the call", () -> work.rootDir("acme", "proj", "r").isEmpty());
        assertThat(dir.resolve("ws/acme/proj/r")).doesNotExist();
        assertThat(dir.resolve("ws/acme/proj/.rootdirs")).isEmptyDirectory();
    }

    @Test
    void aProcessEndedWhileItsCallWorksInItsRootDirKeepsItUntilTheCallReturns() throws Exception {
        ProcessInfo p = store.find("p").orElseThrow();
        Future<Map<String, Object>> call = callHeldIn(ToolContext.of(p), "mine", true);

        assertThat(work.closeProcess("p")).extracting(RootDirInfo::dirName).containsExactly("mine");

        assertRefused("mine");
        goOn.countDown();
        call.get(1, TimeUnit.MINUTES);
        Await.until("RootDir mine went after the call", () -> work.rootDir("acme", "proj", "mine").isEmpty());
        assertThat(dir.resolve("ws/acme/proj/mine")).doesNotExist();
    }

    @Test
    void aCancelledCallThatIsTheLastInADeletedRootDirDeletesItWithoutItsInterrupt() throws Exception {
        Future<Map<String, Object>> call = callHeldIn(HOST, "r", false);
        work.deleteRootDir("acme", "proj", "r");

        call.cancel(true);       // the host gives up on the call: its thread is interrupted, and it returns

        Await.until("RootDir r went after the cancelled call", () -> work.rootDir("acme", "proj", "r").isEmpty());
        assertThat(closedInterrupted).containsExactly(false);
        assertThat(dir.resolve("ws/acme/proj/r")).doesNotExist();
    }

    @Test
    void callsRacingTheDeletionOfTheirRootDirSucceedOrFailNotFoundAndNothingIsLeft() throws Exception {
        goOn.countDown();
        store.process("q").tenant("acme").project("proj").add();
        Queue<String> outcomes = new ConcurrentLinkedQueue<>();
        for (int i = 0; i < 30; i++) {
            String name = "named-" + i;
            work.createRootDir(HOST, name, WorkspaceBackend.TEMP, null, false, null);
            CountDownLatch first = new CountDownLatch(3);
            List<Future<?>> callers = new ArrayList<>();
            for (Map<String, Object> params : List.of(
                    Map.<String, Object>of("tool", "file_write", "path", "f.txt", "content", "x"),
                    Map.<String, Object>of("tool", "exec_run", "command", "echo x > g.txt"),
                    Map.<String, Object>of("tool", "file_grep", "pattern", "x"))) {
                Map<String, Object> call = new HashMap<>(params);
                String tool = (String) call.remove("tool");
                call.put("dirName", name);
                callers.add(pool.submit(() -> {
                    for (int n = 0; n < 10_000; n++) {
                        try {
                            tools.invoke("q", tool, call);
                            outcomes.add("ok");
                        } catch (ToolException e) {
                            outcomes.add(e.code().wire());
                            if (e.code() == ErrorCode.NOT_FOUND && e.getMessage().contains("does not exist")) {
                                return null;        // deleted: these calls are over
                            }
                        } finally {
                            first.countDown();
                        }
                    }
                    return null;
                }));
            }
            first.await();
            work.deleteRootDir("acme", "proj", name);
            for (Future<?> f : callers) {
                f.get(1, TimeUnit.MINUTES);
            }
        }
        assertThat(outcomes).contains("ok").isSubsetOf("ok", "not_found");
        Await.until("every deleted RootDir went", () -> work.rootDirs("acme", "proj").isEmpty());
        try (Stream<Path> left = Files.list(dir.resolve("ws/acme/proj"))) {
            assertThat(left.map(f -> f.getFileName().toString())).containsOnly(".rootdirs");
        }
    }
}
