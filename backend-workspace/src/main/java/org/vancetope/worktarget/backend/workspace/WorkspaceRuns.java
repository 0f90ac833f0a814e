package org.vancetope.worktarget.backend.workspace;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.vancetope.worktarget.core.internal.path.Reserved;

/**
 * The run of a backend built with {@code processesEndWithJvm}: an id written into the descriptors of the
 * RootDirs that go with their creator, {@code <owner>.<random>}, where the owner is this JVM's owner name
 * ({@link Reserved#owner()}: host, pid, start time), the same that names staging entries and job output. A
 * later backend can tell from it that the run ended: a backend of this JVM that was closed, or a JVM of this
 * host that no longer runs ({@link Reserved#isStaleOwner}). Runs of other hosts (a workspace on a network
 * file system) cannot be checked from here and never count as ended.
 */
final class WorkspaceRuns implements AutoCloseable {
    private static final Set<String> OPEN_IN_THIS_JVM = ConcurrentHashMap.newKeySet();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String run;

    private WorkspaceRuns(String run) {
        this.run = run;
    }

    /**
     * Starts a run of a backend of this JVM.
     *
     * @return the run
     */
    static WorkspaceRuns start() {
        byte[] b = new byte[8];
        RANDOM.nextBytes(b);
        WorkspaceRuns r = new WorkspaceRuns(Reserved.owner() + "." + HexFormat.of().formatHex(b));
        OPEN_IN_THIS_JVM.add(r.run);
        return r;
    }

    /** This run's id, written into the descriptors of the RootDirs that go with their creator. */
    String run() {
        return run;
    }

    /**
     * Whether a run has ended: a run of this JVM that is not open any more, or of a JVM of this host that
     * no longer runs. Anything that is not a run's id has not ended.
     *
     * @param other a run's id, from a descriptor
     * @return true when it has ended
     */
    static boolean ended(String other) {
        int random = other.lastIndexOf('.');
        if (random <= 0 || OPEN_IN_THIS_JVM.contains(other)) {
            return false;
        }
        String owner = other.substring(0, random);
        return owner.equals(Reserved.owner()) || Reserved.isStaleOwner(owner);
    }

    /** Ends this run. */
    @Override
    public void close() {
        OPEN_IN_THIS_JVM.remove(run);
    }
}
