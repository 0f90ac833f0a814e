package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.spi.FrameChannel;

class WireChannelTest {

    /** A text channel that is not a WorkTarget connection. */
    private static final class Texts implements FrameChannel<String> {
        final List<String> sent = new ArrayList<>();

        @Override
        public String id() {
            return "t-1";
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public CompletionStage<Void> send(String frame) {
            sent.add(frame);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public boolean isWritable() {
            return true;
        }

        @Override
        public void whenWritable(Runnable callback) {
            callback.run();
        }
    }

    @Test
    void aConnectionIsItsOwnWireChannel() {
        EmbeddedChannel channel = new EmbeddedChannel();
        NettyFrameChannel frames = new NettyFrameChannel(channel, "c-1");
        assertThat(WireChannel.of(frames)).isSameAs(frames);
        channel.finishAndReleaseAll();
    }

    @Test
    void anotherTextChannelSendsTheUtf8ItIsGivenAsText() {
        Texts texts = new Texts();
        WireChannel wire = WireChannel.of(texts);
        wire.sendUtf8("{\"type\":\"x\",\"s\":\"é\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(texts.sent).containsExactly("{\"type\":\"x\",\"s\":\"é\"}");
        assertThat(wire.id()).isEqualTo("t-1");
    }

    @Test
    void anotherTextChannelRefusesAWriterThatWroteTooLittle() {
        WireChannel wire = WireChannel.of(new Texts());
        assertThatThrownBy(() -> wire.sendUtf8(4, dst -> dst.put((byte) '{'))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void pausingAConnectionsReadingTurnsAutoReadOff() {
        EmbeddedChannel channel = new EmbeddedChannel();
        NettyFrameChannel frames = new NettyFrameChannel(channel, "c-1");
        frames.reading(false);
        assertThat(channel.config().isAutoRead()).isFalse();
        frames.reading(true);
        assertThat(channel.config().isAutoRead()).isTrue();
        channel.finishAndReleaseAll();
    }
}
