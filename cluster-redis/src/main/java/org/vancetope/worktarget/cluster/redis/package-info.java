/**
 * A fleet of WorkTarget server nodes over Redis: {@link org.vancetope.worktarget.cluster.redis.RedisFleetLink},
 * given to {@code WorkTargetServer.Builder.fleet}, routes DAEMON and CLIENT calls to the node the peer
 * is connected to.
 */
package org.vancetope.worktarget.cluster.redis;
