/**
 * The wire backend of WorkTarget: {@link org.vancetope.worktarget.backend.daemon.WorkTargetServer}
 * is the server end that backs the CLIENT and DAEMON targets for the dispatcher,
 * {@link org.vancetope.worktarget.backend.daemon.WorkTargetClient} the client end that serves a machine's
 * {@code client_*} tools, and {@link org.vancetope.worktarget.backend.daemon.TokenAuthenticator} a
 * default token check. Frame types beyond the base protocol (the transfers) plug in through
 * {@link org.vancetope.worktarget.backend.daemon.FrameExtension}.
 *
 * <pre>{@code
 * WorkTargetServer server = WorkTargetServer.builder().port(7070).authenticator(auth).build().start();
 * WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder().processStore(store)
 *         .peers(server.peers()).build();
 * }</pre>
 */
package org.vancetope.worktarget.backend.daemon;
