package consumer;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.ProcessInfo;
import org.vancetope.worktarget.spi.ProcessStore;

/** WORK through a provided backend, then a real server and daemon on loopback, all on the module path. */
public final class Main {
    private Main() {
    }

    /** The host's process model, in memory. */
    private static final class Processes implements ProcessStore {
        private final Map<String, ProcessInfo> byId = new ConcurrentHashMap<>();

        void add(String id) {
            byId.put(id, new ProcessInfo(id, null, "s-1", "acme", "proj", null, Map.of()));
        }

        @Override
        public Optional<ProcessInfo> find(String processId) {
            return Optional.ofNullable(byId.get(processId));
        }

        @Override
        public void putEngineParam(String processId, String key, Object value) {
            byId.compute(processId, (id, p) -> {
                if (p == null) {
                    throw new java.util.NoSuchElementException(processId);
                }
                Map<String, Object> params = new java.util.HashMap<>(p.engineParams());
                if (value == null) {
                    params.remove(key);
                } else {
                    params.put(key, value);
                }
                return new ProcessInfo(p.id(), p.parentId(), p.sessionId(), p.tenant(), p.project(), p.user(), params);
            });
        }
    }

    /**
     * Runs the checks and prints one line per step.
     *
     * @param args the base directory to work in
     * @throws Exception when a step fails
     */
    public static void main(String[] args) throws Exception {
        Path base = Path.of(args[0]);
        Processes processes = new Processes();
        processes.add("p-1");

        WorkTargetDispatcher provided = WorkTargetDispatcher.builder().processStore(processes).discoverBackends()
                .build();
        System.out.println("provided: " + provided.invoke("p-1", "file_read", Map.of("path", "x.txt")).get("content"));

        try (WorkspaceBackend work = WorkspaceBackend.builder().workspaceRoot(Files.createDirectories(
                base.resolve("ws"))).homesRoot(Files.createDirectories(base.resolve("homes"))).build();
             LocalBackend local = LocalBackend.builder().workDirectory(Files.createDirectories(base.resolve("box")))
                     .build();
             WorkTargetServer server = WorkTargetServer.builder().host("127.0.0.1").port(0)
                     .authenticator(TokenAuthenticator.builder()
                             .token("consumer-token-1", new AuthPrincipal("box", "acme", Set.of("proj"), null))
                             .build())
                     .build().start();
             WorkTargetClient daemon = WorkTargetClient.builder()
                     .uri(URI.create("ws://127.0.0.1:" + server.port() + "/worktarget/v1"))
                     .token("consumer-token-1").daemon("acme", "proj", "box").tools(local.tools()).build()
                     .start()) {
            if (!daemon.awaitConnected(Duration.ofSeconds(30))) {
                throw new IllegalStateException("the daemon did not connect");
            }
            WorkTargetDispatcher tools = WorkTargetDispatcher.builder().processStore(processes).backend(work)
                    .peers(server.peers()).build();
            tools.invoke("p-1", "file_write", Map.of("path", "w.txt", "content", "on WORK"));
            System.out.println("work: " + tools.invoke("p-1", "file_read", Map.of("path", "w.txt")).get("content"));
            tools.invoke("p-1", "work_target_set", Map.of("kind", "DAEMON", "targetName", "box"));
            tools.invoke("p-1", "file_write", Map.of("path", "d.txt", "content", "on the daemon"));
            System.out.println("daemon: " + tools.invoke("p-1", "file_read", Map.of("path", "d.txt")).get("content"));
            System.out.println("daemon file on disk: " + Files.readString(base.resolve("box").resolve("d.txt")));
        }
    }
}
