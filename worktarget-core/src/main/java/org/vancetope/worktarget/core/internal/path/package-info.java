/**
 * The one confinement gate: {@link org.vancetope.worktarget.core.internal.path.ConfinedRoot} resolves
 * every caller path of every consumer (file tools, exec working directory and output, both transfer
 * directions, RootDir disposal, homes) against a root, and hands out the handles that act on the
 * result without following links: {@link org.vancetope.worktarget.core.internal.path.SafeDirectory}
 * and {@link org.vancetope.worktarget.core.internal.path.StagedFile}. Not API.
 */
package org.vancetope.worktarget.core.internal.path;
