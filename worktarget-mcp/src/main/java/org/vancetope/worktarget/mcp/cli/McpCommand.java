package org.vancetope.worktarget.mcp.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.ServerTransfers;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.backend.daemon.cli.Main;
import org.vancetope.worktarget.backend.daemon.internal.Args;
import org.vancetope.worktarget.backend.daemon.internal.ExecOptions;
import org.vancetope.worktarget.backend.daemon.internal.WorkspaceOptions;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.mcp.McpProcessMapping;
import org.vancetope.worktarget.mcp.McpWorkTargetServer;
import org.vancetope.worktarget.mcp.internal.AllowedOrigins;
import org.vancetope.worktarget.spi.BackendTool;

/** {@code mcp}: an MCP server over stdio (this machine's tools) or over HTTP (a WORK backend and daemons). */
final class McpCommand {
    private static final Logger LOG = LoggerFactory.getLogger(McpCommand.class);
    /**
     * How long the HTTP server keeps the RootDirs a killed run's sessions left: no session comes back, but an
     * upload into one of them may be resumed by its RootDir's name meanwhile.
     */
    private static final Duration LEFTOVERS_KEPT = Duration.ofHours(1);
    static final String HELP = String.join("\n",
            "Usage: mcp [--workdir DIR] [--workspace DIR] [--tenant T] [--project P] [--warm-up on|off] "
                    + ExecOptions.USAGE_TIME,
            "           " + ExecOptions.USAGE,
            "       mcp --http PORT --workspace DIR --tokens FILE [--bind 127.0.0.1] [--daemon-port 7070]",
            "           [--project P] [--allowed-origins LIST] [--max-connections N]",
            "           [--max-unauthenticated-per-address N] [--max-connections-per-subject N]",
            "           " + WorkspaceOptions.USAGE.get(0),
            "           " + WorkspaceOptions.USAGE.get(1),
            "           " + WorkspaceOptions.USAGE.get(2) + " " + ExecOptions.USAGE_TIME,
            "           " + ExecOptions.USAGE,
            "",
            "Serves the WorkTarget tools (file_*, exec_*, work_target_get/set) to an MCP client.",
            "",
            "stdio (the form an MCP client's config file launches): reads JSON-RPC on stdin, writes it on",
            "stdout; the tools run on this machine in DIR (the CLIENT target). With --workspace, WORK is a",
            "target too (work_target_set). Stops when the client closes stdin or on SIGTERM; running jobs are killed.",
            "  --workdir DIR     the directory the CLIENT tools work in (default .)",
            "  --workspace DIR   also offer the WORK target, with its RootDirs under DIR",
            "  --tenant T        the tenant of the session's process (default local)",
            "  --project P       the project of the session's process (default local)",
            "  --warm-up on|off  prime the JVM in the background, while the client is idle, with about 2,000",
            "                    file-tool calls in a temporary directory of its own, so that the first calls",
            "                    are fast (default on; a few seconds of CPU after the start)",
            "",
            "HTTP: Streamable HTTP at http://BIND:PORT/mcp; every request needs Authorization: Bearer TOKEN",
            "with a token from FILE (its tenant and projects). Calls run on WORK in DIR by default; daemons",
            "connect with the same tokens to ws://BIND:DAEMON-PORT/worktarget/v1 and are reached with",
            "work_target_set {\"kind\":\"DAEMON\",\"targetName\":NAME}. Each MCP session is one process.",
            "  --http PORT       the MCP HTTP port (0: any free port, logged)",
            "  --workspace DIR   the WORK workspace directory",
            "  --tokens FILE     {\"tokens\":[{\"token\",\"subject\",\"tenant\",\"projects\":[…],\"user\"}]}",
            "  --bind HOST       the interface of both ports (default 127.0.0.1)",
            "  --daemon-port P   the WebSocket port for daemons (default 7070; 0: any free port, logged)",
            "  --project P       the project of a session whose token grants several (default: the only one)",
            "  --allowed-origins LIST  the browser origins served, comma-separated scheme://host[:port|:*]",
            "                    (default: loopback, http(s)://localhost:*, 127.0.0.1:*, [::1]:*; '' none). A",
            "                    request with another Origin header gets 403 (DNS rebinding guard); one without",
            "                    Origin (not a browser) is judged by its token alone.",
            "  --max-connections N  the most connections each port holds at once; one more is closed at once",
            "                    (default " + McpWorkTargetServer.DEFAULT_HTTP_MAX_CONNECTIONS + " on the MCP port, "
                    + WorkTargetServer.DEFAULT_MAX_CONNECTIONS + " on the daemon port: at most a quarter and a",
            "                    half of this process's limit of open files)",
            "  --max-unauthenticated-per-address N  the most connections one remote address may hold on each",
            "                    port before a request or upgrade with an accepted token (default "
                    + McpWorkTargetServer.DEFAULT_HTTP_MAX_UNAUTHENTICATED_PER_ADDRESS + "; 0 no cap)",
            "  --max-connections-per-subject N  the most open daemon connections of one token's subject on",
            "                    the daemon port; one more is told to retry later (default 0: no cap)",
            "The WORK backend (with --workspace, in either form; use --isolation custom for callers of several",
            "tenants: without it their jobs run as this user and read what it can):",
            String.join("\n", WorkspaceOptions.help(20)),
            "",
            "Both forms:",
            String.join("\n", ExecOptions.help(20, "job", "server")),
            "",
            "Logs go to stderr. Exit codes: 0 stopped, 2 usage, 4 cannot bind.");

    private static final Set<String> OPTIONS = ExecOptions.withOwn(WorkspaceOptions.NAMES, "workdir", "workspace", "tenant", "project", "http", "tokens",
            "bind", "daemon-port", "allowed-origins", "warm-up", "max-connections", "max-unauthenticated-per-address",
            "max-connections-per-subject");

    private McpCommand() {
    }

    /** {@code --project-max-mib} in bytes; 0 when absent. */
    static int run(List<String> argv, InputStream in, PrintStream out, PrintStream err) {
        try {
            Args a = Args.parse(argv, OPTIONS, Set.of("help"));
            if (a.flag("help")) {
                // over stdio the help goes to stdout too: nobody speaks the protocol when asking for help
                out.println(HELP);
                return Main.OK;
            }
            if (!a.positional().isEmpty()) {
                throw new Args.UsageException("Unexpected argument '" + a.positional().get(0) + "': mcp takes only"
                        + " options.");
            }
            return a.has("http") ? http(a, err) : stdio(a, in, out, err);
        } catch (Args.UsageException e) {
            err.println(e.getMessage() + " Run 'mcp --help' for the options.");
            return Main.USAGE;
        }
    }

    private static int stdio(Args a, InputStream in, PrintStream out, PrintStream err)
            throws Args.UsageException {
        for (String httpOnly : List.of("tokens", "bind", "daemon-port", "allowed-origins", "max-connections",
                "max-unauthenticated-per-address", "max-connections-per-subject")) {
            if (a.has(httpOnly)) {
                throw new Args.UsageException("--" + httpOnly + " needs --http PORT (it is an option of the HTTP form).");
            }
        }
        Path workdir = a.directory("workdir", ".");
        Path workspace = a.has("workspace") ? a.directory("workspace", null) : null;
        for (String option : WorkspaceOptions.NAMES) {
            if (workspace == null && a.has(option)) {
                throw new Args.UsageException("--" + option + " needs --workspace DIR (it is an option of the WORK "
                        + "target; the CLIENT tools of stdio run as you, in --workdir).");
            }
        }
        String tenant = a.get("tenant", "local");
        String project = a.get("project", "local");
        String warmUp = a.get("warm-up", "on");
        if (!warmUp.equals("on") && !warmUp.equals("off")) {
            throw new Args.UsageException("--warm-up must be on or off, got '" + warmUp + "'.");
        }
        ExecSettings exec = ExecOptions.settings(a);
        LocalBackend local = ExecOptions.build(() -> LocalBackend.builder().workDirectory(workdir).execSettings(exec).build());
        WorkspaceBackend.Builder wb = workspace == null ? null : WorkspaceOptions.builder(a, workspace);
        WorkspaceBackend work;
        try {
            // a session's process never comes back
            work = wb == null ? null : ExecOptions.build(() -> wb.processesEndWithJvm(Duration.ZERO).build());
        } catch (Args.UsageException e) {
            local.close();
            throw e;
        }
        InMemoryProcessStore store = new InMemoryProcessStore();
        WorkTargetDispatcher.Builder db = WorkTargetDispatcher.builder().processStore(store).peers(local);
        if (work != null) {
            db.backend(work);
        }
        WorkTargetDispatcher dispatcher = db.build();
        McpWorkTargetServer mcp = McpWorkTargetServer.builder().dispatcher(dispatcher).warmUp(warmUp.equals("on"))
                .processes(McpProcessMapping.perSession(store, dispatcher, tenant, project)).build();
        LOG.info("MCP server on stdio; CLIENT tools in {}{}", workdir, work == null ? "" : ", WORK in " + workspace);
        // SIGTERM is how clients stop a server that did not exit when its input closed: the jobs end with it,
        // and the process exits 0 as the help says. Whoever closes second waits for the first one's close, so
        // the hook never halts while the main thread is still ending the jobs.
        boolean[] closed = new boolean[1];
        Runnable closeOnce = () -> {
            synchronized (closed) {
                if (!closed[0]) {
                    closed[0] = true;
                    close(mcp, local, work);
                }
            }
        };
        Thread hook = new Thread(() -> {
            try {
                closeOnce.run();
            } finally {
                Main.exitFromShutdownHook();
            }
        }, "worktarget-mcp-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            mcp.serveStdio(in, out);
            mcp.awaitStdioEnd();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeOnce.run();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs (or ran) already
            }
        }
        err.flush();
        return Main.OK;
    }

    private static void close(McpWorkTargetServer mcp, LocalBackend local, WorkspaceBackend work) {
        try {
            mcp.close();
        } finally {
            try {
                local.close();
            } finally {
                if (work != null) {
                    work.close();
                }
            }
        }
    }

    private static int http(Args a, PrintStream err) throws Args.UsageException {
        int port = a.intOption("http", 0, 0, 65535);
        int daemonPort = a.intOption("daemon-port", 7070, 0, 65535);
        String bind = a.get("bind", "127.0.0.1");
        Integer maxConnections = a.has("max-connections") ? a.intOption("max-connections", 0, 1, 1_000_000) : null;
        Integer maxUnauthenticated = a.has("max-unauthenticated-per-address")
                ? a.intOption("max-unauthenticated-per-address", 0, 0, 1_000_000) : null;
        int maxPerSubject = a.intOption("max-connections-per-subject", 0, 0, 1_000_000);
        if (a.has("workdir") || a.has("tenant") || a.has("warm-up")) {
            throw new Args.UsageException("--workdir, --tenant and --warm-up are options of the stdio form; over HTTP the "
                    + "tokens give the tenant and calls run in --workspace or on daemons.");
        }
        Path workspace = a.directory("workspace", null);
        List<String> origins = null;
        if (a.has("allowed-origins")) {
            origins = Arrays.stream(a.get("allowed-origins", "").split(",")).map(String::strip).filter(s -> !s.isEmpty())
                    .toList();
            try {
                AllowedOrigins.of(origins);
            } catch (IllegalArgumentException e) {
                throw new Args.UsageException("--allowed-origins: " + e.getMessage());
            }
        }
        if (!a.has("tokens")) {
            throw new Args.UsageException("--tokens FILE is required with --http.");
        }
        TokenAuthenticator auth;
        try {
            auth = TokenAuthenticator.fromJson(Path.of(a.require("tokens")));
        } catch (IOException | IllegalArgumentException e) {
            throw new Args.UsageException("Cannot read --tokens: " + e.getMessage());
        }
        WorkspaceBackend.Builder wb = WorkspaceOptions.builder(a, workspace);
        WorkspaceBackend work = ExecOptions.build(() -> wb.processesEndWithJvm(LEFTOVERS_KEPT).build());
        ServerTransfers transfers = ServerTransfers.create(
                work.transferRoots(),
                TransferSettings.defaults(), TransferListener.NONE);
        WorkTargetServer server;
        try {
            WorkTargetServer.Builder sb = WorkTargetServer.builder().host(bind).port(daemonPort).authenticator(auth)
                    .transfers(transfers);
            if (maxConnections != null) {
                sb.maxConnections(maxConnections);
            }
            if (maxUnauthenticated != null) {
                sb.maxUnauthenticatedPerAddress(maxUnauthenticated);
            }
            sb.maxConnectionsPerSubject(maxPerSubject);
            server = sb.build().start();
        } catch (IOException e) {
            transfers.close();
            work.close();
            err.println(e.getMessage());
            return Main.UNREACHABLE;
        }
        InMemoryProcessStore store = new InMemoryProcessStore();
        List<BackendTool> hostTools = transfers.tools(work.ephemeralDirs());
        WorkTargetDispatcher.Builder db = WorkTargetDispatcher.builder().processStore(store).peers(server.peers())
                .backend(work);
        hostTools.forEach(db::hostTool);
        WorkTargetDispatcher dispatcher = db.build();
        McpWorkTargetServer.Builder mb = McpWorkTargetServer.builder().dispatcher(dispatcher).hostTools(hostTools)
                .processes(McpProcessMapping.perSession(store, dispatcher, "local", a.get("project", "local")));
        if (maxConnections != null) {
            mb.httpMaxConnections(maxConnections);
        }
        if (maxUnauthenticated != null) {
            mb.httpMaxUnauthenticatedPerAddress(maxUnauthenticated);
        }
        if (origins != null) {
            mb.allowedOrigins(origins);
        }
        McpWorkTargetServer mcp = mb.build();
        InetSocketAddress address;
        try {
            address = mcp.startHttp(bind, port, auth);
        } catch (IOException e) {
            mcp.close();
            server.close();
            transfers.close();
            work.close();
            err.println(e.getMessage());
            return Main.UNREACHABLE;
        }
        LOG.info("MCP server on http://{}:{}{}; daemons connect to ws://{}:{}/worktarget/v1; WORK in {}", bind,
                address.getPort(), McpWorkTargetServer.HTTP_PATH, bind, server.address().getPort(), workspace);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.info("Shutting down");
            try {
                // first what the calls wait for: the daemons' connections and the transfers (an upload cut off
                // is kept and its call answered with the resume id); then the MCP server answers the calls
                // still running and ends the sessions
                try {
                    server.close();
                    transfers.close();
                } finally {
                    mcp.close();
                }
            } finally {
                try {
                    work.close();
                } finally {
                    stopped.countDown();
                    Main.exitFromShutdownHook();
                }
            }
        }, "worktarget-mcp-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Main.OK;
    }
}
