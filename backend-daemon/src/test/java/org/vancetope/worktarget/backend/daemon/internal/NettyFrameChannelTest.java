package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class NettyFrameChannelTest {

    private static EmbeddedChannel channel(NettyFrameChannel[] holder) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setWriteBufferWaterMark(new WriteBufferWaterMark(16, 64));
        holder[0] = new NettyFrameChannel(ch, "c-1");
        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                holder[0].writabilityChanged();
            }
        });
        return ch;
    }

    @Test
    void senderAboveTheHighWatermarkWaitsUntilTheBufferDrains() {
        NettyFrameChannel[] f = new NettyFrameChannel[1];
        EmbeddedChannel ch = channel(f);
        ch.write(new TextWebSocketFrame("x".repeat(100)));
        assertThat(f[0].isWritable()).isFalse();
        AtomicInteger ran = new AtomicInteger();
        f[0].whenWritable(ran::incrementAndGet);
        assertThat(ran.get()).isZero();
        ch.flush();
        assertThat(f[0].isWritable()).isTrue();
        assertThat(ran.get()).isEqualTo(1);
        ch.finishAndReleaseAll();
    }

    @Test
    void writableChannelRunsTheCallbackAtOnce() {
        NettyFrameChannel[] f = new NettyFrameChannel[1];
        EmbeddedChannel ch = channel(f);
        AtomicInteger ran = new AtomicInteger();
        f[0].whenWritable(ran::incrementAndGet);
        assertThat(ran.get()).isEqualTo(1);
        ch.finishAndReleaseAll();
    }

    @Test
    void closingTheChannelReleasesWaitingSenders() {
        NettyFrameChannel[] f = new NettyFrameChannel[1];
        EmbeddedChannel ch = channel(f);
        ch.write(new TextWebSocketFrame("x".repeat(100)));
        AtomicInteger ran = new AtomicInteger();
        f[0].whenWritable(ran::incrementAndGet);
        ch.close();
        assertThat(ran.get()).isEqualTo(1);
        assertThat(f[0].isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }

    @Test
    void sendCompletesWhenTheFrameIsWritten() throws Exception {
        NettyFrameChannel[] f = new NettyFrameChannel[1];
        EmbeddedChannel ch = channel(f);
        f[0].send("{\"type\":\"transfer_finish\"}").toCompletableFuture().get();
        TextWebSocketFrame out = ch.readOutbound();
        assertThat(out.text()).isEqualTo("{\"type\":\"transfer_finish\"}");
        out.release();
        ch.finishAndReleaseAll();
    }

    @Test
    void aFrameWrittenIntoTheNetworkBufferIsSentAsWritten() throws Exception {
        NettyFrameChannel[] f = new NettyFrameChannel[1];
        EmbeddedChannel ch = channel(f);
        byte[] json = "{\"type\":\"transfer_finish\"}".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        f[0].sendUtf8(json.length, dst -> dst.put(json)).toCompletableFuture().get();
        TextWebSocketFrame out = ch.readOutbound();
        assertThat(out.text()).isEqualTo("{\"type\":\"transfer_finish\"}");
        out.release();
        ch.finishAndReleaseAll();
    }

    @Test
    void aWriterThatWritesTooLittleFailsAndSendsNothing() {
        NettyFrameChannel[] f = new NettyFrameChannel[1];
        EmbeddedChannel ch = channel(f);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> f[0].sendUtf8(10, dst -> dst.put((byte) '{')))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("1 of 10 bytes");
        Object sent = ch.readOutbound();
        assertThat(sent).isNull();
        ch.finishAndReleaseAll();
    }

    @Test
    void pausingReadingTurnsAutoReadOffAndResumingTurnsItOn() {
        EmbeddedChannel channel = new EmbeddedChannel();
        NettyFrameChannel frames = new NettyFrameChannel(channel, "c-1");
        frames.reading(false);
        assertThat(channel.config().isAutoRead()).isFalse();
        frames.reading(true);
        assertThat(channel.config().isAutoRead()).isTrue();
        channel.finishAndReleaseAll();
    }
}
