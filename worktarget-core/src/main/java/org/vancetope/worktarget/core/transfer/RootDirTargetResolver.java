package org.vancetope.worktarget.core.transfer;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.vancetope.worktarget.core.internal.Segments;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ErrorCode;

/**
 * The server's resolver: {@code dirName} names a RootDir of the project, found through a host-supplied
 * function; the transfer's paths are then confined to that RootDir by the same gate as the
 * {@code work_file_*} tools. A missing RootDir is refused with {@value #DIR_NOT_FOUND}.
 *
 * <pre>{@code
 * RootDirTargetResolver brain = new RootDirTargetResolver(
 *         (scope, dirName) -> workspace.findRoot(scope.tenant(), scope.project(), dirName));
 * }</pre>
 *
 * <p>The WORK backend makes one with its project disk budget ({@code WorkspaceBackend.transferRoots()}): a
 * {@link Room} refuses a file the project has no room for ({@code budget_exceeded}) before it is received.
 *
 * <p>It does not create RootDirs; {@code workspace_create_ephemeral_dir} does.
 */
public final class RootDirTargetResolver implements TargetResolver {
    /** The start of the refusal when {@code dirName} is not a RootDir of the project. */
    public static final String DIR_NOT_FOUND = "dirName not found";

    private final BiFunction<TransferScope, String, Optional<Path>> roots;
    private final Room room;
    private final Supplier<? extends Collection<Path>> all;

    /**
     * Whether a project has room on the disk for a file it receives.
     */
    @FunctionalInterface
    public interface Room {
        /** Every file fits. */
        Room ANY = (scope, bytes) -> null;

        /**
         * Takes the room for a file, or says why there is none.
         *
         * @param scope the tenant and project
         * @param bytes the size of the file
         * @return null when the file fits (its bytes now count), else the refusal, saying what to do
         */
        String take(TransferScope scope, long bytes);
    }

    /**
     * Creates the resolver; every file fits.
     *
     * @param roots maps (scope, dirName) to the RootDir's directory, empty when there is none
     */
    public RootDirTargetResolver(BiFunction<TransferScope, String, Optional<Path>> roots) {
        this(roots, Room.ANY);
    }

    /**
     * Creates the resolver with a check of the room a received file takes.
     *
     * @param roots maps (scope, dirName) to the RootDir's directory, empty when there is none
     * @param room whether a project has room for a file it receives
     */
    public RootDirTargetResolver(BiFunction<TransferScope, String, Optional<Path>> roots, Room room) {
        this(roots, room, List::of);
    }

    /**
     * Creates the resolver with a check of the room a received file takes and a list of every RootDir.
     *
     * @param roots maps (scope, dirName) to the RootDir's directory, empty when there is none
     * @param room whether a project has room for a file it receives
     * @param all every RootDir's directory now (for {@link #all})
     */
    public RootDirTargetResolver(BiFunction<TransferScope, String, Optional<Path>> roots, Room room,
                                 Supplier<? extends Collection<Path>> all) {
        this.roots = Objects.requireNonNull(roots, "roots");
        this.room = Objects.requireNonNull(room, "room");
        this.all = Objects.requireNonNull(all, "all");
    }

    /**
     * Every RootDir's directory, of every tenant and project, when the resolver was given them: the server
     * sweeps what earlier runs kept of cut-off uploads in each when it starts.
     *
     * @return the directories; empty when the resolver was made without the list
     */
    public List<Path> all() {
        Collection<Path> c = all.get();
        return c == null ? List.of() : List.copyOf(c);
    }

    /**
     * The directory of a RootDir.
     *
     * @param scope the tenant and project
     * @param dirName the RootDir name
     * @return the directory, empty when the name is unsafe or unknown
     */
    public Optional<Path> find(TransferScope scope, String dirName) {
        if (!Segments.isSafe(dirName)) {
            return Optional.empty();
        }
        Optional<Path> root = roots.apply(scope, dirName);
        return root == null ? Optional.empty() : root;
    }

    @Override
    public TargetResolution root(TransferScope scope, String dirName) {
        return find(scope, dirName).map(TargetResolution::resolved)
                .orElseGet(() -> TargetResolution.refused(ErrorCode.NOT_FOUND, notFound(dirName)));
    }

    /**
     * {@link #root}, then the {@link Room} for the file: refused {@code budget_exceeded} when there is none.
     */
    @Override
    public TargetResolution rootToReceive(TransferScope scope, String dirName, long bytes) {
        TargetResolution r = root(scope, dirName);
        if (!r.ok()) {
            return r;
        }
        String refusal = room.take(scope, bytes);
        return refusal == null ? r : TargetResolution.refused(ErrorCode.BUDGET_EXCEEDED, refusal);
    }

    /**
     * The refusal of a {@code dirName} that is no RootDir of the project: {@value #DIR_NOT_FOUND}, then the
     * name and what to do.
     */
    static String notFound(String dirName) {
        return DIR_NOT_FOUND + ": " + ConfinedRoot.quote(dirName) + " is not a RootDir of this project. Pass the "
                + "dirName that workspace_create_ephemeral_dir returned (or another existing RootDir's name), or "
                + "create one with workspace_create_ephemeral_dir.";
    }

    /** The refusal of a RootDir this server may not write to. */
    static String notWritable(String dirName) {
        return "dirName " + ConfinedRoot.quote(dirName) + " is not writable (a read-only RootDir). Write into a RootDir "
                + "of your own: create one with workspace_create_ephemeral_dir.";
    }
}
