/**
 * The MCP server: the dispatcher's tools (wrappers, meta-tools, host tools) as MCP tools over stdio and
 * Streamable HTTP, and the runnable jar's {@code mcp} command. The {@code internal} package is not API.
 */
@SuppressWarnings("requires-automatic") // the MCP SDK and Reactor ship automatic module names only
module org.vancetope.worktarget.mcp {
    requires transitive org.vancetope.worktarget.core;
    requires org.vancetope.worktarget.backend.local;
    requires org.vancetope.worktarget.backend.workspace;
    requires org.vancetope.worktarget.backend.daemon;
    requires io.modelcontextprotocol.sdk.mcp.core;
    requires reactor.core;
    requires org.slf4j;
    requires io.netty.common;
    requires io.netty.buffer;
    requires io.netty.transport;
    requires io.netty.handler;
    requires io.netty.codec;
    requires io.netty.codec.http;

    exports org.vancetope.worktarget.mcp;
    exports org.vancetope.worktarget.mcp.cli;
}
