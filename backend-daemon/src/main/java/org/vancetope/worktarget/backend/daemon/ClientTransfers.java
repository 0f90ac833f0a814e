package org.vancetope.worktarget.backend.daemon;

import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.vancetope.worktarget.core.transfer.TargetResolver;
import org.vancetope.worktarget.core.transfer.TransferEndpoint;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferScope;
import org.vancetope.worktarget.core.transfer.TransferSettings;
import org.vancetope.worktarget.core.transfer.TransferSide;

/**
 * The client (Foot or daemon) side of file transfers over the wire: receives downloads into and sends
 * requested uploads from one root, with paths confined by the same gate as the client's file tools.
 * Give it the client's work directory ({@link TargetResolver#at}) so that a downloaded file is where
 * the same client's {@code file_read} finds it and a file its tools wrote can be uploaded by that
 * path; a {@link org.vancetope.worktarget.core.transfer.FootTargetResolver} gives a separate transfer
 * root with one directory per tenant and project instead.
 *
 * <pre>{@code
 * LocalBackend local = LocalBackend.builder().workDirectory(workDir).build();
 * ClientTransfers transfers = ClientTransfers.create(TargetResolver.at(local.workDirectory()),
 *         new TransferScope("acme", "proj"), TransferSettings.defaults(), TransferListener.NONE);
 * WorkTargetClient client = WorkTargetClient.builder()...tools(local.tools()).frameExtension(transfers.extension()).build();
 * }</pre>
 */
public final class ClientTransfers implements AutoCloseable {
    private final TransferEndpoint endpoint;
    private final TransferBridge bridge;
    private final ExecutorService io;

    private ClientTransfers(TargetResolver resolver, TransferScope scope, TransferSettings settings,
                            TransferListener listener) {
        Objects.requireNonNull(resolver, "resolver");
        Objects.requireNonNull(scope, "scope");
        // One pool for the frame lanes and the senders' file reads: both may block on disk I/O.
        this.io = Executors.newCachedThreadPool(new DefaultThreadFactory("worktarget-transfer", true));
        this.endpoint = TransferEndpoint.builder(TransferSide.FOOT).resolver(resolver).settings(settings)
                .listener(listener).executor(io).build();
        this.bridge = new TransferBridge(endpoint, channel -> scope, io);
        // what a previous process kept for a resume (transfer.resume) goes once its retention is over
        endpoint.sweepKept(scope, null);
    }

    /**
     * Creates the client side of transfers.
     *
     * @param resolver the root transfers use: {@link TargetResolver#at} on the work directory, or a
     *                 separate transfer root
     * @param scope the tenant and project this client serves
     * @param settings limits, timeouts and masks
     * @param listener progress events
     * @return the transfers
     */
    public static ClientTransfers create(TargetResolver resolver, TransferScope scope, TransferSettings settings,
                                         TransferListener listener) {
        return new ClientTransfers(resolver, scope, settings, listener);
    }

    /**
     * The extension to hand to {@link WorkTargetClient.Builder#frameExtension}.
     *
     * @return the extension
     */
    public FrameExtension extension() {
        return bridge;
    }

    /** The transfer endpoint (for tests of its pending and kept transfers). */
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
