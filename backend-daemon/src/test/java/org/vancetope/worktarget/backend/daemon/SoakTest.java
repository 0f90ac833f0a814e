package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.testfixtures.Await;
import org.vancetope.worktarget.core.InMemoryProcessStore;

/**
 * A long-lived server under many short-lived processes, bounded by count: 5,000 mixed calls (file
 * tools and jobs, on WORK and on a daemon over a loopback WebSocket), 250 processes that each end
 * through the dispatcher. Afterwards RootDirs, job output files, job processes, threads and file
 * descriptors are back to where they were (within a small, stated slack for pool threads), and the
 * counts are printed for the record.
 */
@EnabledOnOs(OS.LINUX)
class SoakTest {
    private static final int PROCESSES = 250;
    private static final int CALLS_PER_PROCESS = 20;

    @TempDir
    Path tmp;
    private TestServer t;
    private WorkspaceBackend work;
    private LocalBackend local;
    private InMemoryProcessStore store;
    private WorkTargetDispatcher dispatcher;

    @BeforeEach
    void start() throws Exception {
        ExecSettings exec = ExecSettings.builder().killGrace(Duration.ofMillis(200)).build();
        work = WorkspaceBackend.builder().workspaceRoot(tmp.resolve("ws")).homesRoot(tmp.resolve("homes"))
                .hostEnvironment(Map.of("PATH", "/usr/bin:/bin")).execSettings(exec).build();
        local = LocalBackend.builder().workDirectory(Files.createDirectories(tmp.resolve("daemon"))).execSettings(exec)
                .build();
        t = new TestServer();
        t.started(t.daemonBuilder("box", local.tools()).processEndHook(local::processEnded));
        store = new InMemoryProcessStore();
        dispatcher = WorkTargetDispatcher.builder().processStore(store).backend(work)
                .peers(t.server.peers()).build();
    }

    @AfterEach
    void stop() {
        t.close();
        local.close();
        work.close();
    }

    private static long openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    private static int threads() {
        return Thread.getAllStackTraces().size(); // live threads (java.base: tests run inside the module)
    }

    /** Live threads by name with digits removed, for the record when the thread count grows. */
    private static Map<String, Long> threadNames() {
        return Thread.getAllStackTraces().keySet().stream().collect(java.util.stream.Collectors.groupingBy(
                th -> th.getName().replaceAll("[0-9]+", "#"), java.util.TreeMap::new,
                java.util.stream.Collectors.counting()));
    }

    private static long jobProcesses() {
        return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).count();
    }

    private long jobOutputFiles() throws IOException {
        long n = 0;
        for (Path root : List.of(tmp.resolve("ws"), tmp.resolve("daemon"))) {
            try (Stream<Path> s = Files.walk(root)) {
                n += s.filter(p -> p.toString().contains("/.worktarget/exec/") && Files.isRegularFile(p)).count();
            }
        }
        return n;
    }

    /** Runs one process's calls and ends it; returns how many RootDirs the project had just before the end. */
    private int oneProcess(int i) throws ToolException {
        String id = "soak-" + i;
        ProcessInfo p = store.process(id).tenant("acme").project("proj").add();
        if ((i & 1) == 1) {
            store.putEngineParam(id, WorkTarget.ENGINE_PARAM_KEY, WorkTarget.daemon("box").toMap());
        }
        for (int c = 0; c < CALLS_PER_PROCESS; c++) {
            String f = "p" + i + "/f" + (c % 3) + ".txt";
            switch (c % 5) {
                case 0 -> dispatcher.invoke(id, "file_write", Map.of("path", f, "content", "line " + c + "\n"));
                case 1 -> dispatcher.invoke(id, "file_read", Map.of("path", "p" + i + "/f0.txt"));
                case 2 -> dispatcher.invoke(id, "file_grep", Map.of("pattern", "line", "path", "p" + i));
                case 3 -> dispatcher.invoke(id, "exec_run", Map.of("command", "echo " + c));
                default -> dispatcher.invoke(id, "file_list", Map.of("path", "."));
            }
        }
        // one job still running when the process ends: its end must end the job too
        dispatcher.invoke(id, "exec_run", Map.of("command", "exec sleep 1000", "waitMs", 0));
        int rootDirs = work.rootDirs("acme", "proj").size();
        dispatcher.processEnded(p);
        store.remove(id);
        return rootDirs;
    }

    @Test
    void fiveThousandMixedCallsOfShortLivedProcessesLeaveNothingBehind() throws Exception {
        // warm up pools and connections on both kinds (WORK and the daemon), so that the baseline holds
        // their threads: the daemon client's fixed worker pool, the exec engines' spawner and io threads
        oneProcess(-2);
        oneProcess(-1);
        awaitNoJobProcesses();
        int threadsBefore = threads();
        Map<String, Long> namesBefore = threadNames();
        long fdsBefore = openFds();
        int rootDirsBefore = work.rootDirs("acme", "proj").size();

        List<Integer> rootDirsBeforeEnd = new ArrayList<>();
        for (int i = 0; i < PROCESSES; i++) {
            int live = oneProcess(i);
            if (i % 50 == 48) {
                rootDirsBeforeEnd.add(live);
            }
        }
        awaitNoJobProcesses();

        int threadsAfter = threads();
        long fdsAfter = openFds();
        int rootDirsAfter = work.rootDirs("acme", "proj").size();
        long outputs = jobOutputFiles();
        System.out.printf("soak: %d calls in %d processes; RootDirs %d -> %d (before a WORK process ended: %s); job output files %d; "
                        + "job processes %d; threads %d -> %d; fds %d -> %d%n", PROCESSES * (CALLS_PER_PROCESS + 1),
                PROCESSES, rootDirsBefore, rootDirsAfter, rootDirsBeforeEnd, outputs, jobProcesses(), threadsBefore,
                threadsAfter, fdsBefore, fdsAfter);
        assertThat(rootDirsBeforeEnd).as("a WORK process had its temp RootDir until it ended")
                .allMatch(n -> n == rootDirsBefore + 1);
        assertThat(rootDirsAfter).as("temp RootDirs of ended processes").isEqualTo(rootDirsBefore);
        assertThat(outputs).as("job output files of ended processes").isZero();
        assertThat(jobProcesses()).as("job processes").isZero();
        // pools may hold a few idle threads and their fds (e.g. epoll) more than after one warm-up process
        assertThat(threadsAfter).as("threads by name, before %s, after %s", namesBefore, threadNames()).isLessThanOrEqualTo(threadsBefore + 8);
        assertThat(fdsAfter).as("file descriptors").isLessThanOrEqualTo(fdsBefore + 16);
    }

    private static void awaitNoJobProcesses() {
        Await.until("every job process ended", () -> jobProcesses() == 0);
    }
}
