/**
 * Implementation details of the workspace backend: descriptor files, the built-in RootDir types and
 * link-safe tree deletion. Not API.
 */
package org.vancetope.worktarget.backend.workspace.internal;
