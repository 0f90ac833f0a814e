/**
 * Implementation of the wire backend: the JSON frame codec, the Netty handlers, the session and
 * daemon registries and the client session. Not an API; it may change in any release.
 */
package org.vancetope.worktarget.backend.daemon.internal;
