package org.vancetope.worktarget.testkit.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.core.DispatchListener;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.ToolInvocation;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.internal.Schema;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.BackendToolProvider;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.SessionKey;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;
import org.vancetope.worktarget.spi.ToolLabel;
import org.vancetope.worktarget.spi.ToolSpec;
import org.vancetope.worktarget.testkit.FakePeers;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.testkit.RecordingListener;

class WorkTargetDispatcherTest {
    private static final DaemonKey BOX = new DaemonKey("acme", "proj", "box");

    private InMemoryProcessStore store;
    private FakePeers peers;
    private RecordingListener listener;
    private List<String> workCalls;

    @BeforeEach
    void setUp() {
        store = new InMemoryProcessStore();
        store.process("p1").tenant("acme").project("proj").session("s1").user("alice").add();
        peers = new FakePeers();
        listener = new RecordingListener();
        workCalls = new ArrayList<>();
    }

    @AfterEach
    void noLeaks() {
        peers.close();
        listener.assertBalanced();
    }

    /** A backend tool with the catalog's spec that echoes what it received. */
    private static BackendTool echo(String name) {
        return BackendTool.of(ToolCatalog.backend(name).orElseThrow(), (params, ctx) -> {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("ranAs", name);
            r.put("params", params);
            r.put("process", ctx.processId());
            return r;
        });
    }

    private static List<BackendTool> echoes(String prefix) {
        return ToolCatalog.wrappers().stream().map(w -> echo(prefix + w.name())).toList();
    }

    private BackendToolProvider workBackend() {
        List<BackendTool> tools = ToolCatalog.wrappers().stream().map(w -> {
            BackendTool inner = echo("work_" + w.name());
            return BackendTool.of(inner.spec(), (p, c) -> {
                workCalls.add(inner.spec().name());
                return inner.invoke(p, c);
            });
        }).toList();
        return provider("workspace", tools);
    }

    /** A provider of these tools under this name (shared with the other dispatcher tests of this package). */
    static BackendToolProvider provider(String name, List<BackendTool> tools) {
        return new BackendToolProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<BackendTool> tools() {
                return tools;
            }
        };
    }

    private WorkTargetDispatcher.Builder builder() {
        return WorkTargetDispatcher.builder().processStore(store).peers(peers)
                .backend(workBackend()).listener(listener).rootDirCatalog((t, p) -> List.of("docs", "src"));
    }

    private WorkTargetDispatcher dispatcher() {
        return builder().build();
    }

    private void target(WorkTarget t) {
        store.putEngineParam("p1", WorkTarget.ENGINE_PARAM_KEY, t.toMap());
    }

    private static void assertCode(ThrowingCallable call, ErrorCode code, String... fragments) {
        assertThatThrownBy(call).isInstanceOf(ToolException.class)
                .satisfies(e -> assertThat(((ToolException) e).code()).isEqualTo(code))
                .satisfies(e -> assertThat(e.getMessage()).contains(fragments));
    }

    // ---- CLIENT ----

    private List<FakePeers.RecordedCall> clientCalls() {
        return peers.calls().stream().filter(c -> c.peer() instanceof SessionKey).toList();
    }

    private List<FakePeers.RecordedCall> daemonCalls() {
        return peers.calls().stream().filter(c -> c.peer() instanceof DaemonKey).toList();
    }

    @Test
    void clientCallsRunTheClientBackendOfTheSessionsClient() throws ToolException {
        peers.client("acme", "s1", echoes("client_"));
        target(WorkTarget.CLIENT);
        Map<String, Object> r = dispatcher().invoke("p1", "file_read", Map.of("path", "a.txt"));
        assertThat(r).containsEntry("ranAs", "client_file_read").containsEntry("process", "p1");
        assertThat(clientCalls()).singleElement().satisfies(c -> {
            assertThat(c.peer()).isEqualTo(new SessionKey("acme", "s1"));
            assertThat(c.tool()).isEqualTo("client_file_read");
        });
    }

    @Test
    void clientCallsStripDirName() throws ToolException {
        peers.client("acme", "s1", echoes("client_"));
        target(WorkTarget.CLIENT);
        dispatcher().invoke("p1", "file_read", Map.of("path", "a.txt", "dirName", "src"));
        assertThat(clientCalls().get(0).params()).containsOnlyKeys("path");
    }

    @Test
    void clientWithoutABoundClientFailsOfflineAndSaysToSwitchOrReconnect() {
        target(WorkTarget.CLIENT);
        assertCode(() -> dispatcher().invoke("p1", "file_read", Map.of("path", "a")), ErrorCode.OFFLINE,
                "work_target_set", "Reconnect");
    }

    @Test
    void clientWithoutConnectivityConfiguredFailsOffline() {
        target(WorkTarget.CLIENT);
        WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store).build();
        assertCode(() -> d.invoke("p1", "file_read", Map.of("path", "a")), ErrorCode.OFFLINE, "work_target_set");
    }

    @Test
    void theDefaultTargetRoutesToTheClientWhenOneIsBound() throws ToolException {
        peers.client("acme", "s1", echoes("client_"));
        assertThat(dispatcher().invoke("p1", "file_list", Map.of())).containsEntry("ranAs", "client_file_list");
    }

    @Test
    void theDefaultTargetRoutesToWorkWhenNoClientIsBound() throws ToolException {
        assertThat(dispatcher().invoke("p1", "file_list", Map.of())).containsEntry("ranAs", "work_file_list");
    }

    @Test
    void clientCallsUseTheConfiguredClientTimeout() throws ToolException {
        peers.client("acme", "s1", echoes("client_"));
        target(WorkTarget.CLIENT);
        builder().clientTimeout(Duration.ofSeconds(7)).build().invoke("p1", "exec_kill", Map.of("id", "j"));
        assertThat(clientCalls().get(0).timeout()).isEqualTo(Duration.ofSeconds(7));
    }

    // ---- DAEMON ----

    @Test
    void daemonCallsGoToTheNamedDaemonOfTheProcesssProject() throws ToolException {
        peers.daemon(BOX, echoes("client_"));
        target(WorkTarget.daemon("box"));
        Map<String, Object> r = dispatcher().invoke("p1", "exec_run", Map.of("command", "ls"));
        assertThat(r).containsEntry("ranAs", "client_exec_run");
        assertThat(daemonCalls()).singleElement().satisfies(c -> {
            assertThat(c.peer()).isEqualTo(BOX);
            assertThat(c.tool()).isEqualTo("client_exec_run");
        });
    }

    @Test
    void daemonCallsStripDirName() throws ToolException {
        peers.daemon(BOX, echoes("client_"));
        target(WorkTarget.daemon("box"));
        dispatcher().invoke("p1", "file_write", Map.of("path", "a", "content", "x", "dirName", "src"));
        assertThat(daemonCalls().get(0).params()).containsOnlyKeys("path", "content");
    }

    @Test
    void daemonCallsUseTheDefaultTimeoutOfSixtySeconds() throws ToolException {
        peers.daemon(BOX, echoes("client_"));
        target(WorkTarget.daemon("box"));
        dispatcher().invoke("p1", "exec_status", Map.of("id", "j"));
        assertThat(daemonCalls().get(0).timeout()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void anExecRunThatWaitsLongerThanTheTimeoutGetsTheTimeoutPlusItsWait() throws ToolException {
        peers.daemon(BOX, echoes("client_"));
        peers.client("acme", "s1", echoes("client_"));
        target(WorkTarget.daemon("box"));
        dispatcher().invoke("p1", "exec_run", Map.of("command", "sleep 70", "waitMs", 100_000));
        target(WorkTarget.CLIENT);
        builder().clientTimeout(Duration.ofSeconds(7)).build().invoke("p1", "exec_run",
                Map.of("command", "sleep 70", "waitMs", 100_000));
        target(WorkTarget.daemon("box"));
        dispatcher().invoke("p1", "exec_run", Map.of("command", "x", "waitMs", Long.MAX_VALUE));

        assertThat(daemonCalls().get(0).timeout()).isEqualTo(Duration.ofSeconds(160));
        assertThat(clientCalls().get(0).timeout()).isEqualTo(Duration.ofSeconds(107));
        assertThat(daemonCalls().get(1).timeout()).as("a wait past a day counts as a day")
                .isEqualTo(Duration.ofSeconds(60).plusDays(1));
    }

    @Test
    void anOfflineDaemonFailsOfflineAndListsTheOnlineOnes() {
        peers.daemon(new DaemonKey("acme", "proj", "other"), echoes("client_"));
        target(WorkTarget.daemon("box"));
        assertCode(() -> dispatcher().invoke("p1", "file_list", Map.of()), ErrorCode.OFFLINE,
                "'box'", "offline", "other", "work_target_set");
        assertThat(daemonCalls()).isEmpty();
    }

    @Test
    void aDaemonOfAnotherProjectIsNotReachable() {
        peers.daemon(new DaemonKey("acme", "other-proj", "box"), echoes("client_"));
        target(WorkTarget.daemon("box"));
        assertCode(() -> dispatcher().invoke("p1", "file_list", Map.of()), ErrorCode.OFFLINE, "offline");
    }

    @Test
    void aStaleDaemonFailsWithItsOwnMessage() {
        peers.daemon(BOX, echoes("client_")).stale(BOX);
        target(WorkTarget.daemon("box"));
        assertCode(() -> dispatcher().invoke("p1", "file_list", Map.of()), ErrorCode.OFFLINE, "heartbeats");
        assertThat(daemonCalls()).isEmpty();
    }

    @Test
    void aDaemonThatDoesNotAnswerInTimeFailsWithTimeout() {
        CountDownLatch never = new CountDownLatch(1);
        BackendTool slow = BackendTool.of(ToolCatalog.backend("client_exec_run").orElseThrow(), (p, c) -> {
            try {
                never.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Map.of();
        });
        peers.daemon(BOX, List.of(slow));
        target(WorkTarget.daemon("box"));
        WorkTargetDispatcher d = builder().daemonTimeout(Duration.ofMillis(50)).build();
        assertCode(() -> d.invoke("p1", "exec_run", Map.of("command", "sleep 100")), ErrorCode.TIMEOUT, "box");
    }

    @Test
    void aToolMissingFromTheDaemonsManifestIsRefusedBeforeSending() {
        peers.daemon(BOX, List.of(echo("client_file_read")));
        target(WorkTarget.daemon("box"));
        assertCode(() -> dispatcher().invoke("p1", "exec_run", Map.of("command", "ls")), ErrorCode.UNKNOWN_TOOL,
                "client_exec_run", "client_file_read");
        assertThat(daemonCalls()).isEmpty();
    }

    @Test
    void daemonWithoutAnInvokerConfiguredFailsOffline() {
        target(WorkTarget.daemon("box"));
        WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store).build();
        assertCode(() -> d.invoke("p1", "file_list", Map.of()), ErrorCode.OFFLINE, "work_target_set");
    }

    @Test
    void aParameterTheWrapperDeclaresButTheDaemonIgnoresIsRejected() {
        ToolSpec old = new ToolSpec("client_file_read", "an older daemon", true, java.util.Set.of(ToolLabel.READ_ONLY),
                Schema.object().string("path", "p", true).build());
        peers.daemon(BOX, List.of(BackendTool.of(old, (p, c) -> Map.of())));
        target(WorkTarget.daemon("box"));
        assertCode(() -> dispatcher().invoke("p1", "file_read", Map.of("path", "a", "maxChars", 10)),
                ErrorCode.INVALID_PARAMS, "'maxChars'", "not supported", "Accepted here: path");
        assertThat(daemonCalls()).isEmpty();
    }

    private void registerDaemonWithReadSchema(Map<String, Object> schema) {
        ToolSpec open = new ToolSpec("client_file_read", "a daemon written from the protocol alone", true,
                java.util.Set.of(ToolLabel.READ_ONLY), schema);
        peers.daemon(BOX, List.of(BackendTool.of(open, (p, c) -> Map.of("got", p))));
        target(WorkTarget.daemon("box"));
    }

    @Test
    void aDaemonToolWithAnOpenSchemaAcceptsTheWrappersParameters() throws ToolException {
        registerDaemonWithReadSchema(Map.of("type", "object"));
        Map<String, Object> r = dispatcher().invoke("p1", "file_read", Map.of("path", "a.txt", "maxChars", 10));
        assertThat(r).containsEntry("got", Map.of("path", "a.txt", "maxChars", 10));
    }

    @Test
    void aDaemonToolWithAdditionalPropertiesTrueAcceptsTheWrappersParameters() throws ToolException {
        registerDaemonWithReadSchema(Map.of("type", "object", "properties", Map.of("path", Map.of("type", "string")),
                "additionalProperties", true));
        Map<String, Object> r = dispatcher().invoke("p1", "file_read", Map.of("path", "a.txt", "startLine", 2));
        assertThat(r).containsEntry("got", Map.of("path", "a.txt", "startLine", 2));
    }

    @Test
    void anOpenDaemonSchemaStillCatchesATypoAgainstTheWrappersParameters() {
        registerDaemonWithReadSchema(Map.of("type", "object"));
        assertCode(() -> dispatcher().invoke("p1", "file_read", Map.of("pth", "a.txt")), ErrorCode.INVALID_PARAMS,
                "Unknown parameter 'pth'", "path");
        assertThat(daemonCalls()).isEmpty();
    }

    @Test
    void aClosedDaemonSchemaWithoutPropertiesAcceptsNoParameters() {
        registerDaemonWithReadSchema(Map.of("type", "object", "additionalProperties", false));
        assertCode(() -> dispatcher().invoke("p1", "file_read", Map.of("path", "a.txt")), ErrorCode.INVALID_PARAMS,
                "'path'", "Accepted here: none");
    }

    @Test
    void processEndedReachesEveryBackendTheClientSideAndTheDaemonSide() {
        List<String> providerHeard = new ArrayList<>();
        BackendToolProvider provider = new BackendToolProvider() {
            @Override
            public String name() {
                return "recording";
            }

            @Override
            public List<BackendTool> tools() {
                return List.of();
            }

            @Override
            public void processEnded(ToolContext process) {
                providerHeard.add(process.processId());
            }
        };
        WorkTargetDispatcher d = builder().backend(provider).build();
        assertThat(d.processEnded("p1")).isTrue();
        assertThat(providerHeard).containsExactly("p1");
        assertThat(peers.endedProcesses()).extracting(ToolContext::processId).containsExactly("p1");
        assertThat(peers.endedProcesses().get(0).tenant()).isEqualTo("acme");
    }

    @Test
    void processEndedOfAnUnknownProcessTellsNobody() {
        assertThat(dispatcher().processEnded("nobody")).isFalse();
        assertThat(peers.endedProcesses()).isEmpty();
    }

    @Test
    void aBackendThatFailsOnProcessEndedDoesNotKeepTheOthersFromHearingIt() {
        BackendToolProvider failing = new BackendToolProvider() {
            @Override
            public String name() {
                return "failing";
            }

            @Override
            public List<BackendTool> tools() {
                return List.of();
            }

            @Override
            public void processEnded(ToolContext process) {
                throw new IllegalStateException("boom");
            }
        };
        builder().backend(failing).build().processEnded("p1");
        assertThat(peers.endedProcesses()).hasSize(1);
    }

    // ---- WORK ----

    @Test
    void workInjectsTheTargetNameAsDirName() throws ToolException {
        target(WorkTarget.work("src"));
        Map<String, Object> r = dispatcher().invoke("p1", "file_read", Map.of("path", "a"));
        assertThat(r).containsEntry("ranAs", "work_file_read");
        assertThat(r.get("params")).isEqualTo(Map.of("path", "a", "dirName", "src"));
    }

    @Test
    void workKeepsADirNameTheCallerPassed() throws ToolException {
        target(WorkTarget.work("src"));
        Map<String, Object> r = dispatcher().invoke("p1", "file_read", Map.of("path", "a", "dirName", "docs"));
        assertThat(r.get("params")).isEqualTo(Map.of("path", "a", "dirName", "docs"));
    }

    @Test
    void workOnTheTempRootDirPassesNoDirName() throws ToolException {
        target(WorkTarget.WORK_TEMP);
        Map<String, Object> r = dispatcher().invoke("p1", "file_read", Map.of("path", "a"));
        assertThat(r.get("params")).isEqualTo(Map.of("path", "a"));
    }

    @Test
    void workDoesNotInjectDirNameIntoToolsThatDoNotTakeIt() throws ToolException {
        target(WorkTarget.work("src"));
        Map<String, Object> r = dispatcher().invoke("p1", "exec_status", Map.of("id", "j1"));
        assertThat(r.get("params")).isEqualTo(Map.of("id", "j1"));
    }

    @Test
    void workWithoutAWorkspaceBackendFailsWithUnknownTool() {
        target(WorkTarget.WORK_TEMP);
        WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store).build();
        assertCode(() -> d.invoke("p1", "file_read", Map.of("path", "a")), ErrorCode.UNKNOWN_TOOL,
                "work_file_read", "work_target_set");
    }

    @Test
    void switchingToWorkWithoutAWorkspaceBackendIsRefusedAndTheTargetStays() throws ToolException {
        target(WorkTarget.daemon("box"));
        WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store).build();

        assertCode(() -> d.invoke("p1", "work_target_set", Map.of("kind", "WORK")), ErrorCode.INVALID_PARAMS,
                "no workspace backend", "CLIENT or DAEMON");
        assertThat(d.invoke("p1", "work_target_get", Map.of()).get("current"))
                .isEqualTo(WorkTarget.daemon("box").toMap());
    }

    // ---- parameter guard and lookups ----

    @Test
    void anUnknownParameterIsRejectedListingTheAcceptedOnes() {
        target(WorkTarget.WORK_TEMP);
        assertCode(() -> dispatcher().invoke("p1", "file_read", Map.of("path", "a", "encoding", "latin1")),
                ErrorCode.INVALID_PARAMS, "Unknown parameter 'encoding'",
                "path, paths, startLine, maxLines, maxChars, allowBinary, dirName");
        assertThat(workCalls).isEmpty();
    }

    @Test
    void aMissingRequiredParameterIsRejectedBeforeTheBackendRuns() {
        target(WorkTarget.WORK_TEMP);
        assertCode(() -> dispatcher().invoke("p1", "file_write", Map.of("path", "a")),
                ErrorCode.INVALID_PARAMS, "'content'");
        assertThat(workCalls).isEmpty();
    }

    @Test
    void anUnknownToolFailsListingTheAvailableTools() {
        assertCode(() -> dispatcher().invoke("p1", "file_explode", Map.of()), ErrorCode.UNKNOWN_TOOL,
                "file_explode", "file_read", "work_target_set");
    }

    @Test
    void backendNamesAreNotCallableThroughTheDispatcher() {
        assertCode(() -> dispatcher().invoke("p1", "work_file_read", Map.of("path", "a")), ErrorCode.UNKNOWN_TOOL,
                "work_file_read");
    }

    @Test
    void anUnknownProcessFailsNotFound() {
        assertCode(() -> dispatcher().invoke("ghost", "file_read", Map.of("path", "a")), ErrorCode.NOT_FOUND, "ghost");
    }

    @Test
    void nullParametersMeanNone() throws ToolException {
        target(WorkTarget.WORK_TEMP);
        assertThat(dispatcher().invoke("p1", "file_list", null)).containsEntry("ranAs", "work_file_list");
    }

    @Test
    void anUnexpectedBackendExceptionBecomesInternal() {
        BackendTool broken = BackendTool.of(ToolCatalog.backend("work_file_list").orElseThrow(), (p, c) -> {
            throw new IllegalStateException("boom at /secret/host/path");
        });
        WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store)
                .backend(provider("broken", List.of(broken))).listener(listener).build();
        assertThatThrownBy(() -> d.invoke("p1", "file_list", Map.of()))
                .isInstanceOf(ToolException.class)
                .satisfies(e -> assertThat(((ToolException) e).code()).isEqualTo(ErrorCode.INTERNAL))
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("/secret"));
    }

    @Test
    void twoBackendsOfferingTheSameToolFailTheBuildSayingHowToChoose() {
        assertThatThrownBy(() -> builder().backend(provider("copy", List.of(echo("work_file_read")))).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("work_file_read").hasMessageContaining("'workspace'").hasMessageContaining("'copy'");
    }

    @Test
    void nonPositiveTimeoutsAreRejected() {
        assertThatThrownBy(() -> builder().daemonTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder().clientTimeout(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    // ---- interceptors and listeners ----

    @Test
    void interceptorsRunInTheOrderAddedAndTheBackendLast() throws ToolException {
        List<String> order = new ArrayList<>();
        WorkTargetDispatcher d = builder()
                .interceptor(chain -> {
                    order.add("first");
                    return chain.proceed(chain.invocation());
                })
                .interceptor(chain -> {
                    order.add("second");
                    Map<String, Object> r = chain.proceed(chain.invocation());
                    order.add("backend returned " + r.get("ranAs"));
                    return r;
                }).build();
        d.invoke("p1", "file_list", Map.of());
        assertThat(order).containsExactly("first", "second", "backend returned work_file_list");
    }

    @Test
    void anInterceptorSeesTheCallersInvocation() throws ToolException {
        List<ToolInvocation> seen = new ArrayList<>();
        target(WorkTarget.work("src"));
        builder().interceptor(chain -> {
            seen.add(chain.invocation());
            return chain.proceed(chain.invocation());
        }).build().invoke("p1", "file_read", Map.of("path", "a"));
        assertThat(seen).singleElement().satisfies(i -> {
            assertThat(i.tool()).isEqualTo("file_read");
            assertThat(i.backendTool()).isEqualTo("work_file_read");
            assertThat(i.target()).isEqualTo(WorkTarget.work("src"));
            assertThat(i.params()).isEqualTo(Map.of("path", "a"));
            assertThat(i.context().tenant()).isEqualTo("acme");
        });
    }

    @Test
    void aBackendInterceptorSeesTheRoutedInvocation() throws ToolException {
        List<ToolInvocation> seen = new ArrayList<>();
        target(WorkTarget.work("src"));
        builder().backendInterceptor(chain -> {
            seen.add(chain.invocation());
            return chain.proceed(chain.invocation());
        }).build().invoke("p1", "file_read", Map.of("path", "a"));
        assertThat(seen).singleElement().satisfies(i -> {
            assertThat(i.backendTool()).isEqualTo("work_file_read");
            assertThat(i.params()).containsEntry("dirName", "src").containsEntry("path", "a");
        });
    }

    @Test
    void userInterceptorsRunBeforeRoutingAndBackendInterceptorsAfterIt() throws ToolException {
        List<String> order = new ArrayList<>();
        peers.daemon(BOX, echoes("client_"));
        target(WorkTarget.daemon("box"));
        builder().backendInterceptor(chain -> {
            order.add("backend, lookups so far " + peers.lookups());
            return chain.proceed(chain.invocation());
        }).interceptor(chain -> {
            order.add("user, lookups so far " + peers.lookups());
            return chain.proceed(chain.invocation());
        }).build().invoke("p1", "file_read", Map.of("path", "a"));
        assertThat(order).containsExactly("user, lookups so far 0", "backend, lookups so far 1");
    }

    @Test
    void aDaemonCallLooksItsPeerUpOnce() throws ToolException {
        peers.daemon(BOX, echoes("client_"));
        target(WorkTarget.daemon("box"));
        dispatcher().invoke("p1", "file_read", Map.of("path", "a"));
        assertThat(peers.lookups()).isEqualTo(1);
        assertThat(daemonCalls()).hasSize(1);
    }

    @Test
    void anInterceptorSeesAnOfflineTargetAndMayFallBackToWork() throws ToolException {
        target(WorkTarget.daemon("box"));
        List<ErrorCode> seen = new ArrayList<>();
        Map<String, Object> r = builder().interceptor(chain -> {
            try {
                return chain.proceed(chain.invocation());
            } catch (ToolException e) {
                seen.add(e.code());
                return chain.proceed(chain.invocation().withTarget(WorkTarget.WORK_TEMP));
            }
        }).build().invoke("p1", "file_read", Map.of("path", "a"));
        assertThat(seen).containsExactly(ErrorCode.OFFLINE);
        assertThat(r).containsEntry("ranAs", "work_file_read");
        assertThat(listener.events()).extracting(RecordingListener.Event::kind).containsExactly("started", "finished");
    }

    @Test
    void parametersAnInterceptorAddsAreGuarded() {
        WorkTargetDispatcher d = builder().interceptor(chain -> chain.proceed(
                chain.invocation().withParams(Map.of("path", "a", "bogus", 1)))).build();
        assertCode(() -> d.invoke("p1", "file_read", Map.of("path", "a")), ErrorCode.INVALID_PARAMS,
                "Unknown parameter 'bogus'");
        assertThat(workCalls).isEmpty();
    }

    @Test
    void parametersABackendInterceptorAddsAreGuardedAgain() {
        WorkTargetDispatcher d = builder().backendInterceptor(chain -> chain.proceed(
                chain.invocation().withParams(Map.of("path", "a", "bogus", 1)))).build();
        assertCode(() -> d.invoke("p1", "file_read", Map.of("path", "a")), ErrorCode.INVALID_PARAMS,
                "Unknown parameter 'bogus'");
        assertThat(workCalls).isEmpty();
    }

    @Test
    void anInterceptorMayRewriteParameters() throws ToolException {
        Map<String, Object> r = builder().interceptor(chain -> chain.proceed(
                chain.invocation().withParams(Map.of("path", "rewritten")))).build()
                .invoke("p1", "file_list", Map.of("path", "original"));
        assertThat(r.get("params")).isEqualTo(Map.of("path", "rewritten"));
    }

    @Test
    void anInterceptorMayShortCircuit() throws ToolException {
        Map<String, Object> r = builder().interceptor(chain -> Map.of("cached", true)).build()
                .invoke("p1", "file_list", Map.of());
        assertThat(r).containsEntry("cached", true);
        assertThat(workCalls).isEmpty();
    }

    @Test
    void aBackendInterceptorCannotRerouteACall() {
        WorkTargetDispatcher d = builder().backendInterceptor(chain -> chain.proceed(
                chain.invocation().withTarget(WorkTarget.CLIENT))).build();
        assertThatThrownBy(() -> d.invoke("p1", "file_list", Map.of())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("only the parameters");
    }

    @Test
    void anInterceptorCannotNameABackendToolThatDoesNotFollowFromTheTarget() {
        WorkTargetDispatcher d = builder().interceptor(chain -> chain.proceed(new ToolInvocation("file_list",
                WorkTarget.CLIENT, "work_file_list", Map.of(), chain.invocation().context()))).build();
        assertThatThrownBy(() -> d.invoke("p1", "file_list", Map.of())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("withTarget");
    }

    @Test
    void anInterceptorCannotChangeTheCallingProcess() {
        WorkTargetDispatcher d = builder().interceptor(chain -> chain.proceed(new ToolInvocation("file_list",
                chain.invocation().target(), "work_file_list", Map.of(), new ToolContext("p2", null, "acme", "proj",
                null)))).build();
        assertThatThrownBy(() -> d.invoke("p1", "file_list", Map.of())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theListenerSeesStartAndFinishWithToolTargetAndDuration() throws ToolException {
        target(WorkTarget.work("src"));
        dispatcher().invoke("p1", "file_list", Map.of());
        assertThat(listener.events()).extracting(RecordingListener.Event::kind).containsExactly("started", "finished");
        RecordingListener.Event finished = listener.events().get(1);
        assertThat(finished.invocation().tool()).isEqualTo("file_list");
        assertThat(finished.invocation().target()).isEqualTo(WorkTarget.work("src"));
        assertThat(finished.duration()).isPositive();
    }

    @Test
    void theListenerSeesABackendFailure() {
        BackendTool failing = BackendTool.of(ToolCatalog.backend("work_file_list").orElseThrow(), (p, c) -> {
            throw new ToolException(ErrorCode.NOT_FOUND, "no such dir");
        });
        WorkTargetDispatcher d = WorkTargetDispatcher.builder().processStore(store)
                .backend(provider("failing", List.of(failing))).listener(listener).build();
        assertThatThrownBy(() -> d.invoke("p1", "file_list", Map.of())).isInstanceOf(ToolException.class);
        assertThat(listener.events()).extracting(RecordingListener.Event::kind).containsExactly("started", "failed");
        assertThat(listener.events().get(1).failure().code()).isEqualTo(ErrorCode.NOT_FOUND);
    }

    @Test
    void theListenerSeesARoutingFailureAfterTheStart() {
        target(WorkTarget.CLIENT);
        peers.disconnect(new SessionKey("acme", "s1"));
        assertThatThrownBy(() -> dispatcher().invoke("p1", "file_list", Map.of())).isInstanceOf(ToolException.class);
        assertThat(listener.events()).extracting(RecordingListener.Event::kind).containsExactly("started", "failed");
        assertThat(listener.events().get(1).failure().code()).isEqualTo(ErrorCode.OFFLINE);
        assertThat(listener.events().get(1).invocation().target()).isEqualTo(WorkTarget.CLIENT);
    }

    @Test
    void theListenerSeesAnUnknownProcess() {
        assertCode(() -> dispatcher().invoke("nobody", "file_list", Map.of()), ErrorCode.NOT_FOUND, "'nobody'",
                "ProcessStore");
        assertThat(listener.events()).singleElement().satisfies(e -> {
            assertThat(e.kind()).isEqualTo("failed");
            assertThat(e.failure().code()).isEqualTo(ErrorCode.NOT_FOUND);
            assertThat(e.invocation().context().processId()).isEqualTo("nobody");
        });
    }

    @Test
    void theListenerSeesAnUnknownToolWithoutAStart() {
        assertCode(() -> dispatcher().invoke("p1", "file_teleport", Map.of()), ErrorCode.UNKNOWN_TOOL, "file_read");
        assertThat(listener.events()).extracting(RecordingListener.Event::kind).containsExactly("failed");
    }

    @Test
    void aThrowingListenerDoesNotBreakTheCall() throws ToolException {
        DispatchListener throwing = new DispatchListener() {
            @Override
            public void callStarted(ToolInvocation invocation) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void callFinished(ToolInvocation invocation, Duration duration, Map<String, Object> result) {
                throw new IllegalStateException("listener bug");
            }
        };
        WorkTargetDispatcher d = builder().listener(throwing).build();
        assertThat(d.invoke("p1", "file_list", Map.of())).containsEntry("ranAs", "work_file_list");
    }

    // ---- meta-tools ----

    @Test
    void workTargetGetReportsTheCurrentTargetAndTheAlternatives() throws ToolException {
        peers.client("acme", "s1", echoes("client_"));
        peers.daemon(BOX, echoes("client_"));
        peers.daemon(new DaemonKey("acme", "proj", "stale"), echoes("client_")).stale(new DaemonKey("acme", "proj", "stale"));
        Map<String, Object> r = dispatcher().invoke("p1", "work_target_get", Map.of());
        assertThat(r).containsEntry("current", Map.of("kind", "CLIENT"))
                .containsEntry("explicit", false)
                .containsEntry("clientBound", true)
                .containsEntry("rootDirs", List.of("docs", "src"))
                .containsEntry("daemons", List.of("box"));
    }

    @Test
    void aBackendThatIsARootDirCatalogListsTheRootDirsWithoutASecondCall() throws ToolException {
        abstract class CatalogBackend implements BackendToolProvider, org.vancetope.worktarget.spi.RootDirCatalog {
        }
        BackendToolProvider work = workBackend();
        CatalogBackend both = new CatalogBackend() {
            @Override
            public String name() {
                return "workspace";
            }

            @Override
            public List<BackendTool> tools() {
                return work.tools();
            }

            @Override
            public List<String> rootDirNames(String tenant, String project) {
                return List.of("from-the-backend");
            }
        };
        Map<String, Object> r = WorkTargetDispatcher.builder().processStore(store).backend(both).listener(listener)
                .build().invoke("p1", "work_target_get", Map.of());
        assertThat(r).containsEntry("rootDirs", List.of("from-the-backend"));
    }

    @Test
    void workTargetGetMarksAnExplicitTarget() throws ToolException {
        target(WorkTarget.work("src"));
        Map<String, Object> r = dispatcher().invoke("p1", "work_target_get", Map.of());
        assertThat(r).containsEntry("current", Map.of("kind", "WORK", "targetName", "src")).containsEntry("explicit", true);
    }

    @Test
    void workTargetSetStoresTheTargetAndReturnsPreviousAndCurrent() throws ToolException {
        WorkTargetDispatcher d = dispatcher();
        Map<String, Object> r = d.invoke("p1", "work_target_set", Map.of("kind", "daemon", "targetName", "box"));
        assertThat(r).containsEntry("previous", Map.of("kind", "WORK"))
                .containsEntry("current", Map.of("kind", "DAEMON", "targetName", "box"));
        assertThat(d.targets().current("p1")).isEqualTo(WorkTarget.daemon("box"));
    }

    @Test
    void workTargetSetSwitchesToADaemonThatIsNotConnectedAndSaysSoInAHint() throws ToolException {
        peers.daemon(BOX, echoes("client_"));
        Map<String, Object> r = dispatcher().invoke("p1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "off"));
        assertThat(r).containsEntry("current", Map.of("kind", "DAEMON", "targetName", "off"));
        assertThat((String) r.get("hint")).contains("No daemon 'off' is connected in project 'proj'",
                "connected: " + BOX.name(), "fail offline");
    }

    @Test
    void workTargetSetToAConnectedDaemonHasNoHint() throws ToolException {
        peers.daemon(BOX, echoes("client_"));
        Map<String, Object> r = dispatcher().invoke("p1", "work_target_set",
                Map.of("kind", "DAEMON", "targetName", BOX.name()));
        assertThat(r).doesNotContainKey("hint");
    }

    @Test
    void workTargetSetToARootDirThatDoesNotExistNamesThoseThatDo() throws ToolException {
        Map<String, Object> r = dispatcher().invoke("p1", "work_target_set", Map.of("kind", "WORK", "targetName", "scr"));
        assertThat(r).containsEntry("current", Map.of("kind", "WORK", "targetName", "scr"));
        assertThat((String) r.get("hint")).contains("No RootDir 'scr' exists", "existing: docs, src", "not_found");
    }

    @Test
    void workTargetSetToAnExistingRootDirOrATemporaryOneHasNoHint() throws ToolException {
        assertThat(dispatcher().invoke("p1", "work_target_set", Map.of("kind", "WORK", "targetName", "src")))
                .doesNotContainKey("hint");
        assertThat(dispatcher().invoke("p1", "work_target_set", Map.of("kind", "WORK"))).doesNotContainKey("hint");
    }

    @Test
    void workTargetSetToClientSaysWhenNoClientIsConnected() throws ToolException {
        Map<String, Object> r = dispatcher().invoke("p1", "work_target_set", Map.of("kind", "CLIENT"));
        assertThat((String) r.get("hint")).contains("No client is connected to this process's session");
        peers.client("acme", "s1", echoes("client_"));
        assertThat(dispatcher().invoke("p1", "work_target_set", Map.of("kind", "CLIENT"))).doesNotContainKey("hint");
    }

    @Test
    void workTargetSetRejectsAnUnknownKindListingTheValidOnes() {
        assertCode(() -> dispatcher().invoke("p1", "work_target_set", Map.of("kind", "MOON")), ErrorCode.INVALID_PARAMS,
                "CLIENT, WORK, DAEMON");
    }

    @Test
    void workTargetSetRejectsAMissingKind() {
        assertCode(() -> dispatcher().invoke("p1", "work_target_set", Map.of("targetName", "x")),
                ErrorCode.INVALID_PARAMS, "'kind'");
    }

    @Test
    void workTargetSetRejectsADaemonWithoutName() {
        assertCode(() -> dispatcher().invoke("p1", "work_target_set", Map.of("kind", "DAEMON")), ErrorCode.INVALID_PARAMS,
                "targetName");
    }

    @Test
    void workTargetSetRejectsAnInvalidDaemonName() {
        assertCode(() -> dispatcher().invoke("p1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "Box/1")),
                ErrorCode.INVALID_PARAMS, "a-z, 0-9");
    }

    @Test
    void workTargetSetRejectsARootDirNameThatIsAPath() {
        assertCode(() -> dispatcher().invoke("p1", "work_target_set",
                Map.of("kind", "WORK", "targetName", "../otherProject/x")), ErrorCode.INVALID_PARAMS, "single name");
        assertThat(store.find("p1").orElseThrow().engineParams()).doesNotContainKey("workTarget");
    }

    @Test
    void workTargetSetRejectsUnknownParameters() {
        assertCode(() -> dispatcher().invoke("p1", "work_target_set", Map.of("kind", "WORK", "dirName", "x")),
                ErrorCode.INVALID_PARAMS, "Unknown parameter 'dirName'", "kind, targetName");
    }

    @Test
    void workTargetSetForAClientDropsTheName() throws ToolException {
        Map<String, Object> r = dispatcher().invoke("p1", "work_target_set", Map.of("kind", "CLIENT", "targetName", "x"));
        assertThat(r).containsEntry("current", Map.of("kind", "CLIENT"));
    }

    @Test
    void metaToolsGoThroughTheInterceptorsAndListener() throws ToolException {
        List<String> seen = new ArrayList<>();
        builder().interceptor(chain -> {
            seen.add(chain.invocation().tool());
            return chain.proceed(chain.invocation());
        }).build().invoke("p1", "work_target_get", Map.of());
        assertThat(seen).containsExactly("work_target_get");
        assertThat(listener.events()).extracting(RecordingListener.Event::kind).containsExactly("started", "finished");
    }

    // ---- host tools ----

    private static BackendTool hostTool(String name) {
        ToolSpec spec = new ToolSpec(name, "a host tool", true, java.util.Set.of(ToolLabel.SIDE_EFFECT),
                Schema.object().string("what", "w", true).build());
        return BackendTool.of(spec, (p, c) -> Map.of("host", name, "what", p.get("what"), "process", c.processId()));
    }

    @Test
    void aCallOnTheDefaultClientTargetLooksTheClientUpOnce() throws ToolException {
        peers.client("acme", "s1", echoes("client_"));
        dispatcher().invoke("p1", "file_read", Map.of("path", "a"));
        assertThat(peers.lookups()).isEqualTo(1);
        assertThat(clientCalls()).hasSize(1);
    }

    @Test
    void aCallOnAStoredClientTargetLooksTheClientUpOnce() throws ToolException {
        peers.client("acme", "s1", echoes("client_"));
        target(WorkTarget.CLIENT);
        dispatcher().invoke("p1", "file_read", Map.of("path", "a"));
        assertThat(peers.lookups()).isEqualTo(1);
    }

    @Test
    void aHostToolRunsAsItIsWhateverTheTarget() throws ToolException {
        target(WorkTarget.daemon("box"));
        Map<String, Object> r = builder().hostTool(hostTool("client_file_upload")).build()
                .invoke("p1", "client_file_upload", Map.of("what", "x"));
        assertThat(r).containsEntry("host", "client_file_upload").containsEntry("process", "p1");
        assertThat(daemonCalls()).isEmpty();
    }

    private static BackendTool peerReporting(String name) {
        ToolSpec spec = new ToolSpec(name, "a host tool", true, java.util.Set.of(ToolLabel.SIDE_EFFECT),
                Schema.object().build());
        return BackendTool.of(spec, (p, c) -> Map.of("peer", c.peer().map(e -> e.describe()).orElse("none")));
    }

    @Test
    void aHostToolGetsTheEndpointOfTheDaemonItsTargetNames() throws ToolException {
        peers.daemon(BOX, echoes("client_"));
        target(WorkTarget.daemon("box"));
        Map<String, Object> r = builder().hostTool(peerReporting("client_file_upload")).build()
                .invoke("p1", "client_file_upload", Map.of());
        assertThat(r).containsEntry("peer", "daemon 'box' of project 'proj'");
        assertThat(peers.lookups()).isEqualTo(1);
    }

    @Test
    void aHostToolOfAWorkTargetGetsTheEndpointOfTheSessionsClient() throws ToolException {
        peers.client("acme", "s1", echoes("client_"));
        target(WorkTarget.work("src"));
        Map<String, Object> r = builder().hostTool(peerReporting("client_file_upload")).build()
                .invoke("p1", "client_file_upload", Map.of());
        assertThat(r).containsEntry("peer", "the client of session 's1'");
    }

    @Test
    void aHostToolGetsNoEndpointWhenItsPeerIsNotConnected() throws ToolException {
        target(WorkTarget.daemon("box"));
        Map<String, Object> r = builder().hostTool(peerReporting("client_file_upload")).build()
                .invoke("p1", "client_file_upload", Map.of());
        assertThat(r).containsEntry("peer", "none");
    }

    @Test
    void aHostToolsParametersAreGuardedByItsOwnSpec() {
        WorkTargetDispatcher d = builder().hostTool(hostTool("client_file_upload")).build();
        assertCode(() -> d.invoke("p1", "client_file_upload", Map.of("what", "x", "extra", 1)), ErrorCode.INVALID_PARAMS,
                "Unknown parameter 'extra'", "Accepted: what");
        assertCode(() -> d.invoke("p1", "client_file_upload", Map.of()), ErrorCode.INVALID_PARAMS, "'what'");
    }

    @Test
    void aHostToolGoesThroughTheInterceptorsAndTheListener() throws ToolException {
        List<String> seen = new ArrayList<>();
        builder().hostTool(hostTool("client_file_upload")).interceptor(chain -> {
            seen.add(chain.invocation().backendTool());
            return chain.proceed(chain.invocation());
        }).build().invoke("p1", "client_file_upload", Map.of("what", "x"));
        assertThat(seen).containsExactly("client_file_upload");
        assertThat(listener.events()).extracting(RecordingListener.Event::kind).containsExactly("started", "finished");
    }

    @Test
    void aHostToolNamedLikeAWrapperFailsTheBuild() {
        assertThatThrownBy(() -> builder().hostTool(hostTool("file_read")).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("file_read");
    }

    @Test
    void twoHostToolsOfTheSameNameFailTheBuild() {
        assertThatThrownBy(() -> builder().hostTool(hostTool("x_tool")).hostTool(hostTool("x_tool")).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("x_tool");
    }

    @Test
    void unknownToolMessagesListTheHostTools() {
        WorkTargetDispatcher d = builder().hostTool(hostTool("client_file_upload")).build();
        assertCode(() -> d.invoke("p1", "nope", Map.of()), ErrorCode.UNKNOWN_TOOL, "client_file_upload");
    }
}
