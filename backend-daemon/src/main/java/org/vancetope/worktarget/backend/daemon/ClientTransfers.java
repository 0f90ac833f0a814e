package org.vancetope.worktarget.backend.daemon;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.file.FileSystems;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.vancetope.worktarget.core.transfer.FootTargetResolver;
import org.vancetope.worktarget.core.transfer.TransferEndpoint;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.core.transfer.TransferSide;

/**
 * The client (Foot or daemon) side of file transfers over the wire: receives downloads into and
 * sends requested uploads from {@code <footRoot>/<tenant>/<project>/} (spec 002 §3), with
 * {@code footRoot} defaulting to {@code ~/.vancetope/foot}, overridable by
 * {@code VANCE_FOOT_WORKSPACE_ROOT}.
 *
 * <pre>{@code
 * ClientTransfers transfers = ClientTransfers.create(FootTargetResolver.at(footRoot),
 *         new TransferScope("acme", "proj"), TransferSettings.defaults(), TransferListener.NONE);
 * DaemonClient client = DaemonClient.builder()...frameExtension(transfers.extension()).build();
 * }</pre>
 */
public final class ClientTransfers implements AutoCloseable {
    private final TransferEndpoint endpoint;
    private final TransferBridge bridge;
    private final ExecutorService io;

    private ClientTransfers(FootTargetResolver resolver, TransferScope scope, TransferSettings settings,
                            TransferListener listener) {
        Objects.requireNonNull(resolver, "resolver");
        Objects.requireNonNull(scope, "scope");
        // One pool for the frame lanes and the senders' file reads: both may block on disk I/O.
        this.io = Executors.newCachedThreadPool(new DefaultThreadFactory("worktarget-transfer", true));
        this.endpoint = TransferEndpoint.builder(TransferSide.FOOT).resolver(resolver).settings(settings)
                .listener(listener).executor(io).build();
        this.bridge = new TransferBridge(endpoint, channel -> scope, io);
    }

    /**
     * Creates the client side of transfers.
     *
     * @param resolver the Foot workspace root
     * @param scope the tenant and project this client serves
     * @param settings limits, timeouts and masks
     * @param listener progress events
     * @return the transfers
     */
    public static ClientTransfers create(FootTargetResolver resolver, TransferScope scope, TransferSettings settings,
                                         TransferListener listener) {
        return new ClientTransfers(resolver, scope, settings, listener);
    }

    /**
     * The Foot root from the environment: {@code VANCE_FOOT_WORKSPACE_ROOT}, else {@code ~/.vancetope/foot}.
     *
     * @return the resolver
     */
    public static FootTargetResolver footRootFromEnvironment() {
        return FootTargetResolver.fromEnvironment(FileSystems.getDefault(), System::getenv,
                System.getProperty("user.home"));
    }

    /**
     * The extension to hand to {@link DaemonClient.Builder#frameExtension}.
     *
     * @return the extension
     */
    public FrameExtension extension() {
        return bridge;
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
