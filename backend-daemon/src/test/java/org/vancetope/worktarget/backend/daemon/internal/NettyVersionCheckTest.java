package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.netty.util.Version;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NettyVersionCheckTest {

    @Test
    void nettyFourOneFailsNamingTheRequiredVersionAndTheOldArtifacts() {
        // what a consumer gets when Spring Boot 3.5's BOM is imported before worktarget-bom: the artifacts it
        // manages at 4.1, the 4.2-only netty-codec-base left at ours
        String message = NettyVersionCheck.problem("WorkTargetServer.start()", Map.of(
                "netty-common", "4.1.128.Final", "netty-transport", "4.1.128.Final",
                "netty-codec-base", NettyVersionCheck.TESTED_VERSION)).orElseThrow();

        assertThat(message).startsWith("WorkTargetServer.start() needs Netty 4.2.x")
                .contains("tested with " + NettyVersionCheck.TESTED_VERSION)
                .contains("netty-common 4.1.128.Final, netty-transport 4.1.128.Final")
                .doesNotContain("netty-codec-base")
                .contains("import org.vancetope.worktarget:worktarget-bom before it");
    }

    @Test
    void nettyFourTwoPasses() {
        assertThat(NettyVersionCheck.problem("x", Map.of("netty-common", "4.2.18.Final",
                "netty-transport", "4.2.0.Final", "netty-handler", "4.3.1.Final"))).isEmpty();
    }

    @Test
    void noVersionInformationPasses() {
        assertThat(NettyVersionCheck.problem("x", Map.of())).isEmpty();
    }

    @Test
    void anotherArtifactOfNettysIsNotJudged() {
        assertThat(NettyVersionCheck.problem("x", Map.of("netty-tcnative-classes", "2.0.70.Final"))).isEmpty();
    }

    @Test
    void anUnparsableVersionIsNotJudged() {
        assertThat(NettyVersionCheck.problem("x", Map.of("netty-common", "main-SNAPSHOT"))).isEmpty();
    }

    @Test
    void olderMajorAndMinorAreOlderThanRequired() {
        assertThat(NettyVersionCheck.olderThanRequired("4.1.137.Final")).isTrue();
        assertThat(NettyVersionCheck.olderThanRequired("3.10.6.Final")).isTrue();
        assertThat(NettyVersionCheck.olderThanRequired("4.2.0.Alpha1")).isFalse();
        assertThat(NettyVersionCheck.olderThanRequired("5.0.0.Alpha2")).isFalse();
    }

    @Test
    void theBuildsOwnNettyPassesAndIsTheTestedVersion() {
        assertThatCode(() -> NettyVersionCheck.require("test")).doesNotThrowAnyException();
        assertThat(Version.identify().get("netty-common").artifactVersion()).isEqualTo(NettyVersionCheck.TESTED_VERSION);
    }
}
