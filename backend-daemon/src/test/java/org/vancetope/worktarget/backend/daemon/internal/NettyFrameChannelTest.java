package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket08FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket08FrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
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

    /**
     * A client's frames, written whole by the channel, pass Netty's client encoder untouched and read
     * back through Netty's server decoder (which requires and removes the mask) as the same text.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, 1, 7, 8, 9, 125, 126, 127, 65_535, 65_536, 87_400, 200_003})
    void aClientFrameIsMaskedAndReadsBackThroughNettysServerDecoder(int length) throws Exception {
        EmbeddedChannel client = new EmbeddedChannel(new WebSocket08FrameEncoder(true));
        NettyFrameChannel frames = new NettyFrameChannel(client, "c-1", true);
        byte[] text = new byte[length];
        java.util.Random random = new java.util.Random(length);
        for (int i = 0; i < length; i++) {
            text[i] = (byte) ('a' + random.nextInt(26));
        }
        frames.sendUtf8(length, dst -> dst.put(text)).toCompletableFuture().get();
        frames.sendUtf8(text).toCompletableFuture().get();

        EmbeddedChannel server = new EmbeddedChannel(new WebSocket08FrameDecoder(
                WebSocketDecoderConfig.newBuilder().expectMaskedFrames(true).maxFramePayloadLength(1 << 20).build()));
        for (ByteBuf wire; (wire = client.readOutbound()) != null; ) {
            assertThat(wire.getByte(1) & 0x80).as("mask bit").isEqualTo(0x80);
            server.writeInbound(wire);
        }
        for (int k = 0; k < 2; k++) {
            TextWebSocketFrame in = server.readInbound();
            assertThat(in.isFinalFragment()).isTrue();
            assertThat(ByteBufUtil.getBytes(in.content())).isEqualTo(text);
            in.release();
        }
        Object rest = server.readInbound();
        assertThat(rest).isNull();
        client.finishAndReleaseAll();
        server.finishAndReleaseAll();
    }

    @Test
    void theMaskCoversEveryBytePositionModuloFour() {
        byte[] payload = new byte[21];
        java.nio.ByteBuffer frame = java.nio.ByteBuffer.allocate(NettyFrameChannel.headLength(21) + 21);
        frame.position(NettyFrameChannel.headLength(21));
        frame.put(payload);
        NettyFrameChannel.frameInPlace(frame, 21, 0x01020304);
        byte[] wire = frame.array();
        assertThat(wire[0]).isEqualTo((byte) 0x81);
        assertThat(wire[1]).isEqualTo((byte) (0x80 | 21));
        assertThat(java.util.Arrays.copyOfRange(wire, 2, 6)).containsExactly(1, 2, 3, 4);
        for (int i = 0; i < 21; i++) {
            assertThat(wire[6 + i]).as("byte %d", i).isEqualTo((byte) (i % 4 + 1));
        }
    }

    @Test
    void aClientWriterThatWritesTooLittleFailsAndSendsNothing() {
        EmbeddedChannel client = new EmbeddedChannel(new WebSocket08FrameEncoder(true));
        NettyFrameChannel frames = new NettyFrameChannel(client, "c-1", true);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> frames.sendUtf8(300, dst -> dst.put((byte) '{')))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("1 of 300 bytes");
        Object sent = client.readOutbound();
        assertThat(sent).isNull();
        client.finishAndReleaseAll();
    }
}
