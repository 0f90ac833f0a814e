/**
 * The WorkTarget layer: {@link org.vancetope.worktarget.core.WorkTarget} (where a process's file and
 * exec tools run), {@link org.vancetope.worktarget.core.WorkTargetService} (defaults, storage, spawn
 * inheritance), {@link org.vancetope.worktarget.core.WorkTargetDispatcher} (routes each wrapper call
 * to the backend of the current target) and {@link org.vancetope.worktarget.core.ToolCatalog} (the 17
 * wrappers, 2 meta-tools and 34 backend tools with their JSON-Schema parameters).
 *
 * <pre>{@code
 * WorkTargetDispatcher dispatcher = WorkTargetDispatcher.builder()
 *         .processStore(store).backend(workspace).peers(server.peers()).build();
 * Map<String, Object> r = dispatcher.invoke("agent-1", "file_read", Map.of("path", "README.md"));
 * }</pre>
 *
 * <p>Packages named {@code internal} hold the engines (files, exec, homes, transfer) and are not API.
 */
package org.vancetope.worktarget.core;
