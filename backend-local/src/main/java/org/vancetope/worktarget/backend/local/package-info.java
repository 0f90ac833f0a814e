/**
 * The in-process CLIENT backend: the {@code client_file_*} tools over one local work directory.
 * Start with {@link org.vancetope.worktarget.backend.local.LocalBackend#builder()}.
 */
package org.vancetope.worktarget.backend.local;
