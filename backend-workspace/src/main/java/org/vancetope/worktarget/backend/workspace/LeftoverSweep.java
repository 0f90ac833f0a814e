package org.vancetope.worktarget.backend.workspace;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RootDirs that ended runs left ({@link RootDirLifecycle#leftoversOfEndedRuns}), kept for a while after
 * the backend opened the workspace so that their processes can come back (a host that reuses process ids,
 * a transfer resumed into one of them), then disposed, except those of processes that used the backend
 * meanwhile: they are theirs again and go when the processes end.
 */
final class LeftoverSweep implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LeftoverSweep.class);

    private final RootDirLifecycle lifecycle;
    private final List<RootDirInfo> leftovers;
    private final Set<String> cameBack = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer;
    private volatile boolean done;

    private LeftoverSweep(RootDirLifecycle lifecycle, List<RootDirInfo> leftovers, ScheduledExecutorService timer) {
        this.lifecycle = lifecycle;
        this.leftovers = leftovers;
        this.timer = timer;
    }

    /**
     * Finds the leftovers and disposes them now ({@code keepFor} zero) or after {@code keepFor}.
     *
     * @return the sweep, or null when there is nothing left to do
     */
    static LeftoverSweep start(RootDirLifecycle lifecycle, Duration keepFor) {
        List<RootDirInfo> leftovers = lifecycle.leftoversOfEndedRuns();
        if (leftovers.isEmpty()) {
            return null;
        }
        if (keepFor.isZero()) {
            lifecycle.disposeLeftovers(leftovers, Set.of());
            return null;
        }
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "worktarget-leftover-sweep");
            t.setDaemon(true);
            return t;
        });
        LeftoverSweep sweep = new LeftoverSweep(lifecycle, List.copyOf(leftovers), timer);
        LOG.info("RootDirs that processes of ended runs left ({}) stay for {} s, for the processes to come back: {}",
                leftovers.size(), keepFor.toSeconds(), leftovers.stream().map(i -> i.tenant() + "/" + i.project() + "/"
                        + i.dirName() + " of process " + i.creatorProcessId()).toList());
        timer.schedule(sweep::sweep, keepFor.toMillis(), TimeUnit.MILLISECONDS);
        return sweep;
    }

    /** A process used the backend: its leftovers are its own again. */
    void seen(String processId) {
        if (!done) {
            cameBack.add(processId);
        }
    }

    /** Disposes the leftovers of processes that did not come back; runs once the wait is over. */
    void sweep() {
        try {
            lifecycle.disposeLeftovers(leftovers, Set.copyOf(cameBack));
        } catch (RuntimeException e) {
            LOG.warn("Removing the RootDirs of ended runs failed; the next start tries again", e);
        } finally {
            done = true;
            timer.shutdown();
        }
    }

    /** Stops waiting: what is left stays for the next backend to open the workspace. */
    @Override
    public void close() {
        done = true;
        timer.shutdownNow();
    }
}
