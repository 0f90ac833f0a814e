package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.PrematureChannelClosureException;
import java.net.SocketException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

class PeerFailuresTest {

    @Test
    void aResetIsANetworkFailure() {
        assertThat(PeerFailures.isNetwork(new SocketException("Connection reset"))).isTrue();
    }

    @Test
    void bytesThatAreNotTlsAreANetworkFailureEvenWrapped() {
        assertThat(PeerFailures.isNetwork(new DecoderException(new SSLHandshakeException("bad record")))).isTrue();
    }

    @Test
    void aRequestCutShortByTheCloseIsANetworkFailure() {
        assertThat(PeerFailures.isNetwork(new PrematureChannelClosureException("closed"))).isTrue();
    }

    @Test
    void aBugIsNotANetworkFailure() {
        assertThat(PeerFailures.isNetwork(new IllegalStateException("bug", new NullPointerException()))).isFalse();
    }

    @Test
    void briefNamesTheInnermostCause() {
        assertThat(PeerFailures.brief(new DecoderException(new SocketException("Connection reset"))))
                .isEqualTo("SocketException: Connection reset");
    }

    @Test
    void briefIsOneLineOfBoundedLength() {
        String b = PeerFailures.brief(new DecoderException("not TLS: " + "ab\n\r".repeat(500)));
        assertThat(b).hasSize(PeerFailures.MAX_BRIEF).doesNotContain("\n", "\r").endsWith("…");
    }
}
