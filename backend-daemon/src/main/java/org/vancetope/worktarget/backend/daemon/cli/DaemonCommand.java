package org.vancetope.worktarget.backend.daemon.cli;

import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.http.websocketx.WebSocketClientHandshakeException;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.ServerRefusedException;
import org.vancetope.worktarget.backend.daemon.ClientTransfers;
import org.vancetope.worktarget.backend.daemon.internal.Args;
import org.vancetope.worktarget.backend.daemon.internal.ExecOptions;
import org.vancetope.worktarget.backend.daemon.internal.PeerFailures;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.TargetResolver;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.spi.BackendTool;

/** {@code daemon}: a {@code profile=daemon} client serving this machine's client tools until stopped. */
final class DaemonCommand {
    private static final Logger LOG = LoggerFactory.getLogger(DaemonCommand.class);
    /** How long one connection attempt may take (the client's default handshake timeout). */
    private static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(10);
    /** The default of {@code --connect-timeout}, in seconds. */
    static final int DEFAULT_CONNECT_TIMEOUT_SECONDS = 30;
    /** The most calls {@code --workers} lets run at once: each is a thread. */
    static final int MAX_WORKERS = 1024;
    static final String HELP = String.join("\n",
            "Usage: daemon --connect ws://HOST:PORT/worktarget/v1 --tenant T --project P --name NAME",
            "              [--token TOKEN, better $WORKTARGET_TOKEN] [--workdir DIR] [--workers N]",
            "              [--transfer-root DIR] [--max-transfer-mib N] [--no-sync] [--kill-grace-ms N]",
            "              " + ExecOptions.USAGE,
            "              " + ExecOptions.USAGE_TIME + " [--connect-timeout SECONDS]",
            "",
            "Connects to a WorkTarget server as the daemon NAME of project P and serves the client_* tools",
            "on DIR (default: the current directory). The first connection must succeed within",
            "--connect-timeout; after that it reconnects with back-off after every drop, for as long as it",
            "runs. Stops on SIGTERM/Ctrl-C (running calls are cancelled, every job's process tree is ended",
            "before the daemon exits) or when the server refuses it for good.",
            "",
            "  --connect URL   the server endpoint (ws:// or wss://), serve's --port, e.g.",
            "                  ws://brain:7070/worktarget/v1",
            "  --token TOKEN   the bearer token; prefer $WORKTARGET_TOKEN: an option is visible to every",
            "                  user of the machine in 'ps'",
            "  --tenant T      the tenant the token grants",
            "  --project P     the project the token grants",
            "  --name NAME     the daemon name, [a-z0-9][a-z0-9_-]{0,63}",
            "  --workdir DIR   the directory the tools work in (default .)",
            "  --workers N     calls run at once (default 16, at most 1024)",
            "  --transfer-root DIR  a separate root for file transfers, DIR/<tenant>/<project>/ (default: the",
            "                  work directory, so a downloaded file is where file_read looks and a file the",
            "                  tools wrote can be uploaded by the same path)",
            "  --max-transfer-mib N  the largest file this daemon receives or sends in one transfer",
            "                  (default 100; the server applies its own limit too)",
            "  --no-sync       rename a received, verified file without forcing it to the disk first",
            "                  (faster for big files; after a power loss the file may be empty or short)",
            "  --kill-grace-ms N  how long a job's processes get between SIGTERM and SIGKILL on exec_kill, a",
            "                  deadline and shutdown (default 10000; shutdown waits at most this long, then kills)",
            String.join("\n", ExecOptions.help(18, "job", "daemon")),
            "  --connect-timeout S  how long the first connection may take (default " + DEFAULT_CONNECT_TIMEOUT_SECONDS
                    + "; 0 waits for ever); then it",
            "                  exits 4 with the likely cause (a host that does not resolve, nothing listening,",
            "                  not a WorkTarget server's WebSocket port, TLS on one side only)",
            "",
            Main.exitCodes(Main.OK, "stopped by SIGTERM or Ctrl-C",
                    Main.FAILED, "stopped by an unexpected failure (the message says which)",
                    Main.USAGE, "bad command line",
                    Main.REFUSED, "refused by the server: token, grants, or the name taken over by another daemon",
                    Main.UNREACHABLE, "not connected within --connect-timeout at start, or not a WorkTarget server"));

    private DaemonCommand() {
    }

    private static TransferSettings transferSettings(Args a) throws Args.UsageException {
        TransferSettings defaults = TransferSettings.defaults();
        int mib = a.intOption("max-transfer-mib", (int) (defaults.maxDownloadSize() >> 20), 1, 1 << 20);
        long bytes = (long) mib << 20;
        return defaults.toBuilder().maxDownloadSize(bytes).maxUploadSize(bytes).syncBeforeCommit(!a.flag("no-sync"))
                .build();
    }

    private static ExecSettings execSettings(Args a) throws Args.UsageException {
        ExecSettings defaults = ExecSettings.defaults();
        int grace = a.intOption("kill-grace-ms", (int) defaults.killGrace().toMillis(), 0, Integer.MAX_VALUE);
        return ExecOptions.settings(a).toBuilder().killGrace(Duration.ofMillis(grace)).build();
    }

    /**
     * Why the first connection did not succeed in time, from the last attempt's failure.
     *
     * @param uri the endpoint
     * @param seconds the start-up deadline
     * @param last the last attempt's failure, or null
     * @return one message: what failed and what to check
     */
    static String unreachable(URI uri, int seconds, Throwable last) {
        int port = uri.getPort() > 0 ? uri.getPort() : "wss".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
        String where = uri.getHost() + ":" + port;
        String head = "Not connected to " + uri + " within " + seconds + " s (--connect-timeout): ";
        for (Throwable c = last; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof UnknownHostException) {
                return head + "the host '" + uri.getHost() + "' does not resolve. Check the host name in --connect "
                        + "(DNS, /etc/hosts).";
            }
            if (c instanceof ConnectTimeoutException) {
                return head + where + " did not answer the connection. Is the host up, and does a firewall let port "
                        + port + " through?";
            }
            if (c instanceof ConnectException) {
                return head + "nothing accepts connections on " + where + ". Is 'serve' running there, and is " + port
                        + " its --port (default 7070)?";
            }
            if (c instanceof SSLException) {
                return head + "the TLS handshake failed (" + PeerFailures.brief(c) + "). Use wss:// only for a server "
                        + "started with --tls-cert, and ws:// for one without.";
            }
            if (c instanceof WebSocketClientHandshakeException h && h.response() != null) {
                return head + where + " answered HTTP " + h.response().status().code() + " instead of a WebSocket "
                        + "upgrade: it is not a WorkTarget server's WebSocket port. serve's WebSocket port is its --port "
                        + "(default 7070).";
            }
        }
        String closedEarly = " A serve that already holds --max-connections connections closes new ones this way, "
                + "and logs a WARN that says so; then retry later, or raise its --max-connections.";
        return head + (last == null ? "no attempt completed the WebSocket upgrade. Is " + where + " a WorkTarget "
                + "server's WebSocket port (serve's --port, default 7070), with the path of --connect?" + closedEarly
                : "the last attempt failed: " + PeerFailures.brief(last) + ". Check --connect, and serve's log."
                + (PeerFailures.isNetwork(last) ? closedEarly : ""));
    }

    static int run(List<String> argv, PrintStream out, PrintStream err) throws Args.UsageException {
        Args a = Args.parse(argv, ExecOptions.withOwn("connect", "token", "tenant", "project", "name", "workdir",
                        "workers", "transfer-root", "max-transfer-mib", "kill-grace-ms", "connect-timeout"),
                Set.of("help", "no-sync"));
        if (a.flag("help")) {
            out.println(HELP);
            return Main.OK;
        }
        URI uri;
        try {
            uri = URI.create(a.require("connect"));
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException("--connect is not a URI: " + e.getMessage() + ".");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("ws") && !scheme.equals("wss") || uri.getHost() == null) {
            throw new Args.UsageException("--connect must be a ws:// or wss:// URL with a host, e.g. "
                    + "ws://brain:7070/worktarget/v1; got '" + a.require("connect") + "'.");
        }
        int connectTimeout = a.intOption("connect-timeout", DEFAULT_CONNECT_TIMEOUT_SECONDS, 0, Integer.MAX_VALUE);
        String token = a.get("token", System.getenv("WORKTARGET_TOKEN"));
        if (token == null || token.isBlank()) {
            throw new Args.UsageException("Missing the token: set $WORKTARGET_TOKEN (or give --token).");
        }
        Path workdir = a.directory("workdir", ".");
        String separate = a.get("transfer-root", null);
        TransferSettings transferSettings = transferSettings(a);
        ExecSettings exec = execSettings(a);
        LocalBackend local = ExecOptions.build(() -> Backends.local(workdir, exec));
        List<BackendTool> tools = local.tools();
        TargetResolver transferRoot = separate != null ? FootTargetResolver.at(Path.of(separate).toAbsolutePath())
                : TargetResolver.at(local.workDirectory());
        ClientTransfers transfers = ClientTransfers.create(transferRoot,
                new TransferScope(a.require("tenant"), a.require("project")), transferSettings,
                TransferListener.NONE);
        WorkTargetClient client;
        try {
            client = WorkTargetClient.builder().uri(uri).token(token)
                    .daemon(a.require("tenant"), a.require("project"), a.require("name"))
                    .clientName("worktarget-daemon/" + Runtime.version().feature())
                    .workerThreads(a.intOption("workers", 16, 1, MAX_WORKERS))
                    .tools(tools)
                    .processEndHook(local::processEnded)
                    .frameExtension(transfers.extension())
                    // an upgrade the server never answers is given up within --connect-timeout, not after it
                    .handshakeTimeout(connectTimeout > 0 && connectTimeout < ATTEMPT_TIMEOUT.toSeconds()
                            ? Duration.ofSeconds(connectTimeout) : ATTEMPT_TIMEOUT)
                    .build();
        } catch (IllegalArgumentException e) {
            transfers.close();
            local.close();
            throw new Args.UsageException(e.getMessage() + ".");
        }
        // The JVM exits when the hook returns: closing the backend waits until every job tree has ended
        // (SIGTERM, up to --kill-grace-ms, SIGKILL), and runs even when an earlier close fails.
        Thread hook = new Thread(() -> {
            try {
                client.close();
                transfers.close();
            } finally {
                try {
                    local.close();
                } finally {
                    Main.exitFromShutdownHook();
                }
            }
        }, "worktarget-daemon-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        client.start();
        LOG.info("Daemon '{}' serving {} tools from {}; transfers {}", a.require("name"), tools.size(), workdir,
                separate != null ? "under " + separate + "/<tenant>/<project>" : "in the same directory");
        try {
            boolean connected = connectTimeout == 0
                    || client.awaitFirstConnection(Duration.ofSeconds(connectTimeout));
            // the outcome of the first attempt always counts, however slow the machine: wait for it (at most
            // one attempt's own timeout) so the message names what failed
            long attemptEnd = System.nanoTime() + ATTEMPT_TIMEOUT.toNanos();
            while (!connected && !client.terminated().isDone() && client.lastFailure().isEmpty()
                    && System.nanoTime() < attemptEnd) {
                connected = client.awaitFirstConnection(Duration.ofMillis(50));
            }
            if (!connected && !client.terminated().isDone()) {
                // read before close: a retry that close() cuts short fails with "executor not accepting a
                // task", which would hide what the attempts really met
                Throwable last = client.lastFailure().orElse(null);
                client.close();
                err.println(unreachable(uri, connectTimeout, last != null ? last : client.lastFailure().orElse(null)));
                return Main.UNREACHABLE;
            }
            client.terminated().get();
            return Main.OK;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ServerRefusedException r) {
                if (!r.fromWorkTargetServer()) {
                    err.println("Not a WorkTarget server: " + r.getMessage() + " serve's WebSocket port is its --port "
                            + "(default 7070); --admin-port is for 'call' only.");
                    return Main.UNREACHABLE;
                }
                err.println("Refused: " + r.getMessage());
                return Main.REFUSED;
            }
            err.println("Stopped: " + e.getCause() + ". See the log above for what happened before.");
            return Main.FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            client.close();
            return Main.OK;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
                transfers.close();
                local.close();
            } catch (IllegalStateException shuttingDown) {
                LOG.debug("JVM is shutting down; the hook closes the client and kills the jobs");
            }
        }
    }
}
