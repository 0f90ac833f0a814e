package org.vancetope.worktarget.backend.daemon.cli;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.WorkTargetClient;
import org.vancetope.worktarget.backend.daemon.ServerRefusedException;
import org.vancetope.worktarget.backend.daemon.ClientTransfers;
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
    static final String HELP = String.join("\n",
            "Usage: daemon --connect ws://HOST:PORT/worktarget/v1 --token TOKEN --tenant T --project P --name NAME",
            "              [--workdir DIR] [--workers N] [--transfer-root DIR] [--max-transfer-mib N] [--no-sync]",
            "              [--kill-grace-ms N]",
            "",
            "Connects to a WorkTarget server as the daemon NAME of project P and serves the client_* tools",
            "on DIR (default: the current directory). Reconnects with back-off after drops; stops on SIGTERM/Ctrl-C",
            "(running calls are cancelled, every job's process tree is ended before the daemon exits) or when",
            "the server refuses it for good.",
            "",
            "  --connect URL   the server endpoint (ws:// or wss://)",
            "  --token TOKEN   the bearer token (default: $WORKTARGET_TOKEN)",
            "  --tenant T      the tenant the token grants",
            "  --project P     the project the token grants",
            "  --name NAME     the daemon name, [a-z0-9][a-z0-9_-]{0,63}",
            "  --workdir DIR   the directory the tools work in (default .)",
            "  --workers N     calls run at once (default 16)",
            "  --transfer-root DIR  a separate root for file transfers, DIR/<tenant>/<project>/ (default: the",
            "                  work directory, so a downloaded file is where file_read looks and a file the",
            "                  tools wrote can be uploaded by the same path)",
            "  --max-transfer-mib N  the largest file this daemon receives or sends in one transfer",
            "                  (default 100; the server applies its own limit too)",
            "  --no-sync       rename a received, verified file without forcing it to the disk first",
            "                  (faster for big files; after a power loss the file may be empty or short)",
            "  --kill-grace-ms N  how long a job's processes get between SIGTERM and SIGKILL on exec_kill, a",
            "                  deadline and shutdown (default 10000; shutdown waits at most this long, then kills)",
            "",
            "Exit codes: 0 stopped, 2 usage, 3 refused (token, grants, superseded), 4 unreachable at start.");

    private DaemonCommand() {
    }

    private static TransferSettings transferSettings(Args a) throws Args.UsageException {
        TransferSettings defaults = TransferSettings.defaults();
        int mib = a.intOption("max-transfer-mib", (int) (defaults.maxDownloadSize() >> 20));
        if (mib < 1) {
            throw new Args.UsageException("--max-transfer-mib must be at least 1, got " + mib + ".");
        }
        long bytes = (long) mib << 20;
        return defaults.toBuilder().maxDownloadSize(bytes).maxUploadSize(bytes).syncBeforeCommit(!a.flag("no-sync"))
                .build();
    }

    private static ExecSettings execSettings(Args a) throws Args.UsageException {
        ExecSettings defaults = ExecSettings.defaults();
        int grace = a.intOption("kill-grace-ms", (int) defaults.killGrace().toMillis());
        if (grace < 0) {
            throw new Args.UsageException("--kill-grace-ms must be 0 or more, got " + grace + ".");
        }
        return defaults.toBuilder().killGrace(Duration.ofMillis(grace)).build();
    }

    static int run(List<String> argv, PrintStream out, PrintStream err) throws Args.UsageException {
        Args a = Args.parse(argv, Set.of("connect", "token", "tenant", "project", "name", "workdir", "workers",
                        "transfer-root", "max-transfer-mib", "kill-grace-ms"),
                Set.of("help", "no-sync"));
        if (a.flag("help")) {
            out.println(HELP);
            return Main.OK;
        }
        URI uri;
        try {
            uri = URI.create(a.require("connect"));
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException("--connect is not a URI: " + e.getMessage());
        }
        String token = a.get("token", System.getenv("WORKTARGET_TOKEN"));
        if (token == null || token.isBlank()) {
            throw new Args.UsageException("Missing --token (or $WORKTARGET_TOKEN).");
        }
        Path workdir = Path.of(a.get("workdir", ".")).toAbsolutePath().normalize();
        if (!Files.isDirectory(workdir)) {
            throw new Args.UsageException("--workdir " + workdir + " is not a directory.");
        }
        String separate = a.get("transfer-root", null);
        TransferSettings transferSettings = transferSettings(a);
        LocalBackend local = Backends.local(workdir, execSettings(a));
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
                    .workerThreads(a.intOption("workers", 16))
                    .tools(tools)
                    .processEndHook(local::processEnded)
                    .frameExtension(transfers.extension())
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
                local.close();
            }
        }, "worktarget-daemon-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        client.start();
        LOG.info("Daemon '{}' serving {} tools from {}; transfers {}", a.require("name"), tools.size(), workdir,
                separate != null ? "under " + separate + "/<tenant>/<project>" : "in the same directory");
        try {
            if (!client.awaitConnected(Duration.ofSeconds(30)) && !client.terminated().isDone()) {
                LOG.warn("Not connected after 30 s; still trying {}", uri);
            }
            client.terminated().get();
            return Main.OK;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ServerRefusedException r) {
                err.println("Refused: " + r.getMessage());
                return Main.REFUSED;
            }
            err.println("Stopped: " + e.getCause());
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
