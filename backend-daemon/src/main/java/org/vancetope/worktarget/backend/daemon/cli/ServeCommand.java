package org.vancetope.worktarget.backend.daemon.cli;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.BindException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.FleetLink;
import org.vancetope.worktarget.backend.daemon.ServerTransfers;
import org.vancetope.worktarget.backend.daemon.TokenAuthenticator;
import org.vancetope.worktarget.backend.daemon.WorkTargetServer;
import org.vancetope.worktarget.backend.daemon.internal.Args;
import org.vancetope.worktarget.backend.daemon.internal.ExecOptions;
import org.vancetope.worktarget.backend.daemon.internal.Ids;
import org.vancetope.worktarget.backend.daemon.internal.WorkspaceOptions;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferSettings;

/** {@code serve}: a standalone server with a WORK backend and the loopback admin API. */
final class ServeCommand {
    private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);
    static final String HELP = String.join("\n",
            "Usage: serve --workspace DIR --tokens FILE [--port 7070] [--bind 127.0.0.1]",
            "             [--admin-port PORT+1] [--admin-token-file FILE] [--tls-cert PEM --tls-key PEM]",
            "             [--request-timeout SECONDS] [--max-connections N] [--no-sync] [--max-transfer-mib N]",
            "             " + WorkspaceOptions.USAGE.get(0),
            "             " + WorkspaceOptions.USAGE.get(1),
            "             " + WorkspaceOptions.USAGE.get(2) + " " + ExecOptions.USAGE_TIME,
            "             " + ExecOptions.USAGE,
            "             [--process-idle-minutes N] [--max-processes N]",
            "             [--max-unauthenticated-per-address N] [--max-connections-per-subject N]",
            "             [--redis-uri URI --node-id ID]",
            "",
            "Runs a WorkTarget server: foots and daemons connect to ws://BIND:PORT/worktarget/v1 with a token",
            "from FILE; WORK calls run in DIR. An admin HTTP API listens on 127.0.0.1:ADMIN-PORT:",
            "  GET  /admin/v1/connections   connected foots and daemons",
            "  POST /admin/v1/call          {tenant, project, processId?, sessionId?, target, tool, params}",
            "  GET  /admin/v1/processes     the named processes (calls with a processId)",
            "  DELETE /admin/v1/processes/ID  end a named process (its temp RootDir goes, its jobs end)",
            "A call without processId runs in a one-shot process, closed after the call (its temp RootDir goes).",
            "",
            "  --workspace DIR     the WORK workspace directory",
            "  --tokens FILE       {\"tokens\":[{\"token\":…,\"subject\":…,\"tenant\":…,\"projects\":[…],\"user\":…}]}:",
            "                      token, tenant and projects are required ([\"*\"] every project of the tenant,",
            "                      [] none: a foot that only needs the tenant); a file with an unknown key, a",
            "                      missing one or no token at all is refused, naming the line",
            "  --port PORT         the WebSocket port (default 7070)",
            "  --bind HOST         the interface (default 127.0.0.1; 0.0.0.0 for remote daemons)",
            "  --admin-port PORT   the admin API port on 127.0.0.1 (default PORT+1)",
            "  --admin-token T     the admin token; prefer $WORKTARGET_ADMIN_TOKEN: an option is visible to",
            "                      every user of the machine in 'ps'. With neither, a token is generated and",
            "                      written to --admin-token-file, readable only by this user",
            "  --admin-token-file FILE  where a generated admin token goes (default",
            "                      ~/.worktarget/admin-token-ADMIN-PORT); deleted when serve stops",
            "  --tls-cert/--tls-key  serve wss:// with this PEM certificate chain and key",
            "  --request-timeout S how long a new connection may take to send its whole WebSocket upgrade",
            "                      request, and an admin connection each whole request (default 10); then 408",
            "  --max-connections N the most connections the WebSocket port holds at once, upgraded or not; one",
            "                      more is closed at once (default " + WorkTargetServer.DEFAULT_MAX_CONNECTIONS
                    + " here: 10000, or half of the limit of open files)",
            "  --max-unauthenticated-per-address N  the most connections one remote address may hold before",
            "                      their token is accepted (default "
                    + WorkTargetServer.DEFAULT_MAX_UNAUTHENTICATED_PER_ADDRESS + "; 0 no cap); more clients behind one",
            "                      NAT address that connect all at once may need more",
            "  --max-connections-per-subject N  the most open daemon and foot connections of one token's",
            "                      subject; one more is told to retry later (close 1013), a reconnect of its own",
            "                      daemon still replaces the old connection (default 0: no cap). With several",
            "                      tenants, it keeps one token from taking the connections the others need",
            "  --no-sync           rename an uploaded, verified file without forcing it to the disk first",
            "                      (faster for big files; after a power loss the file may be empty or short)",
            "  --max-transfer-mib N  the largest file one transfer moves, either way (default "
                    + (TransferSettings.defaults().maxUploadSize() >> 20) + ")",
            String.join("\n", WorkspaceOptions.help(22)),
            String.join("\n", ExecOptions.help(22, "WORK job", "server")),
            "  --process-idle-minutes N  end a named process after N minutes without a call (default "
                    + AdminServer.Limits.DEFAULT_PROCESS_IDLE.toMinutes() + "; 0 never); the temp RootDirs",
            "                      of processes of a killed serve wait as long for them after the next start",
            "  --max-processes N   the most named processes at once; a call naming one more gets 429 (default "
                    + AdminServer.Limits.DEFAULT_MAX_PROCESSES + ")",
            "  --redis-uri URI     join a fleet of server nodes through Redis (redis://HOST:PORT): calls for",
            "                      daemons and foots connected to another node are forwarded there; needs the",
            "                      cluster-redis module on the class path (docs/cluster.md). Without it: one node.",
            "                      A Redis that does not answer yet is waited for (the node serves its own peers);",
            "                      one that refuses the node (password, database, rights) stops serve (exit 2)",
            "  --node-id ID        this node's id in the fleet, unique (1 to 64 of A-Za-z0-9_.-); with --redis-uri.",
            "                      An id that a stopped node left in Redis is taken once it expires (at most the",
            "                      presence time, 6 s); one that a live node holds is refused (exit 2)",
            "",
            "Stops on SIGTERM or Ctrl-C: closes the connections, ends every job, then exits 0.",
            "",
            Main.exitCodes(Main.OK, "stopped by SIGTERM or Ctrl-C",
                    Main.USAGE, "bad command line, tokens file, TLS files or setting (the message names it), "
                            + "--node-id held by a live node of the fleet, or a Redis that refuses --redis-uri",
                    Main.UNREACHABLE, "cannot bind --port or --admin-port (the message names the port and the cause)"));

    private ServeCommand() {
    }

    /** A started serve: the WebSocket server, the admin API and what they run on. */
    static final class Running implements AutoCloseable {
        private final WorkTargetServer server;
        private final AdminServer admin;
        private final ServerTransfers transfers;
        private final WorkspaceBackend work;
        private final Path generatedTokenFile;

        private Running(WorkTargetServer server, AdminServer admin, ServerTransfers transfers, WorkspaceBackend work,
                        Path generatedTokenFile) {
            this.server = server;
            this.admin = admin;
            this.transfers = transfers;
            this.work = work;
            this.generatedTokenFile = generatedTokenFile;
        }

        WorkTargetServer server() {
            return server;
        }

        int adminPort() {
            return admin.address().getPort();
        }

        /** The file of the generated admin token, or empty when the token was given. */
        Optional<Path> generatedTokenFile() {
            return Optional.ofNullable(generatedTokenFile);
        }

        /**
         * Stops taking admin connections, closes the server (the peers' connections) and the transfers (an
         * upload cut off is kept, and its call answered with the resume id), then the admin API (the calls
         * still running are interrupted and answered) and the backend (which waits until every job tree has
         * ended: SIGTERM, up to the kill grace, SIGKILL), each even when an earlier close fails, and deletes
         * a generated admin token file.
         */
        @Override
        public void close() {
            try {
                admin.stopAccepting();
                try {
                    server.close();
                    transfers.close();
                } finally {
                    admin.close();
                }
            } finally {
                try {
                    work.close();
                } finally {
                    deleteTokenFile();
                }
            }
        }

        private void deleteTokenFile() {
            if (generatedTokenFile == null) {
                return;
            }
            try {
                Files.deleteIfExists(generatedTokenFile);
            } catch (IOException e) {
                LOG.warn("Could not delete the admin token file {}: {}; delete it by hand", generatedTokenFile,
                        e.toString());
            }
        }
    }

    static int run(List<String> argv, PrintStream out, PrintStream err) throws Args.UsageException {
        Running running = start(argv, out, err);
        if (running == null) {
            return Main.UNREACHABLE;
        }
        if (running.server == null) {
            return Main.OK;     // --help
        }
        CountDownLatch stopped = new CountDownLatch(1);
        // The JVM exits when the hook returns: closing the backend waits until every job tree has ended.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.info("Shutting down");
            try {
                running.close();
                LOG.info("Stopped");
            } finally {
                stopped.countDown();
                Main.exitFromShutdownHook();
            }
        }, "worktarget-serve-shutdown"));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Main.OK;
    }

    /**
     * Validates the command line and starts serving.
     *
     * @param argv the arguments after {@code serve}
     * @param out where the help goes
     * @param err where a bind failure is reported
     * @return the running serve; one without a server after {@code --help}; null when a port cannot be bound
     * @throws Args.UsageException for a bad command line or configuration
     */
    static Running start(List<String> argv, PrintStream out, PrintStream err) throws Args.UsageException {
        Args a = Args.parse(argv, ExecOptions.withOwn(WorkspaceOptions.NAMES, "workspace", "tokens", "port", "bind",
                "admin-port", "admin-token", "admin-token-file", "tls-cert", "tls-key", "request-timeout",
                "max-transfer-mib", "redis-uri",
                "node-id", "process-idle-minutes", "max-processes", "max-connections", "max-unauthenticated-per-address",
                "max-connections-per-subject",
                "max-rootdirs", "project-max-mib"),
                Set.of("help", "no-sync"));
        if (a.flag("help")) {
            out.println(HELP);
            return new Running(null, null, null, null, null);
        }
        Path workspace = a.directory("workspace", null);
        TokenAuthenticator auth = tokens(a.require("tokens"));
        int port = a.intOption("port", 7070, 0, 65535);
        int adminPort = a.intOption("admin-port", port == 0 ? 0 : Math.min(port + 1, 65535), 0, 65535);
        String bind = a.get("bind", "127.0.0.1");
        int requestTimeoutSeconds = a.intOption("request-timeout",
                (int) AdminServer.Limits.DEFAULT_REQUEST_TIMEOUT.toSeconds(), 1, 3600);
        Duration requestTimeout = Duration.ofSeconds(requestTimeoutSeconds);
        Duration processIdle = Duration.ofMinutes(a.intOption("process-idle-minutes",
                (int) AdminServer.Limits.DEFAULT_PROCESS_IDLE.toMinutes(), 0, 525_600));
        int maxProcesses = a.intOption("max-processes", AdminServer.Limits.DEFAULT_MAX_PROCESSES, 1, 1_000_000);
        int maxConnections = a.intOption("max-connections", WorkTargetServer.DEFAULT_MAX_CONNECTIONS, 1, 1_000_000);
        int maxUnauthenticated = a.intOption("max-unauthenticated-per-address",
                WorkTargetServer.DEFAULT_MAX_UNAUTHENTICATED_PER_ADDRESS, 0, 1_000_000);
        int maxPerSubject = a.intOption("max-connections-per-subject", 0, 0, 1_000_000);
        String adminToken = a.get("admin-token", System.getenv("WORKTARGET_ADMIN_TOKEN"));
        boolean generated = adminToken == null || adminToken.isBlank();
        if (generated) {
            adminToken = new Ids().next("adm-");
        }
        SslContext ssl = tls(a);
        FleetLink fleet = fleet(a);
        TransferSettings transferSettings = transferSettings(a);
        WorkspaceBackend.Builder wb = WorkspaceOptions.builder(a, workspace);
        if (!processIdle.isZero()) {
            // the processes live in memory: what a killed run's processes left waits as long as an idle process
            // would (a named process may come back, an upload be resumed), then goes
            wb.processesEndWithJvm(processIdle);
        }
        WorkspaceBackend work;
        try {
            work = ExecOptions.build(wb::build);      // its exec engine checks the jobs' control group directory
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new Args.UsageException("Cannot open the workspace " + workspace + ": " + e.getMessage() + ". Check "
                    + "that this user may write there (and in --homes).");
        }
        ServerTransfers transfers = ServerTransfers.create(
                work.transferRoots(),
                transferSettings, TransferListener.NONE);
        WorkTargetServer server;
        try {
            WorkTargetServer.Builder sb = WorkTargetServer.builder().host(bind).port(port).authenticator(auth)
                    .sslContext(ssl).transfers(transfers).upgradeTimeout(requestTimeout).maxConnections(maxConnections)
                    .maxUnauthenticatedPerAddress(maxUnauthenticated).maxConnectionsPerSubject(maxPerSubject);
            if (fleet != null) {
                sb.fleet(fleet);
            }
            server = sb.build();
        } catch (IllegalArgumentException e) {
            transfers.close();
            work.close();
            throw new Args.UsageException(e.getMessage() + ".");
        }
        InMemoryProcessStore store = new InMemoryProcessStore();
        WorkTargetDispatcher.Builder db = WorkTargetDispatcher.builder().processStore(store).peers(server.peers());
        db.backend(work);
        transfers.tools(work.ephemeralDirs()).forEach(db::hostTool);
        // a call without processId runs in a one-shot process; its end reaches every backend
        AdminServer admin = new AdminServer(server, db.build(), store, adminToken,
                AdminServer.Limits.defaults().withRequestTimeout(requestTimeout).withProcesses(processIdle, maxProcesses),
                fleet == null ? null : fleet.nodeId());
        try {
            // the admin port first: a clash there must not follow a "listening on" of the WebSocket server
            admin.start("127.0.0.1", adminPort);
        } catch (IOException e) {
            transfers.close();
            work.close();
            err.println(e.getMessage() + " Option: --admin-port.");
            return null;
        }
        try {
            server.start();
        } catch (IOException e) {
            admin.close();
            transfers.close();
            work.close();
            if (e instanceof BindException) {
                err.println(e.getMessage() + " Options: --port, --bind.");
                return null;
            }
            // the fleet refused the node: --node-id in use, or Redis refused --redis-uri
            throw new Args.UsageException(e.getMessage());
        }
        Path tokenFile = null;
        if (generated) {
            Path file = Path.of(a.get("admin-token-file", Path.of(System.getProperty("user.home"), ".worktarget",
                    "admin-token-" + admin.address().getPort()).toString())).toAbsolutePath();
            try {
                writeOwnerOnly(file, adminToken);
                tokenFile = file;
            } catch (IOException | UnsupportedOperationException e) {   // the latter: no POSIX permissions there
                new Running(server, admin, transfers, work, null).close();
                throw new Args.UsageException("Cannot write the generated admin token to " + file + " readable only by "
                        + "this user: " + e + ". Give an --admin-token-file on a writable POSIX file system, or set "
                        + "$WORKTARGET_ADMIN_TOKEN.");
            }
        }
        LOG.info("Admin API on http://127.0.0.1:{}/admin/v1/ ({})", admin.address().getPort(), generated
                ? "generated admin token in " + tokenFile + ", readable only by this user; for call: "
                + "WORKTARGET_ADMIN_TOKEN=$(cat " + tokenFile + ")"
                : "admin token as given");
        return new Running(server, admin, transfers, work, tokenFile);
    }

    /** The fleet link of --redis-uri and --node-id, or null for a single node. */
    private static FleetLink fleet(Args a) throws Args.UsageException {
        String uri = a.get("redis-uri", null);
        String nodeId = a.get("node-id", null);
        if (uri == null && nodeId == null) {
            return null;
        }
        if (uri == null || nodeId == null) {
            throw new Args.UsageException("--redis-uri and --node-id go together: give both to join a fleet, or "
                    + "neither for a single node.");
        }
        for (FleetLink.Factory f : java.util.ServiceLoader.load(FleetLink.Factory.class)) {
            if (f.accepts(uri)) {
                try {
                    return f.create(uri, nodeId);
                } catch (IllegalArgumentException e) {
                    throw new Args.UsageException("--redis-uri/--node-id: " + e.getMessage() + ".");
                }
            }
        }
        String scheme = uri.indexOf(':') > 0 ? uri.substring(0, uri.indexOf(':')).toLowerCase(java.util.Locale.ROOT)
                : "";
        if (!scheme.equals("redis") && !scheme.equals("rediss")) {
            throw new Args.UsageException("--redis-uri " + uri + ": the URI must start with redis:// (or rediss:// "
                    + "for TLS), e.g. redis://127.0.0.1:6379/0.");
        }
        throw new Args.UsageException("--redis-uri " + uri + " needs a fleet link for it on the class path: the "
                + "cluster-redis module (and Lettuce) for redis:// and rediss://, see docs/cluster.md. Add them to "
                + "the class path, or leave out --redis-uri and --node-id for a single node.");
    }

    private static TokenAuthenticator tokens(String file) throws Args.UsageException {
        try {
            return TokenAuthenticator.fromJson(Path.of(file));
        } catch (NoSuchFileException e) {
            throw new Args.UsageException("Cannot read --tokens " + file + ": there is no such file.");
        } catch (IOException e) {
            throw new Args.UsageException("Cannot read --tokens " + file + ": " + e + ".");
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException("--tokens " + e.getMessage());
        }
    }

    private static SslContext tls(Args a) throws Args.UsageException {
        if (a.get("tls-cert", null) == null && a.get("tls-key", null) == null) {
            return null;
        }
        String certFile = a.require("tls-cert");
        String keyFile = a.require("tls-key");
        requireReadableFile("tls-cert", certFile);
        requireReadableFile("tls-key", keyFile);
        try (InputStream cert = Files.newInputStream(Path.of(certFile));
             InputStream key = Files.newInputStream(Path.of(keyFile))) {
            return SslContextBuilder.forServer(cert, key).build();
        } catch (IOException | IllegalArgumentException e) {
            String why = String.valueOf(e.getMessage()).strip();
            while (why.endsWith(".")) {
                why = why.substring(0, why.length() - 1);
            }
            throw new Args.UsageException("Cannot load the TLS certificate (--tls-cert " + certFile + ") or key "
                    + "(--tls-key " + keyFile + "): " + why + ". Give PEM files: --tls-cert the chain, --tls-key the "
                    + "unencrypted PKCS#8 key.");
        }
    }

    private static void requireReadableFile(String option, String name) throws Args.UsageException {
        Path file = Path.of(name);
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new Args.UsageException("--" + option + " " + file + ": " + (Files.exists(file) ? "not a readable file"
                    : "there is no such file") + ". Give PEM files: --tls-cert the chain, --tls-key the unencrypted "
                    + "PKCS#8 key.");
        }
    }

    private static TransferSettings transferSettings(Args a) throws Args.UsageException {
        TransferSettings defaults = TransferSettings.defaults();
        long bytes = (long) a.intOption("max-transfer-mib", (int) (defaults.maxUploadSize() >> 20), 1, 1 << 20) << 20;
        try {
            return defaults.toBuilder().maxUploadSize(bytes).maxDownloadSize(bytes)
                    .syncBeforeCommit(!a.flag("no-sync")).build();
        } catch (IllegalArgumentException e) {
            throw new Args.UsageException("--max-transfer-mib: " + e.getMessage() + ".");
        }
    }

    /** Writes a secret to a new file that only this user may read (0600), in a directory only it may enter. */
    static void writeOwnerOnly(Path file, String secret) throws IOException {
        Path dir = file.getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Files.deleteIfExists(file);
        try {
            Files.writeString(Files.createFile(file, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------"))), secret + "\n", StandardCharsets.UTF_8);
        } catch (FileAlreadyExistsException e) {
            throw new IOException("another process created " + file + " at the same time", e);
        }
    }
}
