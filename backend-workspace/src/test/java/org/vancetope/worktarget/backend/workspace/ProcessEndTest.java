package org.vancetope.worktarget.backend.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
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

    private static long awaitPid(Path pidFile) {
        return Long.parseLong(Await.line(pidFile));
    }

    private static void awaitDeath(long pid) {
        Await.until("the job's process " + pid + " ended", () -> !alive(pid));
    }
}
