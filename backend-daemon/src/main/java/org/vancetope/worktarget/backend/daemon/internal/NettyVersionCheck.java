package org.vancetope.worktarget.backend.daemon.internal;

import io.netty.util.Version;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The one check, run before any Netty event loop is made (the server's start, a client session, serve's
 * admin API, the MCP HTTP server), that the Netty on the class path is the 4.2 line WorkTarget is built
 * against. Without it a host whose other BOM pins Netty 4.1 (Spring Boot 3.5's does) fails later with a bare
 * {@code NoClassDefFoundError: io/netty/channel/MultiThreadIoEventLoopGroup}.
 */
public final class NettyVersionCheck {
    /** The Netty version the build uses and the tests run with; PomMetadataTest holds it equal to the POM's. */
    public static final String TESTED_VERSION = "4.2.18.Final";
    /** The Netty line WorkTarget needs (4.2 APIs: MultiThreadIoEventLoopGroup, IoHandler factories). */
    public static final String REQUIRED_LINE = "4.2";

    /** The Netty artifacts WorkTarget uses; another artifact's version (e.g. a user's netty-tcnative) is not ours to judge. */
    private static final java.util.Set<String> OURS = java.util.Set.of("netty-common", "netty-buffer",
            "netty-transport", "netty-handler", "netty-codec", "netty-codec-base", "netty-codec-http",
            "netty-resolver");

    private static volatile boolean passed;

    private NettyVersionCheck() {
    }

    /**
     * Fails, naming the required version, when a Netty artifact WorkTarget uses is older than 4.2.
     *
     * @param what what is starting, for the message (e.g. "WorkTargetServer.start()")
     * @throws IllegalStateException when the class path holds Netty older than 4.2
     */
    public static void require(String what) {
        if (passed) {
            return;
        }
        Map<String, String> found = new TreeMap<>();
        for (Map.Entry<String, Version> e : Version.identify(NettyVersionCheck.class.getClassLoader()).entrySet()) {
            found.put(e.getKey(), e.getValue().artifactVersion());
        }
        Optional<String> problem = problem(what, found);
        if (problem.isPresent()) {
            throw new IllegalStateException(problem.get());
        }
        passed = true;
    }

    /**
     * The seam of {@link #require}: the message for the artifact versions found, or empty when they are fine.
     * No version information at all (a repackaged Netty) passes: there is nothing to judge.
     *
     * @param what what is starting
     * @param found Netty artifact id to its version, as {@link Version#identify()} reports them
     * @return the failure message, or empty
     */
    public static Optional<String> problem(String what, Map<String, String> found) {
        Map<String, String> old = new TreeMap<>();
        found.forEach((artifact, version) -> {
            if (OURS.contains(artifact) && olderThanRequired(version)) {
                old.put(artifact, version);
            }
        });
        if (old.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(what + " needs Netty " + REQUIRED_LINE + ".x (WorkTarget is tested with " + TESTED_VERSION
                + "), but the class path has " + old.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                        .collect(Collectors.joining(", "))
                + ". Another BOM (e.g. Spring Boot 3.5's) probably manages Netty 4.1: import "
                + "org.vancetope.worktarget:worktarget-bom before it, or import io.netty:netty-bom:" + TESTED_VERSION
                + " first, so that every Netty artifact is " + REQUIRED_LINE + ".");
    }

    /** Whether a version such as {@code 4.1.128.Final} is older than the required line; an unparsable one is not judged. */
    static boolean olderThanRequired(String version) {
        String[] need = REQUIRED_LINE.split("\\.");
        String[] have = version.split("[.\\-]");
        try {
            for (int i = 0; i < need.length; i++) {
                int h = i < have.length ? Integer.parseInt(have[i]) : 0;
                int n = Integer.parseInt(need[i]);
                if (h != n) {
                    return h < n;
                }
            }
            return false;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
