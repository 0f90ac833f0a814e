/**
 * The WORK backend: project RootDirs on a server disk and the {@code work_file_*} tools confined to
 * them. Start with {@link org.vancetope.worktarget.backend.workspace.WorkspaceBackend#builder()}.
 */
package org.vancetope.worktarget.backend.workspace;
