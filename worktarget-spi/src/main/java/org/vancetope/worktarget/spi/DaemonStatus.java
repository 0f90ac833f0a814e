package org.vancetope.worktarget.spi;

import java.util.List;
import java.util.Objects;

/**
 * What the daemon registry knows about one daemon.
 *
 * @param state whether it can take calls
 * @param manifest the tools it declared (empty when offline)
 */
public record DaemonStatus(State state, List<ToolSpec> manifest) {

    /** Validates and copies. */
    public DaemonStatus {
        Objects.requireNonNull(state, "state");
        manifest = List.copyOf(manifest);
    }

    /** A daemon that is not connected. */
    public static final DaemonStatus OFFLINE = new DaemonStatus(State.OFFLINE, List.of());

    /** Connection states of a daemon. */
    public enum State {
        /** Connected and answering. */
        ONLINE,
        /** Connected, but it stopped answering liveness checks; calls would likely time out. */
        STALE,
        /** Not connected. */
        OFFLINE
    }
}
