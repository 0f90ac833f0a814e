package org.vancetope.worktarget.backend.daemon.internal;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.vancetope.worktarget.backend.daemon.FrameExtension;
import org.vancetope.worktarget.spi.Authenticator;

/**
 * The validated settings the server's handlers run with (built by {@code WorkTargetServer.Builder}).
 *
 * @param path the WebSocket path
 * @param maxFrameBytes largest frame payload
 * @param maxHandshakeBytes largest upgrade request
 * @param pingInterval ping period of the liveness check
 * @param silentIntervalsBeforeClose silent intervals after which a connection is closed
 * @param helloTimeout how long a new connection may take to send hello
 * @param protocolErrorLimit protocol errors that close a connection …
 * @param protocolErrorWindow … when they fall within this window
 * @param capabilities the capabilities the server supports
 * @param limits the {@code limits} object of {@code welcome}
 * @param authenticator checks tokens
 * @param extension handles other frame types, or null
 * @param nanoClock the clock of the error window
 * @param upgradeTimeout how long a new connection may take to send its whole upgrade request
 * @param maxManifestBytes largest {@code hello} or {@code tool_manifest} frame (the peer's tool manifest)
 * @param manifestBudgetBytes the most bytes of manifests all connections hold together
 * @param maxConnectionsPerSubject the most open connections of one token subject (0: no cap)
 */
public record ServerSettings(String path, int maxFrameBytes, int maxHandshakeBytes, Duration pingInterval,
                             int silentIntervalsBeforeClose, Duration helloTimeout, int protocolErrorLimit,
                             Duration protocolErrorWindow, Set<String> capabilities, Map<String, Object> limits,
                             Authenticator authenticator, FrameExtension extension, LongSupplier nanoClock,
                             Duration upgradeTimeout, int maxManifestBytes, long manifestBudgetBytes,
                             int maxConnectionsPerSubject) {
    /** The default of {@link #maxManifestBytes}: 512 KiB, sixteen times the manifest of every CLIENT tool here. */
    public static final int DEFAULT_MAX_MANIFEST_BYTES = 512 * 1024;

    /**
     * The default of {@link #manifestBudgetBytes}: an eighth of the heap this JVM may grow to (at least
     * 16 MiB). A manifest held as Java objects takes about three times its bytes on the wire.
     *
     * @return the default budget
     */
    public static long defaultManifestBudgetBytes() {
        return Math.max(16L << 20, Runtime.getRuntime().maxMemory() / 8);
    }

    /** Copies the collections. */
    public ServerSettings {
        capabilities = Set.copyOf(capabilities);
        limits = Map.copyOf(limits);
    }

    /**
     * The settings with the default upgrade timeout ({@link HandshakeAuthHandler.DEFAULT_UPGRADE_TIMEOUT}) and no
     * cap of connections per subject.
     *
     * @param path the WebSocket path
     * @param maxFrameBytes largest frame payload
     * @param maxHandshakeBytes largest upgrade request
     * @param pingInterval ping period of the liveness check
     * @param silentIntervalsBeforeClose silent intervals after which a connection is closed
     * @param helloTimeout how long a new connection may take to send hello
     * @param protocolErrorLimit protocol errors that close a connection …
     * @param protocolErrorWindow … when they fall within this window
     * @param capabilities the capabilities the server supports
     * @param limits the {@code limits} object of {@code welcome}
     * @param authenticator checks tokens
     * @param extension handles other frame types, or null
     * @param nanoClock the clock of the error window
     * @param maxManifestBytes largest {@code hello} or {@code tool_manifest} frame
     * @param manifestBudgetBytes the most bytes of manifests all connections hold together
     */
    public ServerSettings(String path, int maxFrameBytes, int maxHandshakeBytes, Duration pingInterval,
                          int silentIntervalsBeforeClose, Duration helloTimeout, int protocolErrorLimit,
                          Duration protocolErrorWindow, Set<String> capabilities, Map<String, Object> limits,
                          Authenticator authenticator, FrameExtension extension, LongSupplier nanoClock,
                          int maxManifestBytes, long manifestBudgetBytes) {
        this(path, maxFrameBytes, maxHandshakeBytes, pingInterval, silentIntervalsBeforeClose, helloTimeout,
                protocolErrorLimit, protocolErrorWindow, capabilities, limits, authenticator, extension, nanoClock,
                HandshakeAuthHandler.DEFAULT_UPGRADE_TIMEOUT, maxManifestBytes, manifestBudgetBytes, 0);
    }
}
