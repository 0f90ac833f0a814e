package org.vancetope.worktarget.backend.daemon.internal;

import io.netty.handler.ssl.SslContext;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.vancetope.worktarget.backend.daemon.CancelledCall;
import org.vancetope.worktarget.backend.daemon.FrameExtension;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolContext;

/**
 * The validated settings of a client connector (built by {@code WorkTargetClient.Builder}).
 *
 * @param uri the server endpoint, {@code ws://} or {@code wss://}
 * @param token the bearer token
 * @param profile {@code foot} or {@code daemon}
 * @param tenant the tenant
 * @param project the project (required for daemons)
 * @param daemonName the daemon name, or null for a foot
 * @param sessionId the session, or null for a daemon
 * @param clientName the client's self-description
 * @param capabilities the capabilities to offer
 * @param tools the tools to serve
 * @param workerThreads the size of the worker pool
 * @param initialBackoff the first reconnect delay
 * @param maxBackoff the largest reconnect delay
 * @param pingInterval the liveness interval
 * @param silentIntervalsBeforeClose silent intervals after which the connection is dropped
 * @param maxFrameBytes the largest frame payload
 * @param handshakeTimeout the upgrade timeout
 * @param sslContext TLS for {@code wss://}, or null for the JDK default
 * @param cancelHook called when a running call is cancelled (the argument is the call), or null
 * @param extension handles other frame types, or null
 * @param lowWaterMark the connection is writable again below this many queued outbound bytes
 * @param highWaterMark the connection is not writable above this many queued outbound bytes
 * @param processEndHook told when the server says a process ended ({@code process.end}), or null
 */
public record ClientSettings(URI uri, String token, String profile, String tenant, String project, String daemonName,
                             String sessionId, String clientName, Set<String> capabilities, List<BackendTool> tools,
                             int workerThreads, Duration initialBackoff, Duration maxBackoff, Duration pingInterval,
                             int silentIntervalsBeforeClose, int maxFrameBytes, Duration handshakeTimeout,
                             SslContext sslContext, Consumer<CancelledCall> cancelHook, FrameExtension extension,
                             int lowWaterMark, int highWaterMark, Consumer<ToolContext> processEndHook) {
    /** Copies the collections. */
    public ClientSettings {
        capabilities = Set.copyOf(capabilities);
        tools = List.copyOf(tools);
    }

}
