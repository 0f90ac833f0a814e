package org.vancetope.worktarget.mcp;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.UnaryOperator;
import org.vancetope.worktarget.backend.local.LocalBackend;
import org.vancetope.worktarget.core.InMemoryProcessStore;
import org.vancetope.worktarget.core.WorkTargetDispatcher;

/**
 * The MCP server's stdio form in the test's JVM, on a {@link StdioPipe}, with CLIENT tools on one directory;
 * one process for the session (tenant and project {@code local}). The warm-up is off unless the test's
 * settings turn it on.
 */
final class LocalStdioServer implements AutoCloseable {
    /** The client's end of the server's stdio. */
    final StdioPipe stdio = new StdioPipe();
    /** The server. */
    final McpWorkTargetServer mcp;
    private final LocalBackend local;

    /**
     * Starts serving.
     *
     * @param dir the CLIENT tools' directory
     * @param dispatcher what the test sets on the dispatcher's builder (host tools)
     * @param settings what the test sets on the server's builder
     */
    LocalStdioServer(Path dir, UnaryOperator<WorkTargetDispatcher.Builder> dispatcher,
                     UnaryOperator<McpWorkTargetServer.Builder> settings) throws IOException {
        local = LocalBackend.builder().workDirectory(dir).build();
        InMemoryProcessStore store = new InMemoryProcessStore();
        WorkTargetDispatcher d = dispatcher.apply(WorkTargetDispatcher.builder().processStore(store).peers(local))
                .build();
        try {
            mcp = settings.apply(McpWorkTargetServer.builder().dispatcher(d).warmUp(false)
                    .processes(McpProcessMapping.perSession(store, d, "local", "local"))).build();
            stdio.serve(mcp);
        } catch (IOException | RuntimeException e) {
            local.close();
            throw e;
        }
    }

    /** Starts serving with the defaults. */
    LocalStdioServer(Path dir) throws IOException {
        this(dir, UnaryOperator.identity(), UnaryOperator.identity());
    }

    /** Ends the server's input, then closes the server and the backend. */
    @Override
    public void close() throws IOException {
        try {
            stdio.closeInput();
            mcp.close();
        } finally {
            local.close();
        }
    }
}
