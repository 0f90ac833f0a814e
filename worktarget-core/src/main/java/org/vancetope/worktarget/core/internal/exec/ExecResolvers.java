package org.vancetope.worktarget.core.internal.exec;

import java.util.Map;
import java.util.Objects;
import org.vancetope.worktarget.core.internal.home.ExecEnvPolicy;
import org.vancetope.worktarget.core.internal.home.Home;
import org.vancetope.worktarget.core.internal.home.Homes;
import org.vancetope.worktarget.core.internal.path.ConfinedRoot;
import org.vancetope.worktarget.spi.ToolContext;
import org.vancetope.worktarget.spi.ToolException;

/**
 * Ready-made {@link ExecResolver}s for the two built-in backends.
 *
 * <pre>{@code
 * ExecResolver client = ExecResolvers.client(root, ExecEnvPolicy.client(System.getenv()));
 * ExecResolver work = ExecResolvers.work((params, ctx) -> workspace.rootFor(params, ctx), homes,
 *         ExecEnvPolicy.work(System.getenv()));
 * }</pre>
 */
public final class ExecResolvers {
    private ExecResolvers() {
    }

    /**
     * Finds the validated RootDir of a WORK call (the backend's gate, e.g. from {@code dirName}).
     */
    @FunctionalInterface
    public interface RootResolver {
        /**
         * The RootDir the call runs in.
         *
         * @param params the call's parameters
         * @param context the caller
         * @return the RootDir's confined root
         * @throws ToolException e.g. {@code not_found}, {@code path_escape}
         */
        ConfinedRoot root(Map<String, Object> params, ToolContext context) throws ToolException;
    }

    /**
     * Whether a WORK job may start given the disk its caller's RootDirs hold (the backend's project budget).
     */
    @FunctionalInterface
    public interface SpaceCheck {
        /** No check: every job may start. */
        SpaceCheck NONE = (context, cleanUp) -> { };

        /**
         * Refuses a job that must not start.
         *
         * @param context the caller
         * @param cleanUp whether the job only looks at files and removes them (it starts over a budget too)
         * @throws ToolException {@code budget_exceeded}, saying what to do
         */
        void check(ToolContext context, boolean cleanUp) throws ToolException;
    }

    /**
     * CLIENT: every job runs in one work directory with the policy's environment (the user's HOME).
     *
     * @param workDir the work directory's confined root
     * @param policy the environment policy, normally {@link ExecEnvPolicy#client}
     * @return the resolver
     */
    public static ExecResolver client(ConfinedRoot workDir, ExecEnvPolicy policy) {
        Objects.requireNonNull(workDir, "workDir");
        Objects.requireNonNull(policy, "policy");
        return (params, ctx) -> new ExecTarget(workDir, policy.environment(null, Map.of()), null);
    }

    /**
     * WORK: the job runs in the call's RootDir with the scoped HOME of its tenant/project/user (created
     * and budget-checked before the job starts).
     *
     * @param roots the RootDir resolution (confinement gate)
     * @param homes the homes
     * @param policy the environment policy, normally {@link ExecEnvPolicy#work}
     * @return the resolver
     */
    public static ExecResolver work(RootResolver roots, Homes homes, ExecEnvPolicy policy) {
        return work(roots, homes, policy, SpaceCheck.NONE);
    }

    /**
     * {@link #work(RootResolver, Homes, ExecEnvPolicy)} with a check of the disk the caller's RootDirs hold,
     * made after the RootDir is found and before the HOME is prepared.
     *
     * @param roots the RootDir resolution (confinement gate)
     * @param homes the homes
     * @param policy the environment policy, normally {@link ExecEnvPolicy#work}
     * @param space the check of the RootDirs' disk
     * @return the resolver
     */
    public static ExecResolver work(RootResolver roots, Homes homes, ExecEnvPolicy policy, SpaceCheck space) {
        Objects.requireNonNull(roots, "roots");
        Objects.requireNonNull(homes, "homes");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(space, "space");
        return (params, ctx) -> {
            ConfinedRoot root = roots.root(params, ctx);
            // a job that only looks at files and removes them starts over a budget too: the way back under it
            // (with the caller's own env it could be anything: PATH=./bin, LD_PRELOAD=...)
            boolean cleanUp = params.get("command") instanceof String c && CleanUpCommand.isCleanUp(c)
                    && (params.get("env") == null || params.get("env") instanceof Map<?, ?> m && m.isEmpty());
            space.check(ctx, cleanUp);
            Home home = homes.prepare(ctx.tenant(), ctx.project(), ctx.user(), cleanUp);
            return new ExecTarget(root, policy.environment(home.dir(), Map.of()), home.dir());
        };
    }
}
