package org.vancetope.worktarget.backend.daemon;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every setting of the client builder is validated at build time, with a message naming it. */
class WorkTargetClientBuilderTest {
    private static WorkTargetClient.Builder valid() {
        return WorkTargetClient.builder().uri(URI.create("ws://127.0.0.1:1/worktarget/v1")).token("t")
                .daemon("acme", "proj", "box-1");
    }

    @Test
    void aCompleteBuilderBuilds() {
        assertThatCode(() -> valid().writeBufferWaterMark(1024, 4096).build().close()).doesNotThrowAnyException();
    }

    @Test
    void missingUriTokenOrProfileIsRejected() {
        assertThatThrownBy(() -> WorkTargetClient.builder().token("t").daemon("acme", "proj", "box-1").build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("uri, token");
    }

    @Test
    void aNonWebSocketUriIsRejected() {
        assertThatThrownBy(() -> valid().uri(URI.create("http://127.0.0.1:1/x")).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ws://");
    }

    @Test
    void aDaemonNameOutsideThePatternIsRejected() {
        assertThatThrownBy(() -> valid().daemon("acme", "proj", "Box One").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("daemon name");
    }

    @Test
    void watermarksOutOfOrderOrNotPositiveAreRejected() {
        assertThatThrownBy(() -> valid().writeBufferWaterMark(4096, 1024).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("writeBufferWaterMark");
        assertThatThrownBy(() -> valid().writeBufferWaterMark(0, 1024).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("writeBufferWaterMark");
    }

    @Test
    void aNonPositivePingIntervalIsRejected() {
        assertThatThrownBy(() -> valid().pingInterval(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pingInterval");
    }
}
