package org.vancetope.worktarget.backend.daemon;

import io.netty.handler.ssl.SslContext;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.vancetope.worktarget.backend.daemon.internal.ClientSession;
import org.vancetope.worktarget.backend.daemon.internal.ClientSettings;
import org.vancetope.worktarget.backend.daemon.internal.Wire;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.BackendToolProvider;
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * The client end of the wire protocol (the "Foot" and daemon side): connects to a
 * {@link WorkTargetServer} with a bearer token, declares its tools in {@code hello}, and answers
 * {@code client_tool_invoke} frames by running those tools on a worker pool. The protocol is described in
 * {@code docs/protocol.md}, the builder's settings in {@code docs/configuration.md}.
 *
 * <pre>{@code
 * WorkTargetClient daemon = WorkTargetClient.builder()
 *         .uri(URI.create("ws://brain.example:7070/worktarget/v1"))
 *         .token(System.getenv("WORKTARGET_TOKEN"))
 *         .daemon("acme", "proj-research", "build-box-01")
 *         .tools(localBackend)                   // the client_* tools it serves
 *         .onCancel(call -> jobs.killStartedBy(call.correlationId()))
 *         .build()
 *         .start();
 * daemon.awaitConnected(Duration.ofSeconds(10));
 * // ...
 * daemon.close();
 * }</pre>
 *
 * <p>Calls run concurrently and are answered in any order; an invoke of a tool it does not serve is
 * answered {@code unknown_tool}. Every invocation is answered exactly once: a tool that throws anything
 * besides a {@code ToolException} (an {@code Error} too) is answered {@code internal}, and a result
 * larger than the frame limit ({@link Builder#maxFrameBytes}) is answered {@code size_limit}, without
 * disturbing the other calls. A {@code client_tool_cancel} interrupts the worker running the call
 * and calls the {@link Builder#onCancel cancel hook}. When the connection drops, running calls are
 * cancelled the same way and the client reconnects with exponential back-off and jitter; a refusal
 * that retrying cannot fix (HTTP 401, close 4403, 4409, 4426, 4400) stops it and completes
 * {@link #terminated()} with a {@link ServerRefusedException}. It does not implement file transfers;
 * frames of other types go to the {@link FrameExtension} given to the builder.
 */
public final class WorkTargetClient implements AutoCloseable {
    private final ClientSession session;

    private WorkTargetClient(ClientSettings settings) {
        this.session = new ClientSession(settings);
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
     * Starts connecting in the background (and reconnecting after drops).
     *
     * @return this
     */
    public WorkTargetClient start() {
        session.start();
        return this;
    }

    /**
     * Waits until the server accepted this client ({@code welcome}).
     *
     * @param timeout the longest wait
     * @return true when connected; false on timeout or when the client terminated
     * @throws InterruptedException when interrupted
     */
    public boolean awaitConnected(Duration timeout) throws InterruptedException {
        return session.awaitConnected(timeout);
    }

    /**
     * Waits until the server has accepted this client once. Unlike {@link #awaitConnected(Duration)}, this
     * is still true when that connection dropped again before the wait returned (the client reconnects by
     * itself): what a start-up deadline needs to know.
     *
     * @param timeout the longest wait
     * @return true once accepted; false on timeout or when the client terminated without being accepted
     * @throws InterruptedException when interrupted
     */
    public boolean awaitFirstConnection(Duration timeout) throws InterruptedException {
        return session.awaitWelcomedOnce(timeout);
    }

    /**
     * Whether the client is connected and welcomed now.
     *
     * @return true when connected
     */
    public boolean isConnected() {
        return session.isConnected();
    }

    /**
     * Replaces the tools this client serves and sends the new manifest to the server at once (and in
     * every later {@code hello}).
     *
     * @param tools the new tools
     * @throws IllegalArgumentException when two tools share a name
     */
    public void replaceTools(List<BackendTool> tools) {
        session.replaceTools(tools);
    }

    /**
     * Why the last connection attempt failed, for telling an operator why the client is not connected:
     * e.g. an {@link java.net.UnknownHostException}, a {@link java.net.ConnectException} (nothing listens),
     * an {@link javax.net.ssl.SSLException}, or Netty's handshake exception for an HTTP answer that was not
     * an upgrade. Kept after a later success; read it while {@link #isConnected()} is false.
     *
     * @return the failure, or empty when no attempt has failed
     */
    public Optional<Throwable> lastFailure() {
        return Optional.ofNullable(session.lastFailure());
    }

    /**
     * The number of invocations running now.
     *
     * @return the count
     */
    public int runningCalls() {
        return session.runningCalls();
    }

    /**
     * Completes when the client stopped for good: normally after {@link #close()}, exceptionally with
     * a {@link ServerRefusedException} when the server refused it in a way retrying cannot fix.
     *
     * @return the future
     */
    public CompletableFuture<Void> terminated() {
        return session.terminated();
    }

    /**
     * Closes the connection (WebSocket close 1000), interrupts running calls, calls the cancel hook
     * for each, and stops the threads. Idempotent.
     */
    @Override
    public void close() {
        session.close();
    }

    /** Settings of a {@link WorkTargetClient}. */
    public static final class Builder {
        private URI uri;
        private String token;
        private String profile;
        private String tenant;
        private String project;
        private String daemonName;
        private String sessionId;
        private String clientName = "worktarget-java/" + Runtime.version().feature();
        private final List<BackendTool> tools = new ArrayList<>();
        private Set<String> capabilities = Set.of(Wire.CAP_INVOKE_CONTEXT);
        private Consumer<ToolContext> processEndHook;
        private int workerThreads = 16;
        private Duration initialBackoff = Duration.ofMillis(500);
        private Duration maxBackoff = Duration.ofSeconds(30);
        private Duration pingInterval = Duration.ofSeconds(15);
        private int silentIntervalsBeforeClose = 3;
        private int maxFrameBytes = 2 * 1024 * 1024;
        private Duration handshakeTimeout = Duration.ofSeconds(10);
        private int lowWaterMark = 256 * 1024;
        private int highWaterMark = 1024 * 1024;
        private SslContext sslContext;
        private Consumer<CancelledCall> cancelHook;
        private FrameExtension extension;

        private Builder() {
        }

        /**
         * The server endpoint, e.g. {@code ws://host:7070/worktarget/v1} (required).
         *
         * @param uri a {@code ws://} or {@code wss://} URI
         * @return this
         */
        public Builder uri(URI uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
            return this;
        }

        /**
         * The bearer token (required).
         *
         * @param token the token
         * @return this
         */
        public Builder token(String token) {
            this.token = Objects.requireNonNull(token, "token");
            return this;
        }

        /**
         * Connects as the named daemon of a project ({@code profile=daemon}, the DAEMON target).
         *
         * @param tenant the tenant
         * @param project the project
         * @param name the daemon name, {@code [a-z0-9][a-z0-9_-]{0,63}}
         * @return this
         */
        public Builder daemon(String tenant, String project, String name) {
            this.profile = Wire.PROFILE_DAEMON;
            this.tenant = Objects.requireNonNull(tenant, "tenant");
            this.project = Objects.requireNonNull(project, "project");
            this.daemonName = Objects.requireNonNull(name, "name");
            this.sessionId = null;
            return this;
        }

        /**
         * Connects as the foot of a session ({@code profile=foot}, the CLIENT target).
         *
         * @param tenant the tenant
         * @param project the project, or null
         * @param sessionId the session
         * @return this
         */
        public Builder foot(String tenant, String project, String sessionId) {
            this.profile = Wire.PROFILE_FOOT;
            this.tenant = Objects.requireNonNull(tenant, "tenant");
            this.project = project;
            this.sessionId = Objects.requireNonNull(sessionId, "sessionId");
            this.daemonName = null;
            return this;
        }

        /**
         * How the client describes itself in {@code hello} (default {@code worktarget-java/<java version>}).
         *
         * @param name the name
         * @return this
         */
        public Builder clientName(String name) {
            this.clientName = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Adds the tools of a provider to those served.
         *
         * @param provider the provider, e.g. the local backend
         * @return this
         */
        public Builder tools(BackendToolProvider provider) {
            this.tools.addAll(provider.tools());
            return this;
        }

        /**
         * Adds tools to those served.
         *
         * @param more the tools
         * @return this
         */
        public Builder tools(List<BackendTool> more) {
            this.tools.addAll(more);
            return this;
        }

        /**
         * What to do when the server says that a process ended (capability {@code process.end}, offered
         * when this is set): typically the backend's {@code processEnded}, which ends the jobs of the
         * process's own scope. It runs on a worker thread, never on the I/O thread.
         *
         * <pre>{@code
         * WorkTargetClient.builder()...tools(local.tools()).processEndHook(local::processEnded).build();
         * }</pre>
         *
         * @param hook the hook, or null for none (the capability is then not offered)
         * @return this
         */
        public Builder processEndHook(Consumer<ToolContext> hook) {
            this.processEndHook = hook;
            return this;
        }

        /**
         * The capabilities offered in {@code hello} (default {@code invoke.context}: the server sends
         * the calling process's context with each invoke).
         *
         * @param caps the capability names
         * @return this
         */
        public Builder capabilities(Set<String> caps) {
            this.capabilities = new LinkedHashSet<>(caps);
            return this;
        }

        /**
         * How many calls may run at once (default 16); more wait in a queue of four per thread, and a call
         * beyond that is answered {@code size_limit} without running (a server cannot fill the heap with calls).
         *
         * @param threads at least 1
         * @return this
         */
        public Builder workerThreads(int threads) {
            this.workerThreads = threads;
            return this;
        }

        /**
         * The reconnect back-off: the first delay, doubled per failed attempt up to {@code max}, each
         * drawn at random from the upper half of the current step (defaults 500 ms and 30 s).
         *
         * @param initial the first delay
         * @param max the largest delay
         * @return this
         */
        public Builder reconnectBackoff(Duration initial, Duration max) {
            this.initialBackoff = Objects.requireNonNull(initial, "initial");
            this.maxBackoff = Objects.requireNonNull(max, "max");
            return this;
        }

        /**
         * Liveness: ping the server after this much silence, drop the connection (and reconnect) after
         * three such intervals (default 15 s).
         *
         * @param interval a positive duration
         * @return this
         */
        public Builder pingInterval(Duration interval) {
            this.pingInterval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /**
         * The largest frame payload accepted (default 2 MiB, the protocol's limit). What the client sends
         * is held to this and to the server's limit ({@code welcome.limits.maxFrameBytes}, 2 MiB when the
         * server announces none), whichever is smaller: a result whose frame would be larger is answered
         * as a {@code size_limit} error of that call instead.
         *
         * @param bytes at least 64 KiB
         * @return this
         */
        public Builder maxFrameBytes(int bytes) {
            this.maxFrameBytes = bytes;
            return this;
        }

        /**
         * How long connecting plus the upgrade may take (default 10 s).
         *
         * @param timeout a positive duration
         * @return this
         */
        public Builder handshakeTimeout(Duration timeout) {
            this.handshakeTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * TLS settings for {@code wss://} (default: the JDK's trust store).
         *
         * @param sslContext a client context
         * @return this
         */
        public Builder sslContext(SslContext sslContext) {
            this.sslContext = sslContext;
            return this;
        }

        /**
         * Called when a running call is cancelled by the server or by a disconnect, after its worker was
         * interrupted; use it to stop work the call started elsewhere (an exec job). It runs on the I/O
         * thread: it must be fast and must not block.
         *
         * @param hook the hook
         * @return this
         */
        public Builder onCancel(Consumer<CancelledCall> hook) {
            this.cancelHook = hook;
            return this;
        }

        /**
         * The connection's write-buffer watermarks (default 256 KiB / 1 MiB, as the server's): above
         * {@code high} queued bytes the connection is not writable and a transfer sender waits until it
         * drained below {@code low}. With Netty's own defaults (32 / 64 KiB) a single 87 KiB chunk frame
         * makes the connection unwritable, so an upload would run one chunk at a time.
         *
         * @param low the low watermark in bytes
         * @param high the high watermark in bytes
         * @return this
         */
        public Builder writeBufferWaterMark(int low, int high) {
            this.lowWaterMark = low;
            this.highWaterMark = high;
            return this;
        }

        /**
         * Handles frame types beyond the base protocol (default none).
         *
         * @param extension the extension, or null
         * @return this
         */
        public Builder frameExtension(FrameExtension extension) {
            this.extension = extension;
            return this;
        }

        /**
         * Validates and builds the client (not yet connecting).
         *
         * @return the client
         * @throws IllegalStateException when uri, token or the profile (daemon/foot) is missing
         * @throws IllegalArgumentException for a bad setting, naming it
         */
        public WorkTargetClient build() {
            if (uri == null || token == null || profile == null) {
                throw new IllegalStateException("uri, token and one of daemon(...) or foot(...) are required.");
            }
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
            require(("ws".equals(scheme) || "wss".equals(scheme)) && uri.getHost() != null,
                    "uri must be ws://HOST[:PORT]/PATH or wss://…, got " + uri);
            require(daemonName == null || DaemonKey.isValidName(daemonName),
                    "daemon name must be " + DaemonKey.NAME_RULE + ", got '" + daemonName + "'");
            require(workerThreads >= 1, "workerThreads must be at least 1");
            require(!initialBackoff.isNegative() && !initialBackoff.isZero() && maxBackoff.compareTo(initialBackoff) >= 0,
                    "reconnectBackoff needs 0 < initial <= max");
            require(!pingInterval.isNegative() && !pingInterval.isZero(), "pingInterval must be positive");
            require(maxFrameBytes >= 64 * 1024, "maxFrameBytes must be at least 64 KiB");
            require(!handshakeTimeout.isNegative() && !handshakeTimeout.isZero(), "handshakeTimeout must be positive");
            require(lowWaterMark > 0 && highWaterMark >= lowWaterMark, "writeBufferWaterMark needs 0 < low <= high");
            Set<String> offered = WorkTargetServer.offered(capabilities, extension);
            if (processEndHook != null) {
                offered.add(Wire.CAP_PROCESS_END);
            }
            return new WorkTargetClient(new ClientSettings(uri, token, profile, tenant, project, daemonName, sessionId,
                    clientName, offered, tools, workerThreads, initialBackoff, maxBackoff, pingInterval,
                    silentIntervalsBeforeClose, maxFrameBytes, handshakeTimeout, sslContext, cancelHook, extension,
                    lowWaterMark, highWaterMark, processEndHook));
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
