package org.vancetope.worktarget.core.transfer;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.Supplier;
import org.vancetope.worktarget.core.internal.transfer.TransferEngine;
import org.vancetope.worktarget.spi.FrameChannel;

/**
 * One side (Brain or Foot) of file transfer: runs the sender and receiver state machines of the
 * transfer frames ({@link TransferFrame}) for every channel {@linkplain #attach attached} to it. The same implementation serves both
 * sides; {@link TransferSide} only picks limits, mode mask and whether unsolicited
 * {@code transfer_init}s are accepted (the Foot accepts downloads; the Brain accepts only uploads it
 * requested).
 *
 * <pre>{@code
 * TransferEndpoint foot = TransferEndpoint.builder(TransferSide.FOOT)
 *         .resolver(TargetResolver.at(workDir))
 *         .build();
 * TransferConnection conn = foot.attach(channel, new TransferScope("acme", "proj-research"));
 * // transport: for every decoded frame  conn.onFrame(frame);   when the socket closes  conn.onClose();
 * }</pre>
 *
 * <p>Timeouts per phase and the cleanup sweep keep the pending maps bounded: after every outcome
 * both sides' maps end empty. It does not decode frames (see {@code transfer-protocol}). With
 * {@link TransferCapability#RESUME} a receiver keeps the staging file of a transfer whose connection
 * ended, for {@link TransferSettings#resumeRetention()}, and a sender takes it up with
 * {@link TransferConnection#resume}.
 */
public final class TransferEndpoint implements AutoCloseable {
    private final TransferEngine engine;
    private final ScheduledExecutorService ownedScheduler;
    private final TransferSettings settings;

    private TransferEndpoint(TransferEngine engine, ScheduledExecutorService ownedScheduler, TransferSettings settings) {
        this.engine = engine;
        this.ownedScheduler = ownedScheduler;
        this.settings = settings;
    }

    /**
     * Starts a builder.
     *
     * @param side which end this endpoint is
     * @return the builder
     */
    public static Builder builder(TransferSide side) {
        return new Builder(side);
    }

    /**
     * Binds a channel to this endpoint. Transfers belong to the channel they started on.
     *
     * @param channel the channel (one connection)
     * @param scope the tenant and project of the connection
     * @return the connection handle the transport feeds frames into
     */
    public TransferConnection attach(FrameChannel<TransferFrame> channel, TransferScope scope) {
        return attach(channel, scope, Set.of());
    }

    /**
     * Binds a channel whose ends negotiated transfer capabilities to this endpoint.
     *
     * @param channel the channel (one connection)
     * @param scope the tenant and project of the connection
     * @param capabilities the capabilities both ends listed; transfers on the channel use exactly these
     * @return the connection handle the transport feeds frames into
     */
    public TransferConnection attach(FrameChannel<TransferFrame> channel, TransferScope scope,
                                     Set<TransferCapability> capabilities) {
        return attach(channel, scope, capabilities, PeerLimits.NONE);
    }

    /**
     * Binds a channel whose ends negotiated transfer capabilities, and whose peer announced limits, to
     * this endpoint: every file this end sends on the channel is cut into chunks within both this end's
     * {@link TransferSettings#chunkSize()} and the peer's {@link PeerLimits#maxChunkBytes()}, and a file
     * larger than the peer's {@link PeerLimits#maxFileSize()} is refused ({@code size_limit}) before
     * anything is sent.
     *
     * @param channel the channel (one connection)
     * @param scope the tenant and project of the connection
     * @param capabilities the capabilities both ends listed; transfers on the channel use exactly these
     * @param peerLimits what the peer announced it accepts ({@link PeerLimits#NONE}: nothing)
     * @return the connection handle the transport feeds frames into
     */
    public TransferConnection attach(FrameChannel<TransferFrame> channel, TransferScope scope,
                                     Set<TransferCapability> capabilities, PeerLimits peerLimits) {
        TransferConnection c = new TransferConnection(engine, Objects.requireNonNull(channel, "channel"),
                Objects.requireNonNull(scope, "scope"), Objects.requireNonNull(capabilities, "capabilities"));
        engine.attached(channel, scope, capabilities, Objects.requireNonNull(peerLimits, "peerLimits"));
        return c;
    }

    /**
     * Deletes the transfers kept for a resume ({@link TransferCapability#RESUME}) in the root of a scope
     * whose {@link TransferSettings#resumeRetention()} is over, now and on every later cleanup sweep: a
     * receiver calls it when it starts, so what a previous process kept does not outlive its retention.
     *
     * @param scope the tenant and project
     * @param dirName the Brain RootDir, or null for the root of a client
     */
    public void sweepKept(TransferScope scope, String dirName) {
        TargetResolution r = engine.resolveRoot(scope, dirName);
        if (r.ok()) {
            engine.sweepKept(r.root());
        }
    }

    /**
     * Deletes the transfers kept for a resume in a root whose {@link TransferSettings#resumeRetention()} is
     * over, and sweeps the root again on every later cleanup sweep while it keeps some: a server calls it
     * for each of its RootDirs when it starts ({@code ServerTransfers} does), so that what an earlier run
     * kept in a RootDir nothing is transferred into any more does not stay on disk.
     *
     * @param root the root directory
     */
    public void sweepKeptIn(Path root) {
        engine.sweepKeptAtStart(Objects.requireNonNull(root, "root"));
    }

    /**
     * The number of transfers kept for a resume: their connection ended while receiving, their staging
     * file waits for a {@code transfer_resume} (not counted in {@link #pendingReceives()}).
     *
     * @return kept receivers
     */
    public int keptReceives() {
        return engine.keptReceives();
    }

    /**
     * Which end of the connections this endpoint is.
     *
     * @return the side
     */
    public TransferSide side() {
        return engine.side();
    }

    /**
     * The settings this endpoint runs with.
     *
     * @return the settings
     */
    public TransferSettings settings() {
        return settings;
    }

    /**
     * The number of transfers this endpoint is sending right now.
     *
     * @return pending senders
     */
    public int pendingSends() {
        return engine.pendingSends();
    }

    /**
     * The number of transfers this endpoint is receiving (or awaiting {@code transfer_finish} for).
     *
     * @return pending receivers
     */
    public int pendingReceives() {
        return engine.pendingReceives();
    }

    /**
     * The number of directory transfers this endpoint runs that wait for their peer: for its manifest or its
     * answer to one, or for the peer to come back after their connection was lost while the files were sent
     * (a running file of a directory transfer counts in {@link #pendingSends()} or {@link #pendingReceives()}).
     *
     * @return pending directory transfers
     */
    public int pendingDirectories() {
        return engine.pendingDirectories();
    }

    /** Aborts every transfer (staging files deleted, results failed) and stops the sweep. */
    @Override
    public void close() {
        engine.close();
        if (ownedScheduler != null) {
            ownedScheduler.shutdownNow();
        }
    }

    /** Builds a {@link TransferEndpoint}. */
    public static final class Builder {
        private final TransferSide side;
        private TransferSettings settings = TransferSettings.defaults();
        private TargetResolver resolver;
        private Clock clock = Clock.systemUTC();
        private TransferScheduler scheduler;
        private Executor executor = Runnable::run;
        private TransferListener listener = TransferListener.NONE;
        private Supplier<String> ids = () -> UUID.randomUUID().toString();

        private Builder(TransferSide side) {
            this.side = Objects.requireNonNull(side, "side");
        }

        /**
         * Limits and timeouts (default {@link TransferSettings#defaults()}).
         *
         * @param settings the settings
         * @return this
         */
        public Builder settings(TransferSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * Which root received files go into and sent files come from (required): on the client
         * {@link TargetResolver#at(java.nio.file.Path)} on its work directory (or a
         * {@link FootTargetResolver}), on the server a {@link RootDirTargetResolver}. Paths inside
         * the root are confined by the library's gate.
         *
         * @param resolver the resolver
         * @return this
         */
        public Builder resolver(TargetResolver resolver) {
            this.resolver = Objects.requireNonNull(resolver, "resolver");
            return this;
        }

        /**
         * The clock of timeouts (default UTC system clock).
         *
         * @param clock the clock
         * @return this
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The scheduler of timeouts and the sweep (default: a daemon thread owned and stopped by
         * {@link #close()}).
         *
         * @param scheduler the scheduler
         * @return this
         */
        public Builder scheduler(TransferScheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * Runs the senders' file reads and the handling of upload requests (default: inline, on the
         * thread that delivered the frame or completed the write). A transport on an event loop
         * should pass an executor that may block on disk I/O.
         *
         * @param executor the executor
         * @return this
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * Progress and outcome events (default none).
         *
         * @param listener the listener
         * @return this
         */
        public Builder listener(TransferListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * New transfer ids (default random UUIDs).
         *
         * @param ids the generator
         * @return this
         */
        public Builder ids(Supplier<String> ids) {
            this.ids = Objects.requireNonNull(ids, "ids");
            return this;
        }

        /**
         * Validates and builds; starts the cleanup sweep.
         *
         * @return the endpoint
         * @throws IllegalStateException when no resolver was set
         */
        public TransferEndpoint build() {
            if (resolver == null) {
                throw new IllegalStateException("a TransferEndpoint needs a resolver: TargetResolver.at(workDir) or "
                        + "FootTargetResolver on the client, RootDirTargetResolver on the server");
            }
            ScheduledExecutorService owned = null;
            TransferScheduler s = scheduler;
            if (s == null) {
                ScheduledThreadPoolExecutor exec = new ScheduledThreadPoolExecutor(1, r -> {
                    Thread t = new Thread(r, "worktarget-transfer-timer");
                    t.setDaemon(true);
                    return t;
                });
                exec.setRemoveOnCancelPolicy(true);
                owned = exec;
                s = TransferScheduler.of(exec);
            }
            return new TransferEndpoint(new TransferEngine(side, settings, resolver, clock, s, executor, listener, ids),
                    owned, settings);
        }
    }
}
