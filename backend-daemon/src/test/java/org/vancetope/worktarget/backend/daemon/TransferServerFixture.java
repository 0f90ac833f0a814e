package org.vancetope.worktarget.backend.daemon;

import java.nio.file.Path;
import org.vancetope.worktarget.backend.workspace.WorkspaceBackend;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;
import org.vancetope.worktarget.core.transfer.TransferListener;
import org.vancetope.worktarget.core.transfer.TransferSettings;

/**
 * The server side of the wire transfer tests: a WORK workspace under {@code base/workspace}, the server's
 * transfers into its RootDirs, a {@link TestServer} carrying them, and a dispatcher for process
 * {@code p-1} (acme/proj, session s-1) with the transfer host tools. No daemon or foot: each test connects
 * its own.
 */
final class TransferServerFixture implements AutoCloseable {
    final WorkspaceBackend work;
    final ServerTransfers transfers;
    final TestServer t;
    final WorkTargetDispatcher dispatcher;

    TransferServerFixture(Path base, TransferSettings settings, TransferListener listener) throws Exception {
        this(base, settings, listener, false, 2 * 1024 * 1024);
    }

    /**
     * @param silentLimits carry the transfers as a bare frame extension, so that {@code welcome} announces no
     *        transfer limits (as a server of the base protocol's first version)
     * @param maxFrameBytes the server's frame limit
     */
    TransferServerFixture(Path base, TransferSettings settings, TransferListener listener, boolean silentLimits,
                          int maxFrameBytes) throws Exception {
        this(base, settings, listener, silentLimits, maxFrameBytes, 0);
    }

    /**
     * @param silentLimits as above
     * @param maxFrameBytes the server's frame limit
     * @param projectMaxBytes the workspace's disk budget per project (0: none)
     */
    TransferServerFixture(Path base, TransferSettings settings, TransferListener listener, boolean silentLimits,
                          int maxFrameBytes, long projectMaxBytes) throws Exception {
        work = WorkspaceBackend.builder().workspaceRoot(base.resolve("workspace")).projectMaxBytes(projectMaxBytes)
                .build();
        transfers = ServerTransfers.create(work.transferRoots(), settings, listener);
        t = new TestServer(b -> (silentLimits ? b.frameExtension(transfers.extension()) : b.transfers(transfers))
                .maxFrameBytes(maxFrameBytes));
        InMemoryProcessStore store = new InMemoryProcessStore();
        store.process("p-1").tenant("acme").project("proj").session("s-1").user("alice").add();
        WorkTargetDispatcher.Builder db = WorkTargetDispatcher.builder().processStore(store).backend(work)
                .peers(t.server.peers());
        transfers.tools(work.ephemeralDirs()).forEach(db::hostTool);
        dispatcher = db.build();
    }

    /** Closes the server, then its transfers, then the workspace. */
    @Override
    public void close() {
        t.close();
        transfers.close();
        work.close();
    }
}
