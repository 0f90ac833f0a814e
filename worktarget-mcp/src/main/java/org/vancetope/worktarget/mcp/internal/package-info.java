/** Internals of the MCP server: the tool mapping, the calls, cancellation and the HTTP transport. Not API. */
package org.vancetope.worktarget.mcp.internal;
