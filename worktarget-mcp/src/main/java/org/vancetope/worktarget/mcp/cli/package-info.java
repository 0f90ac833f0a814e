/**
 * The runnable {@code worktarget.jar} of this module: every command of the backend-daemon command line
 * plus {@code mcp}. Entry point {@link org.vancetope.worktarget.mcp.cli.McpMain}.
 */
package org.vancetope.worktarget.mcp.cli;
