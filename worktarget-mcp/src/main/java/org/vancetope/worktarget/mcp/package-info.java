/**
 * The MCP server: {@link org.vancetope.worktarget.mcp.McpWorkTargetServer} puts a
 * {@code WorkTargetDispatcher}'s tools in front of any MCP client, over stdio or Streamable HTTP;
 * {@link org.vancetope.worktarget.mcp.McpProcessMapping} says which process an MCP session's calls run as.
 */
package org.vancetope.worktarget.mcp;
