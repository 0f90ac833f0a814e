package org.vancetope.worktarget.backend.daemon;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.vancetope.worktarget.spi.PeerKey;

/**
 * How one server node of a fleet reaches the others: where each peer is connected (presence, kept
 * fresh by the link's own heartbeat and gone within {@link #presenceTtl()} after its node dies) and a
 * message lane to every node. Given to {@link WorkTargetServer.Builder#fleet}, it lets the server's
 * registry find a daemon or a foot connected to another node: a call for such a peer is forwarded to
 * that node, which runs it on its own connection and sends the result back. The forwarding itself
 * (correlation ids, timeouts, cancels, frame limits, failing calls of a node that died) is the server's;
 * a link only stores presence and carries opaque messages. The {@code cluster-redis} module implements
 * it over Redis.
 *
 * <p>A node's messages must reach it only while the node is running (at most once, never replayed
 * later): a call in flight to a node that died fails {@code offline}, as a call on a dropped
 * connection does. Implementations are thread-safe.
 */
public interface FleetLink extends AutoCloseable {

    /**
     * Where a peer is connected.
     *
     * @param node the node the peer is connected to
     * @param connectionId the id of the peer's connection on that node
     * @param manifest the peer's tools, as the node encoded them
     */
    record Presence(String node, String connectionId, String manifest) {
        /**
         * Validates.
         *
         * @param node the node the peer is connected to
         * @param connectionId the id of the peer's connection on that node
         * @param manifest the peer's tools, as the node encoded them
         */
        public Presence {
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(connectionId, "connectionId");
            Objects.requireNonNull(manifest, "manifest");
        }
    }

    /**
     * What the link tells the server it runs for. Called on the link's own threads: implementations
     * must return quickly, must not block, and may call the link only through {@link #sendAsync}.
     */
    interface Listener {

        /**
         * A message for this node arrived.
         *
         * @param message the message as {@link #send} was given it
         */
        void onMessage(String message);

        /**
         * Another connection now holds a peer this node claimed (the peer reconnected to another node
         * and that node's message about it was lost): the local connection is to be superseded.
         *
         * @param key the peer
         * @param connectionId the local connection that lost it
         */
        void onLost(PeerKey key, String connectionId);
    }

    /**
     * Makes links from a command line's {@code --redis-uri} and {@code --node-id}: the {@code serve}
     * command finds one with {@link java.util.ServiceLoader} ({@code cluster-redis} provides one for
     * {@code redis://} and {@code rediss://}). Implementations have a public no-argument constructor.
     */
    interface Factory {

        /**
         * Whether this factory makes links to a store at the URI.
         *
         * @param uri the store's address, e.g. {@code redis://127.0.0.1:6379}
         * @return true when it does
         */
        boolean accepts(String uri);

        /**
         * Builds a link (not yet started; the server starts it).
         *
         * @param uri the store's address
         * @param nodeId the node's id, unique within the fleet
         * @return the link
         * @throws IllegalArgumentException for a malformed address or node id, saying what is wrong
         */
        FleetLink create(String uri, String nodeId);
    }

    /**
     * This node's id, unique within the fleet.
     *
     * @return the node id
     */
    String nodeId();

    /**
     * How long presence outlives the last heartbeat of its node: the bound within which a dead node's
     * peers disappear and calls waiting for it fail.
     *
     * @return the time to live of presence
     */
    Duration presenceTtl();

    /**
     * Starts the heartbeat and the delivery of this node's messages to the listener. A store that is
     * unreachable now does not stop the node from starting: until the link reaches it, its methods fail
     * with an {@link IOException} saying the store is unreachable (the node serves its own peers), and
     * once it answers the link joins the fleet (subscribes, writes the node's presence and every claim
     * made meanwhile) without a restart. An outage later is survived the same way.
     *
     * @param listener told of messages and lost peers
     * @throws IOException when the link cannot start for a reason other than its store being down
     */
    void start(Listener listener) throws IOException;

    /**
     * Records that a peer is connected to this node, replacing whatever held it, and keeps the record
     * fresh until {@link #release}. The claim is remembered even when the store is unreachable, and
     * written when it is back.
     *
     * @param key the peer
     * @param connectionId the id of its connection on this node
     * @param manifest the peer's tools, encoded
     * @return the presence it replaced, when another connection held the peer
     * @throws IOException when the store is unreachable now
     */
    Optional<Presence> claim(PeerKey key, String connectionId, String manifest) throws IOException;

    /**
     * Forgets a claim of this node, if the connection still holds the peer.
     *
     * @param key the peer
     * @param connectionId the connection that closed
     * @throws IOException when the store is unreachable now (the record then expires by itself)
     */
    void release(PeerKey key, String connectionId) throws IOException;

    /**
     * Where a peer is connected, on any node (this one included).
     *
     * @param key the peer
     * @return its presence, or empty when no node holds it
     * @throws IOException when the store is unreachable
     */
    Optional<Presence> locate(PeerKey key) throws IOException;

    /**
     * The daemons of a project connected to any node.
     *
     * @param tenant the tenant
     * @param project the project
     * @return the daemon names, sorted
     * @throws IOException when the store is unreachable
     */
    List<String> daemons(String tenant, String project) throws IOException;

    /**
     * Every peer connected to any node of the fleet (this one included), for admin listings: one scan
     * of the store, not meant for a call's path.
     *
     * @return each peer's presence, by peer
     * @throws IOException when the store is unreachable
     */
    Map<PeerKey, Presence> peers() throws IOException;

    /**
     * Sends a message to a node, at most once.
     *
     * @param node the node
     * @param message the message
     * @return false when no such node is listening (the message is then lost)
     * @throws IOException when the store is unreachable
     */
    boolean send(String node, String message) throws IOException;

    /**
     * Sends a message to a node, at most once, without waiting for the store on the calling thread: what
     * {@link #send} does, reported when the store has taken it. The default runs {@link #send} at once;
     * links whose client is asynchronous override it, which saves the forwarding side a thread hand-off.
     * The stage must not be completed on a thread that waits for this node's own messages to be handled.
     *
     * @param node the node
     * @param message the message
     * @return completes with false when no such node is listening, or exceptionally with an
     *         {@link IOException} when the store is unreachable
     */
    default CompletionStage<Boolean> sendAsync(String node, String message) {
        try {
            return CompletableFuture.completedFuture(send(node, message));
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Whether a node's heartbeat is still fresh.
     *
     * @param node the node
     * @return true while the node is alive
     * @throws IOException when the store is unreachable
     */
    boolean isAlive(String node) throws IOException;

    /**
     * Stops the heartbeat and forgets this node's presence; idempotent.
     */
    @Override
    void close();
}
