/**
 * A server fleet over Redis: the {@code FleetLink} of {@code backend-daemon} implemented with Lettuce.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module org.vancetope.worktarget.cluster.redis {
    requires transitive org.vancetope.worktarget.backend.daemon;
    requires lettuce.core;
    requires io.netty.transport;
    requires io.netty.handler;
    requires org.slf4j;

    exports org.vancetope.worktarget.cluster.redis;

    provides org.vancetope.worktarget.backend.daemon.FleetLink.Factory
            with org.vancetope.worktarget.cluster.redis.RedisFleetLink.Factory;
}
