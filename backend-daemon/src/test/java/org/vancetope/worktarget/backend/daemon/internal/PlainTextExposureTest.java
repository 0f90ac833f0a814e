package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** A server without TLS is warned about when other machines reach it, and only then. */
class PlainTextExposureTest {
    private static final String HOW = "Serve wss://.";

    @Test
    void aLoopbackAddressNeedsNoWarning() {
        assertThat(PlainTextExposure.warning("The server", new InetSocketAddress("127.0.0.1", 7070), HOW)).isNull();
        assertThat(PlainTextExposure.warning("The server", new InetSocketAddress("127.0.0.2", 7070), HOW)).isNull();
        assertThat(PlainTextExposure.warning("The server", new InetSocketAddress("::1", 7070), HOW)).isNull();
    }

    @Test
    void everyInterfaceIsWarnedAboutNamingTheAddressAndWhatToDo() {
        assertThat(PlainTextExposure.warning("The server", new InetSocketAddress("0.0.0.0", 7070), HOW))
                .isEqualTo("The server listens on 0.0.0.0:7070 without TLS, where other machines reach it: bearer "
                        + "tokens and file contents travel in clear. Serve wss://.");
    }

    @Test
    void anAddressOfTheNetworkIsWarnedAbout() {
        assertThat(PlainTextExposure.warning("The server", new InetSocketAddress("192.0.2.10", 7070), HOW))
                .startsWith("The server listens on 192.0.2.10:7070 without TLS");
        assertThat(PlainTextExposure.warning("The server", new InetSocketAddress("::", 7070), HOW))
                .contains("without TLS");
    }
}
