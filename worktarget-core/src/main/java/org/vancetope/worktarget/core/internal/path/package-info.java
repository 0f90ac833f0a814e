/**
 * The confinement gate: {@link org.vancetope.worktarget.core.internal.path.PathGate} resolves every
 * caller path of every backend (file tools, transfer receiver, exec working directory) against a root,
 * and {@link org.vancetope.worktarget.core.internal.path.SafeDirectory} operates on the validated
 * result without following links. Not API.
 */
package org.vancetope.worktarget.core.internal.path;
