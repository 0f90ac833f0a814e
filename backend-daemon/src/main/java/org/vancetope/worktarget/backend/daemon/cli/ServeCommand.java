package org.vancetope.worktarget.backend.daemon.cli;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.backend.daemon.ServerTransfers;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.daemon.internal.Ids;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferSettings;

/** {@code serve}: a standalone server with a WORK backend and the loopback admin API. */
final class ServeCommand {
    private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);
    static final String HELP = String.join("\n",
            "Usage: serve --workspace DIR --tokens FILE [--port 7070] [--bind 127.0.0.1]",
            "             [--admin-port PORT+1] [--admin-token TOKEN] [--tls-cert PEM --tls-key PEM] [--no-sync]",
            "             [--request-timeout SECONDS]",
            "",
            "Runs a WorkTarget server: foots and daemons connect to ws://BIND:PORT/worktarget/v1 with a token",
            "from FILE; WORK calls run in DIR. An admin HTTP API listens on 127.0.0.1:ADMIN-PORT:",
            "  GET  /admin/v1/connections   connected foots and daemons",
            "  POST /admin/v1/call          {tenant, project, processId?, sessionId?, target, tool, params}",
            "A call without processId runs in a one-shot process, closed after the call (its temp RootDir goes).",
            "",
            "  --workspace DIR     the WORK workspace directory",
            "  --tokens FILE       {\"tokens\":[{\"token\",\"subject\",\"tenant\",\"projects\":[…],\"user\"}]}",
            "  --port PORT         the WebSocket port (default 7070)",
            "  --bind HOST         the interface (default 127.0.0.1; 0.0.0.0 for remote daemons)",
            "  --admin-port PORT   the admin API port on 127.0.0.1 (default PORT+1)",
            "  --admin-token T     the admin token (default: $WORKTARGET_ADMIN_TOKEN, else generated and logged)",
            "  --tls-cert/--tls-key  serve wss:// with this PEM certificate chain and key",
            "  --no-sync           rename an uploaded, verified file without forcing it to the disk first",
            "                      (faster for big files; after a power loss the file may be empty or short)",
            "  --request-timeout S how long a new connection may take to send its whole WebSocket upgrade",
            "                      request, and an admin connection each whole request (default 10); then 408",
            "",
            "Stops on SIGTERM/Ctrl-C. Exit codes: 0 stopped, 2 usage, 4 cannot bind.");

    private ServeCommand() {
    }

    static int run(List<String> argv, PrintStream out, PrintStream err) throws Args.UsageException {
        Args a = Args.parse(argv, Set.of("workspace", "tokens", "port", "bind", "admin-port", "admin-token", "tls-cert",
                "tls-key", "request-timeout"), Set.of("help", "no-sync"));
        if (a.flag("help")) {
            out.println(HELP);
            return Main.OK;
        }
        Path workspace = Path.of(a.require("workspace")).toAbsolutePath().normalize();
        if (!Files.isDirectory(workspace)) {
            throw new Args.UsageException("--workspace " + workspace + " is not a directory.");
        }
        TokenAuthenticator auth;
        try {
            auth = TokenAuthenticator.fromJson(Path.of(a.require("tokens")));
        } catch (IOException | IllegalArgumentException e) {
            throw new Args.UsageException("Cannot read --tokens: " + e.getMessage());
        }
        int port = a.intOption("port", 7070);
        int adminPort = a.intOption("admin-port", port == 0 ? 0 : port + 1);
        int requestTimeoutSeconds = a.intOption("request-timeout",
                (int) AdminServer.Limits.DEFAULT_REQUEST_TIMEOUT.toSeconds());
        if (requestTimeoutSeconds < 1) {
            throw new Args.UsageException("--request-timeout must be at least 1 second, got " + requestTimeoutSeconds + ".");
        }
        Duration requestTimeout = Duration.ofSeconds(requestTimeoutSeconds);
        String adminToken = a.get("admin-token", System.getenv("WORKTARGET_ADMIN_TOKEN"));
        boolean generated = adminToken == null || adminToken.isBlank();
        if (generated) {
            adminToken = new Ids().next("adm-");
        }
        SslContext ssl = null;
        if (a.get("tls-cert", null) != null || a.get("tls-key", null) != null) {
            try (InputStream cert = Files.newInputStream(Path.of(a.require("tls-cert")));
                 InputStream key = Files.newInputStream(Path.of(a.require("tls-key")))) {
                ssl = SslContextBuilder.forServer(cert, key).build();
            } catch (IOException | IllegalArgumentException e) {
                throw new Args.UsageException("Cannot load the TLS certificate or key: " + e.getMessage());
            }
        }
        WorkspaceBackend work = Backends.workspace(workspace);
        ServerTransfers transfers = ServerTransfers.create(
                new RootDirTargetResolver((scope, dirName) -> work.findRoot(scope.tenant(), scope.project(), dirName)),
                TransferSettings.defaults().toBuilder().syncBeforeCommit(!a.flag("no-sync")).build(),
                TransferListener.NONE);
        WorkTargetServer server;
        try {
            server = WorkTargetServer.builder().host(a.get("bind", "127.0.0.1")).port(port).authenticator(auth)
                    .sslContext(ssl).transfers(transfers).upgradeTimeout(requestTimeout).build().start();
        } catch (IOException e) {
            transfers.close();
            work.close();
            err.println(e.getMessage());
            return Main.UNREACHABLE;
        } catch (IllegalArgumentException e) {
            transfers.close();
            work.close();
            throw new Args.UsageException(e.getMessage() + ".");
        }
        InMemoryProcessStore store = new InMemoryProcessStore();
        WorkTargetDispatcher.Builder db = WorkTargetDispatcher.builder().processStore(store)
                .peers(server.peers());
        db.backend(work);
        transfers.tools(work.ephemeralDirs()).forEach(db::hostTool);
        AdminServer admin;
        try {
            WorkTargetDispatcher dispatcher = db.build();
            // a call without processId runs in a one-shot process; its end reaches every backend
            admin = new AdminServer(server, dispatcher, store, adminToken,
                    AdminServer.Limits.defaults().withRequestTimeout(requestTimeout))
                    .start("127.0.0.1", adminPort);
        } catch (IOException e) {
            server.close();
            transfers.close();
            work.close();
            err.println(e.getMessage());
            return Main.UNREACHABLE;
        }
        LOG.info("Admin API on http://127.0.0.1:{}/admin/v1/ ({})", admin.address().getPort(),
                generated ? "generated admin token: " + adminToken : "admin token as given");
        CountDownLatch stopped = new CountDownLatch(1);
        // The JVM exits when the hook returns: closing the backend waits until every job tree has ended
        // (SIGTERM, up to killGrace, SIGKILL), and runs even when an earlier close fails.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.info("Shutting down");
            try {
                admin.close();
                server.close();
                transfers.close();
            } finally {
                try {
                    work.close();
                } finally {
                    stopped.countDown();
                }
            }
        }, "worktarget-serve-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Main.OK;
    }
}
