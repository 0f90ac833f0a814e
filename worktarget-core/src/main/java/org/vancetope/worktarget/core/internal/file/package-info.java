/**
 * The file engine behind the {@code client_file_*} and {@code work_file_*} tools:
 * {@link org.vancetope.worktarget.core.internal.file.FileEngine} runs the thirteen operations on any
 * {@link java.nio.file.FileSystem}, each returning a typed
 * {@link org.vancetope.worktarget.core.internal.file.FileResult};
 * {@link org.vancetope.worktarget.core.internal.file.FileTools} turns it into backend tools with the
 * catalog's specs and renders each result once. Not API.
 */
package org.vancetope.worktarget.core.internal.file;
