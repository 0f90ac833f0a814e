package org.vancetope.worktarget.spi;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a resolved work target offers: the backend tools it has, a way to run one, and the connection
 * file transfers use. A session's client (CLIENT), a named daemon (DAEMON) and the in-process backends
 * (WORK) each resolve to one endpoint; the dispatcher resolves the target once per call and runs the
 * call on it.
 *
 * <p>A call is cancelled by interrupting the thread that waits in {@link #invoke}: a remote endpoint
 * then tells its peer to stop the call ({@code client_tool_cancel}) and the call fails
 * {@code cancelled}. Implementations are thread-safe.
 */
public interface Endpoint {

    /**
     * Who this endpoint is, as a user reads it in a message, e.g. {@code daemon 'box' of project 'proj'}.
     *
     * @return the description
     */
    String describe();

    /**
     * The backend tools this endpoint offers ({@code client_*} for a client or a daemon).
     *
     * @return the specs, as the peer declared them; empty when a client declared none (the catalog's
     *         {@code client_*} specs then apply)
     */
    List<ToolSpec> manifest();

    /**
     * Whether the peer is connected but stopped answering liveness checks, so that calls would likely
     * time out. Default: false.
     *
     * @return true when the peer is stale
     */
    default boolean isStale() {
        return false;
    }

    /**
     * Why it cannot be told whether this peer is connected at all. A server node of a fleet answers
     * this for a peer it does not hold while the fleet's store, which says where peers are, is
     * unreachable: the peer may be connected to another node, or to none, and the endpoint's calls fail
     * {@code offline} saying so. Default: empty (the peer is connected).
     *
     * @return the reason, as a user reads it; empty when the peer is known to be connected
     */
    default Optional<String> presenceUnknown() {
        return Optional.empty();
    }

    /**
     * Runs one of the endpoint's tools and waits for its result.
     *
     * @param tool the backend tool, e.g. {@code client_file_read}
     * @param params the parameters, already guarded against the tool's spec
     * @param context the calling process
     * @param timeout how long to wait for the result (a remote peer is told to cancel when it passes)
     * @return the result
     * @throws ToolException {@code offline} when the peer went away, {@code timeout}, {@code cancelled}
     *         when the waiting thread was interrupted, or the tool's own failure
     */
    Map<String, Object> invoke(String tool, Map<String, Object> params, ToolContext context, Duration timeout)
            throws ToolException;

    /**
     * The connection file transfers to and from this endpoint run over. Default: none (an in-process
     * endpoint has nothing to transfer over).
     *
     * @return the frame channel, while the peer is connected
     */
    default Optional<FrameChannel<String>> transferChannel() {
        return Optional.empty();
    }
}
