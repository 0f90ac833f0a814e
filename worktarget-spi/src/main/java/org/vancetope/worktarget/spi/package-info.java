/**
 * The seams an integrator implements to embed WorkTarget: backend tool providers, the host's process
 * model, client and daemon connectivity, the settings cascade, RootDir type handlers, the authenticator
 * for remote connections and the frame channel that carries transfer frames.
 *
 * <p>This package has no dependencies. Every seam can be handed to the builders of
 * {@code worktarget-core} as a plain instance (the main path, friendly to DI containers); the
 * {@link java.util.ServiceLoader} discovery is a convenience on top, see {@code WorkTargetDispatcher.Builder#discoverBackends()} in core.
 */
package org.vancetope.worktarget.spi;
