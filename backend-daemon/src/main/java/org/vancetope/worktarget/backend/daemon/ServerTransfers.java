package org.vancetope.worktarget.backend.daemon;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.vancetope.worktarget.core.WorkTarget;
import org.vancetope.worktarget.core.WorkTargetKind;
import org.vancetope.worktarget.core.WorkTargetService;
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
import org.vancetope.worktarget.spi.DaemonKey;
import org.vancetope.worktarget.spi.FrameChannel;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * The server (Brain) side of file transfers over the wire: the transfer endpoint and its
 * {@link FrameExtension}, and the host tools {@code client_file_upload}, {@code client_file_download}
 * and {@code workspace_create_ephemeral_dir}. A transfer runs over the connection of the calling
 * process's work target: the named daemon for DAEMON, the session's client otherwise.
 *
 * <pre>{@code
 * ServerTransfers transfers = ServerTransfers.create(roots, TransferSettings.defaults(), TransferListener.NONE);
 * DaemonServer server = DaemonServer.builder().frameExtension(transfers.extension())...build().start();
 * transfers.bind(server, dispatcher.targets());
 * transfers.tools(ephemeralCreator).forEach(dispatcherBuilder::hostTool);
 * }</pre>
 *
 * <p>It does not create RootDirs itself: the ephemeral-dir tool delegates to the given creator (the
 * workspace backend).
 */
public final class ServerTransfers implements AutoCloseable {
    private final RootDirTargetResolver roots;
    private final TransferEndpoint endpoint;
    private final TransferBridge bridge;
    private final ExecutorService io;
    private volatile DaemonServer server;
    private volatile WorkTargetService targets;

    private ServerTransfers(RootDirTargetResolver roots, TransferSettings settings, TransferListener listener) {
        this.roots = Objects.requireNonNull(roots, "roots");
        // One pool for the frame lanes and the senders' file reads: both may block on disk I/O.
        this.io = Executors.newCachedThreadPool(new DefaultThreadFactory("worktarget-transfer", true));
        this.endpoint = TransferEndpoint.builder(TransferSide.BRAIN).resolver(roots).settings(settings)
                .listener(listener).executor(io).build();
        this.bridge = new TransferBridge(endpoint, this::scopeOf, io);
    }

    /**
     * Creates the server side of transfers.
     *
     * @param roots the RootDirs transfers read from and write into
     * @param settings limits, timeouts and masks
     * @param listener progress events (e.g. for progress bars)
     * @return the transfers; {@link #bind} them to the server once it runs
     */
    public static ServerTransfers create(RootDirTargetResolver roots, TransferSettings settings,
                                         TransferListener listener) {
        return new ServerTransfers(roots, settings, listener);
    }

    /**
     * The extension to hand to {@link DaemonServer.Builder#frameExtension}.
     *
     * @return the extension
     */
    public FrameExtension extension() {
        return bridge;
    }

    /**
     * Binds the running server and the target service that decides which connection a process's
     * transfer uses.
     *
     * @param running the server
     * @param workTargets the target service (e.g. {@code dispatcher.targets()})
     */
    public void bind(DaemonServer running, WorkTargetService workTargets) {
        this.server = Objects.requireNonNull(running, "server");
        this.targets = Objects.requireNonNull(workTargets, "targets");
    }

    /**
     * The host tools: {@code client_file_upload}, {@code client_file_download} and, when a creator is
     * given, {@code workspace_create_ephemeral_dir}.
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

    private Optional<TransferConnection> connectionOf(ToolContext ctx) {
        DaemonServer s = server;
        WorkTargetService t = targets;
        if (s == null || t == null) {
            throw new IllegalStateException("ServerTransfers.bind(server, targets) was not called");
        }
        WorkTarget target = t.current(ctx.processId());
        Optional<FrameChannel<String>> channel = target.kind() == WorkTargetKind.DAEMON
                ? s.daemonChannel(new DaemonKey(ctx.tenant(), ctx.project(), target.targetName()))
                : s.clientChannel(ctx.tenant(), ctx.sessionId());
        return channel.flatMap(bridge::connection);
    }

    private TransferScope scopeOf(FrameChannel<String> channel) {
        DaemonServer s = server;
        if (s != null) {
            for (ConnectionInfo c : s.connections()) {
                if (c.connectionId().equals(channel.id())) {
                    return new TransferScope(c.tenant(), c.project() != null ? c.project() : "_none");
                }
            }
        }
        // Only reached for a connection the server no longer lists; the Brain refuses unrequested inits anyway.
        return new TransferScope("_none", "_none");
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
