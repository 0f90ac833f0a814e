package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.Await;
import org.vancetope.worktarget.core.InMemoryProcessStore;

/**
 * The end of a process reaches the WORK backend through the dispatcher: its temporary RootDir goes, and
 * so do the jobs it started (whole process trees) and their output. Real processes on the real disk.
 */
@EnabledOnOs(OS.LINUX)
class ProcessEndTest {
    @TempDir
    Path tmp;
    private WorkspaceBackend work;
    private InMemoryProcessStore store;
    private WorkTargetDispatcher dispatcher;

    @BeforeEach
    void setUp() {
        work = WorkspaceBackend.builder().workspaceRoot(tmp.resolve("ws")).homesRoot(tmp.resolve("homes"))
                .hostEnvironment(Map.of("PATH", "/usr/bin:/bin"))
                .execSettings(ExecSettings.builder().killGrace(Duration.ofMillis(200)).build()).build();
        store = new InMemoryProcessStore();
        dispatcher = WorkTargetDispatcher.builder().processStore(store).backend(work).build();
    }

    @AfterEach
    void tearDown() {
        work.close();
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    @Test
    void aProcessThatEndedLeavesNoTempRootDirNoJobAndNoOutputBehind() throws Exception {
        ProcessInfo p = store.process("p1").tenant("acme").project("proj").add();
        Map<String, Object> run = dispatcher.invoke("p1", "exec_run", Map.of("command", "echo $$ > pid; exec sleep 1000",
                "waitMs", 0));
        Path dir = work.resolveRoot(new ToolContext("p1", null, "acme", "proj", null), null);
        long pid = awaitPid(dir.resolve("pid"));
        assertThat(alive(pid)).isTrue();
        assertThat(dir.resolve((String) run.get("stdoutPath"))).exists();

        dispatcher.processEnded(p);

        assertThat(dir).as("the process's temp RootDir").doesNotExist();
        awaitDeath(pid);
        assertThat(work.rootDirs("acme", "proj")).isEmpty();
    }

    @Test
    void aJobOfTheProcessInANamedRootDirEndsWithTheProcessButTheRootDirStays() throws Exception {
        ProcessInfo p = store.process("p1").tenant("acme").project("proj").add();
        work.createRootDir(new ToolContext("other", null, "acme", "proj", null), "shared", WorkspaceBackend.TEMP, null,
                false, null);
        dispatcher.invoke("p1", "exec_run", Map.of("command", "echo $$ > pid; exec sleep 1000", "waitMs", 0,
                "dirName", "shared"));
        Path pidFile = work.resolveRoot("acme", "proj", "shared").resolve("pid");
        long pid = awaitPid(pidFile);
        dispatcher.processEnded(p);
        assertThat(work.rootDir("acme", "proj", "shared")).as("a RootDir the process did not create").isPresent();
        awaitDeath(pid);
    }

    @Test
    void theJobsInTheRootDirOfAnEndingProcessAreKilledSoTheCallWaitingForThemReturns() throws Exception {
        ProcessInfo p = store.process("p1").tenant("acme").project("proj").session("s1").add();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Path temp;
        try {
            Future<Map<String, Object>> call = pool.submit(() -> dispatcher.invoke("p1", "exec_run", Map.of(
                    "command", "echo $$ > pid; exec sleep 1000", "waitMs", 600_000)));
            temp = work.resolveRoot(new ToolContext("p1", "s1", "acme", "proj", null), null);
            long pid = awaitPid(temp.resolve("pid"));

            dispatcher.processEnded(p);

            assertThat(call.get(1, TimeUnit.MINUTES)).containsEntry("status", "killed");
            awaitDeath(pid);
        } finally {
            pool.shutdownNow();
        }
        Await.until("p1's temp RootDir went", () -> !Files.exists(temp));
        assertThat(work.rootDirs("acme", "proj")).isEmpty();
    }

    @Test
    void callsRacingTheEndOfTheirProcessSucceedOrFailNotFoundAndLeaveNoRootDir() throws Exception {
        Queue<String> outcomes = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int i = 0; i < 30; i++) {
                String id = "p" + i;
                store.process(id).tenant("acme").project("proj").add();
                CountDownLatch first = new CountDownLatch(2);
                List<Future<?>> callers = new ArrayList<>();
                for (String tool : List.of("file_write", "exec_run")) {
                    Map<String, Object> params = tool.equals("file_write")
                            ? Map.of("path", "f.txt", "content", "x") : Map.of("command", "echo x > g.txt");
                    callers.add(pool.submit(() -> {
                        for (int n = 0; n < 10_000; n++) {
                            try {
                                dispatcher.invoke(id, tool, params);
                                outcomes.add("ok");
                            } catch (ToolException e) {
                                outcomes.add(e.code().wire());
                                if (e.getMessage().startsWith("No process")) {
                                    return null;        // the host forgot it: its calls are over
                                }
                            } finally {
                                first.countDown();
                            }
                        }
                        return null;
                    }));
                }
                first.await();
                // the race-free order: no new call finds the process, then its end waits for those running
                ProcessInfo info = store.find(id).orElseThrow();
                store.remove(id);
                dispatcher.processEnded(info);
                for (Future<?> f : callers) {
                    f.get(1, TimeUnit.MINUTES);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(outcomes).contains("ok").isSubsetOf("ok", "not_found");
        Await.until("every RootDir of the ended processes went", () -> work.rootDirs("acme", "proj").isEmpty());
        try (Stream<Path> left = Files.list(tmp.resolve("ws/acme/proj"))) {
            assertThat(left.map(f -> f.getFileName().toString())).containsOnly(".rootdirs");
        }
    }

    @Test
    void aCallThatFoundTheProcessBeforeItEndedLeavesNoTempRootDirOrJobWhenItReachesTheBackendAfter()
            throws Exception {
        CountDownLatch looked = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        // between the dispatcher's lookup of the process and its backend: where a call is when the host ends it
        WorkTargetDispatcher held = WorkTargetDispatcher.builder().processStore(store).backend(work).interceptor(chain -> {
            looked.countDown();
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return chain.proceed(chain.invocation());
        }).build();
        ProcessInfo p = store.process("p1").tenant("acme").project("proj").add();
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<Map<String, Object>> late = caller.submit(() -> held.invoke("p1", "exec_run",
                    Map.of("command", "echo $$ > pid; exec sleep 1000", "waitMs", 0)));
            looked.await();
            store.remove("p1");
            held.processEnded(p);
            go.countDown();
            assertThat(late.get(1, TimeUnit.MINUTES)).containsEntry("status", "running");
        } finally {
            go.countDown();
            caller.shutdownNow();
        }
        // the call made a new temp RootDir and started a job there after the end: both go when it returns
        assertThat(work.rootDirs("acme", "proj")).isEmpty();
        try (Stream<Path> left = Files.list(tmp.resolve("ws/acme/proj"))) {
            assertThat(left.map(f -> f.getFileName().toString())).containsOnly(".rootdirs");
        }
    }

    private static long awaitPid(Path pidFile) {
        return Long.parseLong(Await.line(pidFile));
    }

    private static void awaitDeath(long pid) {
        Await.until("the job's process " + pid + " ended", () -> !alive(pid));
    }
}
