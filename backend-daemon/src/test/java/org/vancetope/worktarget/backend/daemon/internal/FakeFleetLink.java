package org.vancetope.worktarget.backend.daemon.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.vancetope.worktarget.backend.daemon.FleetLink;
import org.vancetope.worktarget.spi.PeerKey;

/**
 * A fleet store in memory for the router's tests: this node is "self", every peer asked for is connected to
 * node "other", which is alive; what this node sends is recorded, or fails with {@link #sendFailure}.
 */
final class FakeFleetLink implements FleetLink {
    /** The messages sent, in order. */
    final List<String> sent = new CopyOnWriteArrayList<>();
    /** When set, every send fails with it (a store that stopped answering). */
    volatile IOException sendFailure;
    private final Duration presenceTtl;

    FakeFleetLink(Duration presenceTtl) {
        this.presenceTtl = presenceTtl;
    }

    @Override
    public String nodeId() {
        return "self";
    }

    @Override
    public Duration presenceTtl() {
        return presenceTtl;
    }

    @Override
    public void start(Listener listener) {
    }

    @Override
    public Optional<Presence> claim(PeerKey key, String connectionId, String manifest) {
        return Optional.empty();
    }

    @Override
    public void release(PeerKey key, String connectionId) {
    }

    @Override
    public Optional<Presence> locate(PeerKey key) {
        return Optional.of(new Presence("other", "c-1", ""));
    }

    @Override
    public List<String> daemons(String tenant, String project) {
        return List.of();
    }

    @Override
    public Map<PeerKey, Presence> peers() {
        return Map.of();
    }

    @Override
    public boolean send(String node, String message) throws IOException {
        if (sendFailure != null) {
            throw sendFailure;
        }
        sent.add(message);
        return true;
    }

    @Override
    public CompletionStage<Boolean> sendAsync(String node, String message) {
        try {
            return CompletableFuture.completedFuture(send(node, message));
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public boolean isAlive(String node) {
        return true;
    }

    @Override
    public void close() {
    }
}
