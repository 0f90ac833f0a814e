package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The connection cap shared by every connection of a server, and the file limit its default comes from. */
class ConnectionCapTest {
    /** The listening channel of a server with this cap: what gets past the cap lands in {@link #accepted}. */
    private static final class Listener {
        final List<Channel> accepted = new ArrayList<>();
        final EmbeddedChannel channel;

        Listener(HttpGuards.ConnectionCap cap) {
            channel = new EmbeddedChannel(cap, new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    accepted.add((Channel) msg);
                }
            });
        }

        /** Accepts a new connection and returns it. */
        EmbeddedChannel accept() {
            EmbeddedChannel child = new EmbeddedChannel();
            channel.writeInbound(child);
            return child;
        }
    }

    @Test
    void aConnectionOverTheCapIsClosedOnAcceptAndNotPassedOn() {
        HttpGuards.ConnectionCap cap = new HttpGuards.ConnectionCap("test server", 2);
        Listener server = new Listener(cap);
        EmbeddedChannel first = server.accept();
        EmbeddedChannel second = server.accept();

        EmbeddedChannel third = server.accept();

        assertThat(first.isOpen()).isTrue();
        assertThat(second.isOpen()).isTrue();
        assertThat(third.isOpen()).as("the connection over the cap").isFalse();
        assertThat(server.accepted).containsExactly(first, second);
        assertThat(cap.open()).isEqualTo(2);
    }

    @Test
    void aClosedConnectionMakesRoomForANewOne() {
        HttpGuards.ConnectionCap cap = new HttpGuards.ConnectionCap("test server", 1);
        Listener server = new Listener(cap);
        EmbeddedChannel first = server.accept();
        assertThat(server.accept().isOpen()).isFalse();

        first.close();

        assertThat(cap.open()).isZero();
        assertThat(server.accept().isOpen()).isTrue();
        assertThat(cap.open()).isEqualTo(1);
    }

    @Test
    void refusedConnectionsAreNotCounted() {
        HttpGuards.ConnectionCap cap = new HttpGuards.ConnectionCap("test server", 1);
        Listener server = new Listener(cap);
        EmbeddedChannel kept = server.accept();
        for (int i = 0; i < 5; i++) {
            server.accept().close();
        }
        assertThat(cap.open()).isEqualTo(1);

        kept.close();

        assertThat(cap.open()).isZero();
    }

    /** A connection from this remote address. */
    private static EmbeddedChannel from(String ip) {
        InetSocketAddress remote = new InetSocketAddress(ip, 40_000);
        return new EmbeddedChannel() {
            @Override
            protected SocketAddress remoteAddress0() {
                return remote;
            }
        };
    }

    private static EmbeddedChannel accept(Listener server, String ip) {
        EmbeddedChannel child = from(ip);
        server.channel.writeInbound(child);
        return child;
    }

    @Test
    void oneMoreUntrustedConnectionOfAnAddressClosesItsOldestAndOthersStillGetIn() throws Exception {
        HttpGuards.ConnectionCap cap = new HttpGuards.ConnectionCap("test server", 100, 2);
        Listener server = new Listener(cap);
        EmbeddedChannel a1 = accept(server, "10.0.0.1");
        EmbeddedChannel a2 = accept(server, "10.0.0.1");

        EmbeddedChannel a3 = accept(server, "10.0.0.1");
        EmbeddedChannel b1 = accept(server, "10.0.0.2");

        assertThat(List.of(a1.isOpen(), a2.isOpen(), a3.isOpen(), b1.isOpen())).containsExactly(false, true, true, true);
        assertThat(server.accepted).containsExactly(a1, a2, a3, b1);
        assertThat(cap.open()).as("the closed one is not counted").isEqualTo(3);
        assertThat(cap.untrusted(InetAddress.getByName("10.0.0.1"))).isEqualTo(2);
    }

    @Test
    void aTrustedConnectionNoLongerCountsAgainstItsAddressNorIsClosedForANewOne() throws Exception {
        HttpGuards.ConnectionCap cap = new HttpGuards.ConnectionCap("test server", 100, 2);
        Listener server = new Listener(cap);
        EmbeddedChannel a1 = accept(server, "10.0.0.1");
        EmbeddedChannel a2 = accept(server, "10.0.0.1");

        HttpGuards.ConnectionCap.trusted(a1);
        HttpGuards.ConnectionCap.trusted(a1);

        assertThat(cap.untrusted(InetAddress.getByName("10.0.0.1"))).isEqualTo(1);
        EmbeddedChannel a3 = accept(server, "10.0.0.1");
        EmbeddedChannel a4 = accept(server, "10.0.0.1");
        assertThat(List.of(a1.isOpen(), a2.isOpen(), a3.isOpen(), a4.isOpen())).containsExactly(true, false, true, true);
        a1.close();
        assertThat(cap.untrusted(InetAddress.getByName("10.0.0.1"))).as("closing a trusted one gives nothing back")
                .isEqualTo(2);
        assertThat(cap.open()).isEqualTo(2);
    }

    @Test
    void aClosedUntrustedConnectionGivesItsPlaceBack() throws Exception {
        HttpGuards.ConnectionCap cap = new HttpGuards.ConnectionCap("test server", 100, 2);
        Listener server = new Listener(cap);
        EmbeddedChannel a1 = accept(server, "10.0.0.1");
        EmbeddedChannel a2 = accept(server, "10.0.0.1");

        a1.close();

        assertThat(cap.untrusted(InetAddress.getByName("10.0.0.1"))).isEqualTo(1);
        EmbeddedChannel a3 = accept(server, "10.0.0.1");
        assertThat(List.of(a2.isOpen(), a3.isOpen())).as("no one closed for it").containsExactly(true, true);
    }

    @Test
    void withoutACapPerAddressOneAddressMayFillTheWholeCap() {
        HttpGuards.ConnectionCap cap = new HttpGuards.ConnectionCap("test server", 3);
        Listener server = new Listener(cap);
        for (int i = 0; i < 3; i++) {
            assertThat(accept(server, "10.0.0.1").isOpen()).isTrue();
        }
        assertThat(accept(server, "10.0.0.2").isOpen()).isFalse();
    }

    @Test
    void trustingAConnectionWithoutACapDoesNothing() {
        EmbeddedChannel plain = new EmbeddedChannel();

        HttpGuards.ConnectionCap.trusted(plain);

        assertThat(plain.isOpen()).isTrue();
    }

    @Test
    void aFailedAcceptIsLoggedAtTheEndOfTheListeningPipelineAndGoesNoFurther() {
        EmbeddedChannel listener = new EmbeddedChannel(new HttpGuards.ConnectionCap("test server", 1));
        listener.runPendingTasks();
        assertThat(listener.pipeline().names()).containsSubsequence(HttpGuards.AcceptFailures.NAME);
        assertThat(listener.pipeline().last()).isInstanceOf(HttpGuards.AcceptFailures.class);

        listener.pipeline().fireExceptionCaught(new java.io.IOException("Too many open files"));

        listener.checkException();      // would rethrow an exception that reached the pipeline's end
    }

    @Test
    void theCapMustBeAtLeastOne() {
        assertThatThrownBy(() -> new HttpGuards.ConnectionCap("test server", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1, got 0");
        assertThatThrownBy(() -> new HttpGuards.ConnectionCap("test server", 1, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0 (no cap) or more, got -1");
    }

    @Test
    void theDefaultIsTheCeilingOrTheShareOfTheFileLimitAndAtLeastSixteen() {
        long fds = FileLimits.maxOpenFiles();
        int expected = fds > 0 ? (int) Math.max(16, Math.min(10_000, fds / 2)) : 10_000;

        assertThat(HttpGuards.ConnectionCap.defaultMax(10_000, 2)).isEqualTo(expected);
        assertThat(HttpGuards.ConnectionCap.defaultMax(4, 2)).isEqualTo(16);
    }

    @Test
    void theSoftLimitOfOpenFilesIsReadFromProcLimits() {
        List<String> limits = List.of(
                "Limit                     Soft Limit           Hard Limit           Units     ",
                "Max processes             127803               127803               processes ",
                "Max open files            1024                 524288               files     ",
                "Max locked memory         8388608              8388608              bytes     ");

        assertThat(FileLimits.parse(limits)).isEqualTo(1024);
        assertThat(FileLimits.parse(List.of("Max open files            unlimited            unlimited            files"
        ))).isEqualTo(-1);
        assertThat(FileLimits.parse(List.of("Max processes 5 5 processes"))).isEqualTo(-1);
    }

    @Test
    void onLinuxTheLimitOfThisProcessIsKnown() {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.exists(java.nio.file.Path.of("/proc/self/limits")),
                "no /proc/self/limits on this system");

        assertThat(FileLimits.maxOpenFiles()).isPositive();
    }
}
