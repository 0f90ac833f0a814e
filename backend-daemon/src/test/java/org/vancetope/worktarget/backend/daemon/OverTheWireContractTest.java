package org.vancetope.worktarget.backend.daemon;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.testkit.ExecToolsContract;
import org.vancetope.worktarget.testkit.FileToolsContract;
import org.vancetope.worktarget.testkit.FileToolsFixture;

/**
 * The file and exec contract suites once more, over the wire: every call goes through the server's
 * the peers of a {@code WorkTargetServer} over a loopback WebSocket to a daemon that serves {@link LocalBackend}'s tools.
 */
class OverTheWireContractTest {
    private static final DaemonKey BOX = new DaemonKey("acme", "proj", "box");
    private static final ToolContext CTX = new ToolContext("p1", "s1", "acme", "proj", "alice");

    /** A server, a daemon serving a LocalBackend, and proxies that call the daemon's tools over the socket. */
    static final class Wire implements AutoCloseable {
        final TestServer server;
        final LocalBackend local;

        Wire(Path workDir) throws Exception {
            server = new TestServer();
            local = LocalBackend.builder().workDirectory(workDir)
                    .execSettings(ExecSettings.builder().killGrace(Duration.ofMillis(500)).build()).build();
            server.daemon(BOX.name(), local.tools());
        }

        List<BackendTool> proxies(String prefix) {
            return local.tools().stream().filter(t -> t.spec().name().startsWith(prefix))
                    // the contracts call as a process of their own project; the daemon serves BOX's (a peer serves
                    // only the projects its token grants), so the calls come from that project here
                    .map(t -> BackendTool.of(t.spec(), (params, ctx) -> TestServer.invoke(server.server, BOX,
                            t.spec().name(), params, new org.vancetope.worktarget.spi.ToolContext(ctx.processId(),
                                    ctx.sessionId(), ctx.tenant(), BOX.project(), ctx.user()), Duration.ofSeconds(60))))
                    .toList();
        }

        @Override
        public void close() {
            server.close();
            local.close();
        }
    }

    @Nested
    class FilesOverTheWire extends FileToolsContract {
        private Wire wire;

        @Override
        protected Flavour flavour() {
            return Flavour.REAL_DISK;
        }

        @Override
        protected FileToolsFixture createFixture(Path base) throws Exception {
            wire = new Wire(base);
            return FileToolsFixture.of(wire.proxies("client_file_"), wire.local.workDirectory(), CTX);
        }

        @AfterEach
        void closeWire() {
            wire.close();
        }
    }

    @Nested
    class ExecOverTheWire extends ExecToolsContract {
        private Wire wire;

        @Override
        protected List<BackendTool> createExecTools(Path workDir) throws Exception {
            wire = new Wire(workDir);
            return wire.proxies("client_exec_");
        }

        @Override
        protected void closeBackend() {
            wire.close();
        }
    }
}
