package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.core.InMemoryProcessStore;

/** CLIENT and DAEMON routing through the dispatcher, end to end over loopback WebSockets. */
class DispatcherRoutingTest {
    private TestServer t;
    private InMemoryProcessStore store;
    private WorkTargetDispatcher dispatcher;

    @BeforeEach
    void start() throws Exception {
        t = new TestServer();
        store = new InMemoryProcessStore();
        store.process("p-1").tenant("acme").project("proj").session("s-1").user("alice").add();
        dispatcher = WorkTargetDispatcher.builder().processStore(store)
                .peers(t.server.peers()).build();
    }

    @AfterEach
    void stop() {
        t.close();
    }

    @Test
    void connectedFootMakesClientTheDefaultAndServesFileRead() throws Exception {
        t.started(WorkTargetClient.builder().uri(t.uri()).token(TestServer.FOOT_TOKEN).foot("acme", "proj", "s-1")
                .tools(List.of(TestServer.echoRead("foot"))));
        Map<String, Object> r = dispatcher.invoke("p-1", "file_read", Map.of("path", "README.md"));
        assertThat(r).containsEntry("content", "foot:README.md").containsEntry("processId", "p-1");
    }

    @Test
    void aFootWhoseTokenDoesNotGrantTheProjectIsNotReachedByAProcessOfItsSession() throws Exception {
        java.util.concurrent.atomic.AtomicInteger served = new java.util.concurrent.atomic.AtomicInteger();
        // a token for project 'other' only, connected for the session of p-1, a process of 'proj'
        t.started(WorkTargetClient.builder().uri(t.uri()).token(TestServer.OTHER_TOKEN).foot("acme", "other", "s-1")
                .tools(List.of(TestServer.tool("client_file_read", (p, c) -> {
                    served.incrementAndGet();
                    return Map.of("content", "forged");
                }))));

        assertThatThrownBy(() -> dispatcher.invoke("p-1", "file_read", Map.of("path", "README.md")))
                .isInstanceOfSatisfying(ToolException.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.FORBIDDEN);
                    assertThat(e.getMessage()).contains("may not serve project 'proj'", "[other]");
                });
        assertThat(served).as("nothing reached the foot").hasValue(0);
    }

    @Test
    void daemonTargetRoutesToTheNamedDaemonOfTheProject() throws Exception {
        t.daemon("build-box-01", List.of(TestServer.echoRead("box1")));
        t.daemon("build-box-02", List.of(TestServer.echoRead("box2")));
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "build-box-02"));
        assertThat(dispatcher.invoke("p-1", "file_read", Map.of("path", "a.txt")))
                .containsEntry("content", "box2:a.txt").containsEntry("processId", "p-1");
        assertThat(dispatcher.invoke("p-1", "work_target_get", Map.of()))
                .extractingByKey("daemons").isEqualTo(List.of("build-box-01", "build-box-02"));
    }

    @Test
    void daemonTargetStripsDirName() throws Exception {
        t.daemon("box", List.of(TestServer.tool("client_file_read", (p, c) -> Map.of("keys", List.copyOf(p.keySet())))));
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
        assertThat(dispatcher.invoke("p-1", "file_read", Map.of("path", "a", "dirName", "src")))
                .containsEntry("keys", List.of("path"));
    }

    @Test
    void offlineDaemonFailsWithAClearMessage() throws Exception {
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "gone"));
        assertThatThrownBy(() -> dispatcher.invoke("p-1", "file_read", Map.of("path", "a")))
                .isInstanceOf(ToolException.class).hasMessageContaining("'gone'").hasMessageContaining("offline")
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.OFFLINE);
    }

    @Test
    void daemonOfAnotherProjectIsNotReachable() throws Exception {
        store.process("p-2").tenant("acme").project("other").add();
        t.daemon("box", List.of(TestServer.echoRead("box")));
        dispatcher.invoke("p-2", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
        assertThatThrownBy(() -> dispatcher.invoke("p-2", "file_read", Map.of("path", "a")))
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.OFFLINE);
    }

    @Test
    void toolMissingFromTheDaemonManifestIsUnknownTool() throws Exception {
        t.daemon("box", List.of(TestServer.echoRead("box")));
        dispatcher.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
        assertThatThrownBy(() -> dispatcher.invoke("p-1", "exec_run", Map.of("command", "true")))
                .extracting(e -> ((ToolException) e).code()).isEqualTo(ErrorCode.UNKNOWN_TOOL);
    }
}
