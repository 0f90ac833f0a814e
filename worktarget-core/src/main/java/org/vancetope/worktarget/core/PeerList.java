package org.vancetope.worktarget.core;

import java.util.List;
import java.util.Optional;
import org.vancetope.worktarget.spi.Endpoint;
import org.vancetope.worktarget.spi.PeerKey;
import org.vancetope.worktarget.spi.Peers;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * Every {@link Peers} given to the dispatcher's builder, asked in the order added: the first that knows
 * a peer answers for it; the daemon lists are merged; every one hears that a process ended.
 */
final class PeerList implements Peers {
    private final List<Peers> all;

    PeerList(List<Peers> all) {
        this.all = List.copyOf(all);
    }

    @Override
    public Optional<Endpoint> find(PeerKey key) {
        for (Peers p : all) {
            Optional<Endpoint> e = p.find(key);
            if (e.isPresent()) {
                return e;
            }
        }
        return Optional.empty();
    }

    @Override
    public List<String> onlineDaemons(String tenant, String project) {
        if (all.size() == 1) {
            return all.get(0).onlineDaemons(tenant, project);
        }
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        all.forEach(p -> names.addAll(p.onlineDaemons(tenant, project)));
        return List.copyOf(names);
    }

    @Override
    public void processEnded(ToolContext process) {
        for (Peers p : all) {
            WorkTargetDispatcher.tell("the peers " + p, () -> p.processEnded(process));
        }
    }
}
