package org.vancetope.worktarget.backend.daemon;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.internal.PeerRegistry;
import org.vancetope.worktarget.backend.daemon.internal.ServerConnection;
import org.vancetope.worktarget.core.transfer.EphemeralDirCreator;
import org.vancetope.worktarget.core.transfer.FileTransferTools;
import org.vancetope.worktarget.core.transfer.RootDirTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferConnection;
import org.vancetope.worktarget.core.transfer.TransferEndpoint;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.core.transfer.TransferSide;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * The server (Brain) side of file transfers over the wire: the transfer endpoint and its
 * {@link FrameExtension}, and the host tools {@code client_file_upload}, {@code client_file_download}
 * and {@code workspace_create_ephemeral_dir}. A transfer runs over the connection of the calling
 * process's remote peer, which the dispatcher resolved for the call ({@link ToolContext#peer()}): the
 * named daemon for a DAEMON target, the session's client otherwise.
 *
 * <pre>{@code
 * ServerTransfers transfers = ServerTransfers.create(roots, TransferSettings.defaults(), TransferListener.NONE);
 * WorkTargetServer server = WorkTargetServer.builder().transfers(transfers)...build().start();
 * transfers.tools(ephemeralCreator).forEach(dispatcherBuilder::hostTool);
 * }</pre>
 *
 * <p>It does not create RootDirs itself: the ephemeral-dir tool delegates to the given creator (the
 * workspace backend).
 */
public final class ServerTransfers implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ServerTransfers.class);
    private static final TransferScope UNREQUESTED = new TransferScope("_none", "_none");
    private final RootDirTargetResolver roots;
    private final TransferEndpoint endpoint;
    private final TransferBridge bridge;
    private final ExecutorService io;
    private final TransferSettings settings;
    /** The server's peers, to find the new connection of a peer that came back (transfer.resume). */
    private volatile PeerRegistry peers;

    private ServerTransfers(RootDirTargetResolver roots, TransferSettings settings, TransferListener listener) {
        this.roots = Objects.requireNonNull(roots, "roots");
        this.settings = Objects.requireNonNull(settings, "settings");
        // One pool for the frame lanes and the senders' file reads: both may block on disk I/O.
        this.io = Executors.newCachedThreadPool(new DefaultThreadFactory("worktarget-transfer", true));
        this.endpoint = TransferEndpoint.builder(TransferSide.BRAIN).resolver(roots).settings(settings)
                .listener(listener).executor(io).build();
        // The Brain refuses transfers it did not request, so a connection's own scope is never used here:
        // a requested transfer carries the scope of the process that asked for it.
        this.bridge = new TransferBridge(endpoint, channel -> UNREQUESTED, io);
        // what earlier runs kept of cut-off uploads, in RootDirs nothing may be transferred into again
        io.execute(this::sweepKept);
    }

    private void sweepKept() {
        try {
            for (Path root : roots.all()) {
                endpoint.sweepKeptIn(root);
            }
        } catch (RuntimeException e) {
            LOG.warn("Sweeping the kept transfers of the RootDirs failed: {}", e.toString());
        }
    }

    /**
     * Creates the server side of transfers. When the resolver lists every RootDir
     * ({@link RootDirTargetResolver#all()}, as {@code WorkspaceBackend.transferRoots()} does), a background
     * thread deletes at once what earlier runs kept of cut-off uploads past their
     * {@link TransferSettings#resumeRetention()}, and the RootDirs that still keep some are swept again later.
     *
     * @param roots the RootDirs transfers read from and write into
     * @param settings limits, timeouts and masks
     * @param listener progress events (e.g. for progress bars)
     * @return the transfers; give them to the server with {@link WorkTargetServer.Builder#transfers}
     */
    public static ServerTransfers create(RootDirTargetResolver roots, TransferSettings settings,
                                         TransferListener listener) {
        return new ServerTransfers(roots, settings, listener);
    }

    /**
     * The extension to hand to {@link WorkTargetServer.Builder#frameExtension}.
     *
     * @return the extension
     */
    public FrameExtension extension() {
        return bridge;
    }

    /** The settings the transfers enforce, announced by a server built with them. */
    TransferSettings settings() {
        return settings;
    }

    /**
     * The host tools: {@code client_file_upload}, {@code client_file_download}, {@code client_dir_upload},
     * {@code client_dir_download} and, when a creator is given, {@code workspace_create_ephemeral_dir}.
     *
     * @param ephemeralDirs creates ephemeral RootDirs, or null to leave that tool out
     * @return the tools
     */
    public List<BackendTool> tools(EphemeralDirCreator ephemeralDirs) {
        List<BackendTool> tools = new ArrayList<>(new FileTransferTools(roots, this::connectionOf).tools());
        if (ephemeralDirs != null) {
            tools.add(FileTransferTools.ephemeralDirTool(ephemeralDirs));
        }
        return tools;
    }

    /** The server whose peers the calls' connections are (set when the server is built). */
    void bindPeers(PeerRegistry registry) {
        this.peers = registry;
    }

    /**
     * The connection of the peer the dispatcher resolved for the call: no second routing. When that
     * connection is gone, the current connection of the same peer (same key), so that a transfer cut off
     * by a reconnect resumes on it ({@code transfer.resume}).
     */
    private Optional<TransferConnection> connectionOf(ToolContext ctx) {
        if (ctx.peer().filter(ServerConnection.class::isInstance).map(p -> !((ServerConnection) p).mayServe(ctx))
                .orElse(false)) {
            // a foot is found by its session alone: one whose token does not grant this project moves no file
            LOG.warn("Refused a transfer of process {} of {}/{}: the peer of its session may not serve that project",
                    ctx.processId(), ctx.tenant(), ctx.project());
            return Optional.empty();
        }
        Optional<TransferConnection> c = ctx.peer().flatMap(Endpoint::transferChannel).flatMap(bridge::connection);
        PeerRegistry registry = peers;
        if (c.isPresent() || registry == null) {
            return c;
        }
        return ctx.peer().filter(ServerConnection.class::isInstance).map(p -> ((ServerConnection) p).key())
                .flatMap(registry::find).flatMap(Endpoint::transferChannel).flatMap(bridge::connection);
    }

    /** The transfer endpoint (for tests of its pending transfers). */
    TransferEndpoint endpoint() {
        return endpoint;
    }

    /**
     * Aborts every running transfer and stops the threads.
     */
    @Override
    public void close() {
        bridge.close();
        endpoint.close();
        io.shutdown();
    }
}
