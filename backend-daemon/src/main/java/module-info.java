/**
 * The WebSocket server and clients (foot and daemon) over Netty, the CLI ({@code serve}, {@code daemon},
 * {@code call}) and the transfer bridge. The {@code internal} package is not API.
 */
@SuppressWarnings("module") // the qualified export names our MCP module, which is built after this one
module org.vancetope.worktarget.backend.daemon {
    requires transitive org.vancetope.worktarget.core;
    requires transitive org.vancetope.worktarget.transfer;
    requires org.vancetope.worktarget.backend.local;
    requires org.vancetope.worktarget.backend.workspace;
    requires org.slf4j;
    requires java.net.http;
    requires com.fasterxml.jackson.databind;
    requires io.netty.common;
    requires io.netty.buffer;
    requires io.netty.transport;
    requires transitive io.netty.handler; // SslContext is part of the builders' API
    requires io.netty.codec;
    requires io.netty.codec.http;

    uses org.vancetope.worktarget.backend.daemon.FleetLink.Factory;

    exports org.vancetope.worktarget.backend.daemon;
    exports org.vancetope.worktarget.backend.daemon.cli;
    // NettyVersionCheck: the MCP HTTP server runs the same Netty check before its event loop
    exports org.vancetope.worktarget.backend.daemon.internal to org.vancetope.worktarget.mcp;
}
