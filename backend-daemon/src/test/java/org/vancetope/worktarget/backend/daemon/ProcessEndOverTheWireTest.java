package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.testfixtures.Await;
import org.vancetope.worktarget.core.InMemoryProcessStore;

/**
 * The end of a process crosses the wire: with the {@code process.end} capability the server tells the
 * project's daemons, and a daemon ends the jobs of that process's own scope. Real loopback sockets, a
 * real {@link LocalBackend} on the daemon side, real job processes.
 */
@EnabledOnOs(OS.LINUX)
class ProcessEndOverTheWireTest {
    @TempDir
    Path dir;
    private TestServer t;
    private InMemoryProcessStore store;
    private WorkTargetDispatcher dispatcher;
    private LocalBackend local;

    @BeforeEach
    void start() throws Exception {
        t = new TestServer();
        store = new InMemoryProcessStore();
        dispatcher = WorkTargetDispatcher.builder().processStore(store).peers(t.server.peers()).build();
        local = LocalBackend.builder().workDirectory(dir).execSettings(ExecSettings.builder().killGrace(Duration.ofMillis(200)).build())
                .build();
    }

    @AfterEach
    void stop() {
        t.close();
        local.close();
    }

    private ProcessInfo processOnTheDaemon(String id) {
        ProcessInfo p = store.process(id).tenant("acme").project("proj").add();
        store.putEngineParam(id, WorkTarget.ENGINE_PARAM_KEY, WorkTarget.daemon("box").toMap());
        return p;
    }

    private long startSleeper(String processId) throws Exception {
        dispatcher.invoke(processId, "exec_run", Map.of("command", "echo $$ > " + processId + ".pid; exec sleep 1000",
                "waitMs", 0));
        return Long.parseLong(Await.line(dir.resolve(processId + ".pid")));
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    @Test
    void aDaemonEndsTheJobsOfAProcessWhenTheServerSaysItEnded() throws Exception {
        t.started(t.daemonBuilder("box", local.tools()).processEndHook(local::processEnded));
        ProcessInfo p = processOnTheDaemon("p1");
        ProcessInfo other = processOnTheDaemon("p2");
        long pid = startSleeper("p1");
        long bystander = startSleeper("p2");
        dispatcher.processEnded(p);
        Await.until("the ended process's job " + pid + " ended", () -> !alive(pid));
        assertThat(alive(bystander)).as("another process's job").isTrue();
        dispatcher.processEnded(other);
    }

    @Test
    void onlyTheDaemonsOfTheProcesssProjectAreTold() throws Exception {
        List<ToolContext> heard = new CopyOnWriteArrayList<>();
        t.started(t.daemonBuilder("box", local.tools()).processEndHook(heard::add));
        t.started(WorkTargetClient.builder().uri(t.uri()).token(TestServer.OTHER_TOKEN).daemon("acme", "other", "box")
                .tools(local.tools()).processEndHook(c -> heard.add(new ToolContext("WRONG", null, "x", "x", null))));
        dispatcher.processEnded(processOnTheDaemon("p1"));
        Await.until("the project's daemon heard of it", () -> !heard.isEmpty());
        Thread.sleep(200); // an absence cannot be awaited: give the other project's daemon time to be told wrongly
        assertThat(heard).extracting(ToolContext::processId).containsExactly("p1");
        assertThat(heard.get(0).project()).isEqualTo("proj");
    }

    @Test
    void aDaemonWithoutTheHookDoesNotOfferTheCapabilityAndIsNotTold() throws Exception {
        t.started(t.daemonBuilder("box", local.tools()));
        ProcessInfo p = processOnTheDaemon("p1");
        long pid = startSleeper("p1");
        dispatcher.processEnded(p);
        Thread.sleep(300); // an absence cannot be awaited: time for a wrong end of the job to show
        assertThat(alive(pid)).as("a daemon that did not ask to hear of process ends keeps the job").isTrue();
        local.processEnded(ToolContext.of(p));
    }
}
