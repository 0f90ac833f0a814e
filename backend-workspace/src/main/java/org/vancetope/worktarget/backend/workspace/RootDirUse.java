package org.vancetope.worktarget.backend.workspace;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ErrorCode;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Which RootDirs the running tool calls work in, so that a RootDir is never deleted from under a call:
 * disposing one (its process ended, the host deleted it, an ended run's leftover) kills its jobs at once
 * but deletes its folder only when the last call working in it has returned, and until then refuses it
 * to new calls ({@code not_found}, saying why). Without this, a process ended mid-call (an MCP client
 * that closes its session during a call) or a RootDir deleted while an agent worked in it made the
 * running calls fail {@code internal}, and their writes refilled the folder during its deletion, which
 * then stayed on disk without a descriptor.
 *
 * <p>A call counts as working in each RootDir it resolved ({@link #enter}) until it returns; the tools
 * are wrapped by {@link #track}. Resolving outside a tool call (a transfer's receiver) only checks that
 * the RootDir is not being deleted.
 */
final class RootDirUse {
    private static final Logger LOG = LoggerFactory.getLogger(RootDirUse.class);

    /** The RootDirs the tool call running on this thread resolved; null outside a call. */
    private static final ThreadLocal<List<Path>> HELD = new ThreadLocal<>();

    /** The calls in one RootDir, and its end once they are over, while it is being deleted. */
    private static final class Use {
        int calls;
        boolean going;
        Runnable whenFree;
    }

    private final Map<Path, Use> uses = new HashMap<>();

    /**
     * The tools, each call holding the RootDirs it resolves until it returns.
     *
     * @param tools the backend's tools
     * @return the same tools, tracked
     */
    List<BackendTool> track(List<BackendTool> tools) {
        return tools.stream().map(t -> BackendTool.of(t.spec(), (params, ctx) -> {
            List<Path> outer = HELD.get();
            List<Path> held = new ArrayList<>(1);
            HELD.set(held);
            try {
                return t.invoke(params, ctx);
            } finally {
                HELD.set(outer);
                held.forEach(this::exit);
            }
        })).toList();
    }

    /**
     * A call is about to work in a RootDir: refused while the RootDir is being deleted; inside a tool call,
     * held until the call returns.
     *
     * @param info the RootDir
     * @throws ToolException {@code not_found} while it is being deleted
     */
    void enter(RootDirInfo info) throws ToolException {
        List<Path> held = HELD.get();
        synchronized (uses) {
            Use u = uses.get(info.path());
            if (u != null && u.going) {
                throw new ToolException(ErrorCode.NOT_FOUND, "RootDir '" + info.dirName() + "' is being deleted "
                        + "(its process ended, or the host deleted it); it goes once the calls still working in it "
                        + "have returned. Retry then: without dirName, a process gets a new temporary RootDir.");
            }
            if (held == null) {
                return;
            }
            uses.computeIfAbsent(info.path(), p -> new Use()).calls++;
        }
        held.add(info.path());
    }

    /**
     * Undoes {@link #enter} of the current call for a RootDir it was refused after all.
     *
     * @param info the RootDir
     */
    void leave(RootDirInfo info) {
        List<Path> held = HELD.get();
        if (held != null && held.remove(info.path())) {
            exit(info.path());
        }
    }

    private void exit(Path dir) {
        Runnable then = null;
        synchronized (uses) {
            Use u = uses.get(dir);
            if (--u.calls == 0) {
                if (u.going) {
                    then = u.whenFree;
                } else {
                    uses.remove(dir);
                }
            }
        }
        if (then != null) {
            free(dir, then);
        }
    }

    /**
     * Starts deleting a RootDir: from now on, new calls are refused it.
     *
     * @param info the RootDir
     * @return false when it was being deleted already
     */
    boolean startDeleting(RootDirInfo info) {
        synchronized (uses) {
            Use u = uses.computeIfAbsent(info.path(), p -> new Use());
            if (u.going) {
                return false;
            }
            u.going = true;
            return true;
        }
    }

    /**
     * Deletes a RootDir that {@link #startDeleting} marked: now when no call works in it, or else once the
     * last of those calls has returned (on that call's thread).
     *
     * @param info the RootDir
     * @param delete what deletes it
     */
    void whenFree(RootDirInfo info, Runnable delete) {
        Path dir = info.path();
        synchronized (uses) {
            Use u = uses.get(dir);
            u.whenFree = delete;
            if (u.calls > 0) {
                LOG.debug("RootDir {} goes once {} running call(s) in it have returned", dir, u.calls);
                return;
            }
        }
        free(dir, delete);
    }

    private void free(Path dir, Runnable delete) {
        // the last call out may be a cancelled one: its interrupt must not break the deletion's file channels
        boolean interrupted = Thread.interrupted();
        try {
            delete.run();
        } catch (RuntimeException e) {
            LOG.warn("Deleting RootDir {} failed; its folder may remain", dir, e);
        } finally {
            synchronized (uses) {
                uses.remove(dir);
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
