package org.vancetope.worktarget.mcp;

import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.internal.HttpGuards;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.core.ExecSettings;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.mcp.internal.AllowedOrigins;
import org.vancetope.worktarget.mcp.internal.CallRegistry;
import org.vancetope.worktarget.mcp.internal.StdioTransport;
import org.vancetope.worktarget.mcp.internal.StdioWarmUp;
import org.vancetope.worktarget.mcp.internal.StreamableHttpTransport;
import org.vancetope.worktarget.mcp.internal.ToolCalls;
import org.vancetope.worktarget.spi.AuthPrincipal;
import org.vancetope.worktarget.spi.Authenticator;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolSpec;

/**
 * The dispatcher's tools as an MCP server: the wrappers ({@code file_read}, {@code exec_run}, …), the
 * meta-tools ({@code work_target_get}, {@code work_target_set}) and the host's tools (such as the transfer
 * tools), each with annotations and an output schema, over stdio and over Streamable HTTP with bearer
 * tokens checked by an {@link Authenticator}. The WorkTarget routing is intact: an MCP client that calls
 * {@code work_target_set} with {@code DAEMON:box} runs its next calls on that daemon.
 *
 * <p>Results come back as {@code structuredContent} plus a JSON text rendering; a failed call is an
 * {@code isError} result whose text is the stable code and the message ({@code path_escape: …}). A
 * transfer whose result says {@code ok: false} is an {@code isError} result too, with its structured content.
 * {@code exec_run} and the host tools send {@code notifications/progress} while they run when the
 * client asked for progress; {@code notifications/cancelled} interrupts the call (a job it started is
 * killed, a remote call gets {@code client_tool_cancel}).
 *
 * <pre>{@code
 * McpWorkTargetServer mcp = McpWorkTargetServer.builder()
 *         .dispatcher(dispatcher)
 *         .processes(McpProcessMapping.perSession(store, dispatcher, "local", "local"))
 *         .build();
 * mcp.serveStdio(System.in, System.out);          // or: mcp.startHttp("127.0.0.1", 8080, authenticator)
 * mcp.awaitStdioEnd();
 * mcp.close();
 * }</pre>
 */
public final class McpWorkTargetServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(McpWorkTargetServer.class);

    /** The path of the Streamable HTTP endpoint. */
    public static final String HTTP_PATH = "/mcp";
    /**
     * The default of {@link Builder#httpMaxConnections}: 1,024, or a quarter of this process's limit of open
     * files when that is lower (read at class load from {@code /proc/self/limits}, where there is one).
     */
    public static final int DEFAULT_HTTP_MAX_CONNECTIONS = HttpGuards.ConnectionCap.defaultMax(1024, 4);
    /** The default of {@link Builder#httpMaxUnauthenticatedPerAddress}: 128. */
    public static final int DEFAULT_HTTP_MAX_UNAUTHENTICATED_PER_ADDRESS = 128;

    private final McpProcessMapping processes;
    private final List<ToolSpec> tools;
    private final String name;
    private final String version;
    private final McpJsonMapper json = McpJsonDefaults.getMapper();
    private final ScheduledExecutorService ticker;
    private final ExecutorService sessionEnds;
    private final Map<String, McpCaller> callers = new ConcurrentHashMap<>();
    private final Map<String, AuthPrincipal> principals = new ConcurrentHashMap<>();
    private final CallRegistry calls = new CallRegistry();
    private final ToolCalls toolCalls;
    private final Duration httpSessionIdle;
    private final Duration httpRequestTimeout;
    private final int maxCalls;
    private final int httpMaxSessions;
    private final int httpMaxConnections;
    private final int httpMaxUnauthenticatedPerAddress;
    private final AllowedOrigins allowedOrigins;
    private final List<McpSyncServer> servers = new ArrayList<>();
    private final boolean warmUp;
    private StdioTransport stdin;
    private StdioWarmUp warmUpRun;
    private StreamableHttpTransport http;
    private boolean closed;

    private McpWorkTargetServer(Builder b) {
        WorkTargetDispatcher dispatcher = Objects.requireNonNull(b.dispatcher, "dispatcher is required");
        this.processes = Objects.requireNonNull(b.processes, "processes is required: the process of each MCP session");
        List<ToolSpec> all = new ArrayList<>(b.tools != null ? b.tools : defaultTools());
        Set<String> waiting = new HashSet<>(Set.of("exec_run"));
        for (BackendTool t : b.hostTools) {
            all.add(t.spec());
            waiting.add(t.spec().name());
        }
        Set<String> names = new HashSet<>();
        for (ToolSpec s : all) {
            if (!names.add(s.name())) {
                throw new IllegalStateException("The tool '" + s.name() + "' is listed twice. List each tool once.");
            }
        }
        this.tools = List.copyOf(all);
        this.httpSessionIdle = b.httpSessionIdle;
        this.httpRequestTimeout = b.httpRequestTimeout;
        this.maxCalls = b.maxCalls;
        this.httpMaxSessions = b.httpMaxSessions;
        this.httpMaxConnections = b.httpMaxConnections;
        this.httpMaxUnauthenticatedPerAddress = b.httpMaxUnauthenticatedPerAddress;
        this.allowedOrigins = b.allowedOrigins;
        this.name = b.name;
        this.version = b.version;
        this.warmUp = b.warmUp;
        this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "worktarget-mcp-progress");
            t.setDaemon(true);
            return t;
        });
        // ending a session's process may wait for its jobs to die: never on a transport thread
        this.sessionEnds = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "worktarget-mcp-session-end");
            t.setDaemon(true);
            return t;
        });
        this.toolCalls = new ToolCalls(dispatcher, processes, this::caller, calls, ticker, b.progressInterval, waiting,
                json);
    }

    private static List<ToolSpec> defaultTools() {
        List<ToolSpec> specs = new ArrayList<>(ToolCatalog.wrappers());
        specs.addAll(ToolCatalog.metaTools());
        return specs;
    }

    /**
     * A new builder.
     *
     * @return the builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The tools this server lists.
     *
     * @return the specs, in listing order
     */
    public List<ToolSpec> tools() {
        return tools;
    }

    private McpCaller caller(String sessionId) {
        return callers.computeIfAbsent(sessionId, s -> new McpCaller(s, principals.get(s)));
    }

    private McpSyncServer sdkServer(McpServer.SyncSpecification<?> spec) {
        List<McpServerFeatures.SyncToolSpecification> specs = toolCalls.specifications(tools);
        return spec.serverInfo(name, version)
                .capabilities(McpSchema.ServerCapabilities.builder().tools(false).build())
                .jsonMapper(json)
                .validateToolInputs(false) // the dispatcher checks the parameters and answers invalid_params
                .jsonSchemaValidator(ToolCalls.RESULTS_CONFORM)
                .tools(specs)
                .build();
    }

    /**
     * Serves one MCP client over these streams (newline-delimited JSON-RPC), typically
     * {@code System.in} and {@code System.out}: nothing else may write to {@code out}. Returns at once.
     *
     * @param in the client's messages
     * @param out where the messages to the client go
     * @throws IllegalStateException when this server already serves stdio, or is closed
     */
    public synchronized void serveStdio(InputStream in, OutputStream out) {
        if (closed || stdin != null) {
            throw new IllegalStateException(closed ? "The MCP server is closed." : "The MCP server already serves stdio.");
        }
        stdin = new StdioTransport(json, Objects.requireNonNull(in, "in"), Objects.requireNonNull(out, "out"), calls,
                maxCalls);
        // the transport runs each request on the thread that read it (and reads on with another): at once
        servers.add(sdkServer(McpServer.sync(stdin).immediateExecution(true)));
        if (warmUp) {
            warmUpRun = StdioWarmUp.start(json, stdin::awaitIdle, McpWorkTargetServer::warmUpTarget,
                    StdioWarmUp.CALLS);
        }
    }

    /**
     * The warm-up's private server: this machine's file tools in the warm-up's own temporary directory.
     *
     * @param dir the directory
     * @return the server, not yet serving
     */
    static StdioWarmUp.Target warmUpTarget(Path dir) {
        LocalBackend local = LocalBackend.builder().workDirectory(dir).execSettings(ExecSettings.defaults()).build();
        InMemoryProcessStore store = new InMemoryProcessStore();
        WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder().processStore(store).peers(local).build();
        McpWorkTargetServer server = builder().dispatcher(dispatcher)
                .processes(McpProcessMapping.perSession(store, dispatcher, "warm-up", "warm-up")).build();
        return new StdioWarmUp.Target() {
            @Override
            public void serve(InputStream in, OutputStream out) {
                server.serveStdio(in, out);
            }

            @Override
            public void close() {
                try {
                    server.close();
                } finally {
                    local.close();
                }
            }
        };
    }

    /**
     * Waits until the stdio client closed its input (it disconnected), then cancels the calls still
     * running and waits (up to 30 s) until every request read was answered.
     *
     * @throws InterruptedException when interrupted while waiting
     * @throws IllegalStateException when this server does not serve stdio
     */
    public void awaitStdioEnd() throws InterruptedException {
        StdioTransport s;
        synchronized (this) {
            s = stdin;
        }
        if (s == null) {
            throw new IllegalStateException("The MCP server does not serve stdio: call serveStdio first.");
        }
        s.ended().await();
    }

    /**
     * Serves MCP clients over Streamable HTTP at {@code http://HOST:PORT/mcp}; every request must carry
     * {@code Authorization: Bearer TOKEN} with a token the authenticator accepts (401 otherwise), and a
     * session is bound to the principal that opened it (403 for another). A request whose {@code Origin} is
     * not one of the {@link Builder#allowedOrigins allowed origins} gets 403 first.
     *
     * @param host the interface to bind, e.g. {@code 127.0.0.1}
     * @param port the port, 0 for any free one
     * @param authenticator checks the tokens
     * @return the bound address
     * @throws IOException when the port cannot be bound
     * @throws IllegalStateException when this server already serves HTTP, or is closed
     */
    public synchronized InetSocketAddress startHttp(String host, int port, Authenticator authenticator)
            throws IOException {
        if (closed || http != null) {
            throw new IllegalStateException(closed ? "The MCP server is closed." : "The MCP server already serves HTTP.");
        }
        StreamableHttpTransport t = new StreamableHttpTransport(json, Objects.requireNonNull(authenticator,
                "authenticator"), calls, new StreamableHttpTransport.Sessions() {
                    @Override
                    public void opened(String sessionId, AuthPrincipal principal) {
                        principals.put(sessionId, principal);
                    }

                    @Override
                    public void closed(String sessionId) {
                        try {
                            sessionEnds.execute(() -> endSession(sessionId));
                        } catch (RejectedExecutionException e) {
                            // closing: close() ends every session itself
                        }
                    }
                }, httpSessionIdle, httpRequestTimeout, maxCalls, httpMaxSessions, allowedOrigins,
                httpMaxConnections, httpMaxUnauthenticatedPerAddress);
        // the transport runs each request on a thread of its own: at once (the SDK's default would queue
        // them for a few shared threads, where waiting calls hold up every other session's)
        servers.add(sdkServer(McpServer.sync(t).immediateExecution(true)));
        InetSocketAddress address = t.start(host, port);
        http = t;
        return address;
    }

    private void endSession(String sessionId) {
        principals.remove(sessionId);
        McpCaller c = callers.remove(sessionId);
        if (c != null) {
            processes.sessionClosed(c);
        }
    }

    /**
     * Closes the transports and the SDK servers, and tells the process mapping that every session ended
     * (which, for {@link McpProcessMapping#perSession}, ends their processes and kills their jobs). Over
     * HTTP it first stops listening, interrupts the calls still running and waits up to 5 s until they are
     * answered: what an interrupted tool still answers reaches its client (an upload cut off answers with its
     * resume id), a tool that fails reports that the server is shutting down. Close what the calls wait on
     * (the {@code WorkTargetServer} of the daemons, the transfers) before this, so they are answered at once.
     */
    @Override
    public void close() {
        List<McpSyncServer> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = List.copyOf(servers);
        }
        if (warmUpRun != null) {
            warmUpRun.close();
        }
        for (McpSyncServer s : toClose) {
            try {
                s.closeGracefully();
            } catch (RuntimeException e) {
                LOG.debug("Closing an MCP server failed: {}", e.toString());
            }
        }
        if (http != null) {
            http.close();
        }
        for (String s : List.copyOf(callers.keySet())) {
            endSession(s);
        }
        ticker.shutdownNow();
        sessionEnds.shutdown();
        try {
            sessionEnds.awaitTermination(60, TimeUnit.SECONDS);
            ticker.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Builds a {@link McpWorkTargetServer}. */
    public static final class Builder {
        private WorkTargetDispatcher dispatcher;
        private McpProcessMapping processes;
        private List<ToolSpec> tools;
        private final List<BackendTool> hostTools = new ArrayList<>();
        private Duration progressInterval = Duration.ofSeconds(1);
        private Duration httpSessionIdle = Duration.ofMinutes(30);
        private Duration httpRequestTimeout = Duration.ofSeconds(30);
        private int maxCalls = 256;
        private int httpMaxSessions = 64;
        private int httpMaxConnections = DEFAULT_HTTP_MAX_CONNECTIONS;
        private int httpMaxUnauthenticatedPerAddress = DEFAULT_HTTP_MAX_UNAUTHENTICATED_PER_ADDRESS;
        private AllowedOrigins allowedOrigins = AllowedOrigins.of(AllowedOrigins.LOOPBACK);
        private String name = "worktarget";
        private String version = "0.1.0";
        private boolean warmUp;

        private Builder() {
        }

        /**
         * Whether {@link #serveStdio} also primes the JVM on the call path (default false; the {@code mcp}
         * command turns it on). In the background, only while the client has no request unanswered, a private
         * copy of the server runs about two thousand calls of the file tools ({@code file_read}, {@code
         * file_head_tail}, {@code file_list}, {@code file_find}, {@code file_grep}, {@code file_edit}, {@code
         * file_write}, …) on a new temporary directory, deleted afterwards; it never touches the work
         * directory. The JVM runs a method interpreted until it was called some hundreds of times, so without
         * this a client's first few hundred small calls cost several times what later ones do. It takes a few
         * seconds of CPU after the start.
         *
         * @param value true to warm up
         * @return this
         */
        public Builder warmUp(boolean value) {
            this.warmUp = value;
            return this;
        }

        /**
         * The dispatcher that runs the tools (required).
         *
         * @param value the dispatcher
         * @return this
         */
        public Builder dispatcher(WorkTargetDispatcher value) {
            this.dispatcher = Objects.requireNonNull(value, "dispatcher");
            return this;
        }

        /**
         * Which process each MCP session's calls run as (required).
         *
         * @param value the mapping
         * @return this
         */
        public Builder processes(McpProcessMapping value) {
            this.processes = Objects.requireNonNull(value, "processes");
            return this;
        }

        /**
         * The wrappers and meta-tools to list (default: every wrapper and both meta-tools of the catalog).
         *
         * @param value the specs
         * @return this
         */
        public Builder tools(Collection<ToolSpec> value) {
            this.tools = List.copyOf(value);
            return this;
        }

        /**
         * Host tools the dispatcher runs (registered there with {@code hostTool}), listed too; they send
         * progress while they run, as transfers do.
         *
         * @param value the tools
         * @return this
         */
        public Builder hostTools(Collection<? extends BackendTool> value) {
            hostTools.addAll(value);
            return this;
        }

        /**
         * How often a waiting tool sends progress (default 1 s).
         *
         * @param value the interval, positive
         * @return this
         */
        public Builder progressInterval(Duration value) {
            this.progressInterval = positive(value, "progressInterval");
            return this;
        }

        /**
         * How long an HTTP session may go without a request and without an open stream before it ends as if
         * its client had deleted it (default 30 min): MCP clients that exit without {@code DELETE} leave
         * their sessions, and with {@link McpProcessMapping#perSession} their processes, behind otherwise.
         *
         * @param value the idle time, positive
         * @return this
         */
        public Builder httpSessionIdle(Duration value) {
            this.httpSessionIdle = positive(value, "httpSessionIdle");
            return this;
        }

        /**
         * How many HTTP sessions one principal (one token's subject) may have open at a time (default 64). MCP
         * clients that restart without {@code DELETE} open a new session each time; when one more is
         * initialized, the principal's session used least recently that has no call running and no stream
         * open ends (as if deleted) to make room, and when every one of them is busy, the {@code initialize}
         * is answered with a JSON-RPC error (code -32000) that says so. Sessions, and with
         * {@link McpProcessMapping#perSession} their processes, thus cannot pile up for
         * {@link #httpSessionIdle} however often a client reconnects.
         *
         * @param value the limit, at least 1
         * @return this
         */
        public Builder httpMaxSessionsPerPrincipal(int value) {
            this.httpMaxSessions = atLeastOne(value, "httpMaxSessionsPerPrincipal");
            return this;
        }

        /**
         * How many connections the HTTP server holds at once (default {@link #DEFAULT_HTTP_MAX_CONNECTIONS}:
         * 1,024, or a quarter of this process's limit of open files when that is lower). A connection over it is
         * closed at once, before anything is read, so that a client that opens sockets without end cannot use
         * up the file descriptors the tools and jobs of every session need. One principal (a token's subject)
         * may hold at most a quarter of them (at least one), counted from a connection's first request with its
         * token; its request on one more is answered 429 and the connection closed, so that one token's slow
         * bodies or idle keep-alives leave the other tokens room.
         *
         * @param value the limit, at least 1
         * @return this
         */
        public Builder httpMaxConnections(int value) {
            this.httpMaxConnections = atLeastOne(value, "httpMaxConnections");
            return this;
        }

        /**
         * How many HTTP connections one remote address may hold before it sent a request with an accepted token
         * (default {@link #DEFAULT_HTTP_MAX_UNAUTHENTICATED_PER_ADDRESS}; 0 for no such cap). One more closes the
         * oldest of them, so that sockets which send nothing can neither take every place of
         * {@link #httpMaxConnections} nor keep out a client that sends its token at once, of another host or of
         * the same one; a connection whose request carried an accepted token no longer counts.
         * Many clients behind one NAT address that all connect at once may need more.
         *
         * @param value 0 (no cap) or more
         * @return this
         */
        public Builder httpMaxUnauthenticatedPerAddress(int value) {
            if (value < 0) {
                throw new IllegalArgumentException("httpMaxUnauthenticatedPerAddress must be 0 (no cap) or more, got "
                        + value + ".");
            }
            this.httpMaxUnauthenticatedPerAddress = value;
            return this;
        }

        /**
         * How long a whole HTTP request may take to arrive, counted from the connection or from the previous
         * answer on it (default 30 s): a client that sends too slowly, or keeps a connection idle longer, gets
         * 408 and the connection closes, so that slow or idle connections cannot pile up. A request that has
         * arrived is answered however long its call runs, and a stream stays open as long as it lasts.
         *
         * @param value the time, positive
         * @return this
         */
        public Builder httpRequestTimeout(Duration value) {
            this.httpRequestTimeout = positive(value, "httpRequestTimeout");
            return this;
        }

        /**
         * How many requests may run at a time (default 256): on stdio, the one client's; over HTTP, those of all
         * sessions together. Each runs on a thread of its own, so a call that waits long ({@code exec_run} with
         * a long {@code waitMs}) holds up no other; a request beyond the limit is answered at once with a
         * JSON-RPC error (code -32000) that says to send it again later, so that a client that floods the
         * server costs it no more than this many threads. Over HTTP one principal (a token's subject) may have
         * at most a quarter of them running (at least one), over all its sessions, so that one token cannot
         * take every slot from the others.
         *
         * @param value the limit, at least 1
         * @return this
         */
        public Builder maxConcurrentCalls(int value) {
            this.maxCalls = atLeastOne(value, "maxConcurrentCalls");
            return this;
        }

        private static int atLeastOne(int value, String what) {
            if (value < 1) {
                throw new IllegalArgumentException(what + " must be at least 1, got " + value + ".");
            }
            return value;
        }

        private static Duration positive(Duration value, String what) {
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, got " + value + ".");
            }
            return value;
        }

        /**
         * The browser origins the HTTP endpoint serves (default: pages on loopback, {@code http://localhost:*},
         * {@code http://127.0.0.1:*}, {@code http://[::1]:*} and the same with {@code https}). A request whose
         * {@code Origin} header is not one of them is refused with 403 and a JSON-RPC error, before its token
         * is looked at, as MCP requires against DNS rebinding; a request without {@code Origin} (an MCP client
         * that is not a browser) is judged by its token alone. The list replaces the default: include the
         * loopback entries to keep them.
         *
         * @param value entries {@code scheme://host}, {@code scheme://host:port} or {@code scheme://host:*} (any
         *              port), e.g. {@code https://app.example.com}; empty to refuse every browser origin
         * @return this
         * @throws IllegalArgumentException for an entry not of that form
         */
        public Builder allowedOrigins(Collection<String> value) {
            this.allowedOrigins = AllowedOrigins.of(value);
            return this;
        }

        /**
         * The name and version the server reports to clients (default {@code worktarget}, {@code 0.1.0}).
         *
         * @param serverName the name
         * @param serverVersion the version
         * @return this
         */
        public Builder serverInfo(String serverName, String serverVersion) {
            this.name = Objects.requireNonNull(serverName, "serverName");
            this.version = Objects.requireNonNull(serverVersion, "serverVersion");
            return this;
        }

        /**
         * Builds the server (no transport runs yet).
         *
         * @return the server
         * @throws NullPointerException without a dispatcher or a process mapping
         * @throws IllegalStateException when a tool is listed twice
         */
        public McpWorkTargetServer build() {
            return new McpWorkTargetServer(this);
        }
    }
}
