package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocket08FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket08FrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the client writes comes out of the pipeline (Netty's client encoder, then this one nearer the
 * tail) as bytes that Netty's server decoder, which requires and removes the mask, reads back.
 */
class ClientFrameEncoderTest {

    private static EmbeddedChannel client() {
        return new EmbeddedChannel(new WebSocket08FrameEncoder(true), new ClientFrameEncoder());
    }

    /** Passes everything the client wrote through a server's decoder. */
    private static List<WebSocketFrame> asServerReadsIt(EmbeddedChannel client) {
        EmbeddedChannel server = new EmbeddedChannel(new WebSocket08FrameDecoder(
                WebSocketDecoderConfig.newBuilder().expectMaskedFrames(true).maxFramePayloadLength(1 << 20).build()));
        for (ByteBuf wire; (wire = client.readOutbound()) != null; ) {
            assertThat(wire.getByte(wire.readerIndex() + 1) & 0x80).as("mask bit").isEqualTo(0x80);
            server.writeInbound(wire);
        }
        List<WebSocketFrame> frames = new ArrayList<>();
        for (WebSocketFrame f; (f = server.readInbound()) != null; ) {
            frames.add(f);
        }
        server.finishAndReleaseAll();
        return frames;
    }

    private static byte[] text(int length) {
        byte[] b = new byte[length];
        Random random = new Random(length);
        for (int i = 0; i < length; i++) {
            b[i] = (byte) ('a' + random.nextInt(26));
        }
        return b;
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 7, 8, 9, 125, 126, 127, 65_535, 65_536, 87_400, 200_003})
    void aTextFrameIsMaskedInPlaceAndReadsBackAsTheSameText(int length) {
        EmbeddedChannel client = client();
        byte[] text = text(length);
        client.writeOutbound(new TextWebSocketFrame(client.alloc().directBuffer(length).writeBytes(text)));
        client.writeOutbound(new TextWebSocketFrame(Unpooled.wrappedBuffer(text.clone())));
        List<WebSocketFrame> read = asServerReadsIt(client);
        assertThat(read).hasSize(2);
        for (WebSocketFrame f : read) {
            assertThat(f).isInstanceOf(TextWebSocketFrame.class);
            assertThat(f.isFinalFragment()).isTrue();
            assertThat(ByteBufUtil.getBytes(f.content())).isEqualTo(text);
            f.release();
        }
        client.finishAndReleaseAll();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 125, 126, 65_536, 65_561})
    void aBinaryFrameIsMaskedInPlaceAndReadsBackAsTheSameBytes(int length) {
        EmbeddedChannel client = client();
        byte[] bytes = new byte[length];
        new Random(length).nextBytes(bytes);
        client.writeOutbound(new io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame(
                client.alloc().directBuffer(length).writeBytes(bytes)));
        List<WebSocketFrame> read = asServerReadsIt(client);
        assertThat(read).singleElement().satisfies(f -> {
            assertThat(f).isInstanceOf(io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame.class);
            assertThat(ByteBufUtil.getBytes(f.content())).isEqualTo(bytes);
        });
        read.forEach(WebSocketFrame::release);
        client.finishAndReleaseAll();
    }

    @Test
    void aPayloadItMayNotChangeGoesThroughNettysEncoderUnchanged() {
        EmbeddedChannel client = client();
        byte[] text = "{\"type\":\"x\"}".getBytes(StandardCharsets.US_ASCII);
        ByteBuf readOnly = Unpooled.wrappedBuffer(text).asReadOnly();
        ByteBuf twoParts = Unpooled.wrappedBuffer(Unpooled.wrappedBuffer(text, 0, 5), Unpooled.wrappedBuffer(text, 5, 7));
        client.writeOutbound(new TextWebSocketFrame(readOnly), new TextWebSocketFrame(twoParts),
                new PingWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {1, 2})));
        List<WebSocketFrame> read = asServerReadsIt(client);
        assertThat(read).hasSize(3);
        assertThat(ByteBufUtil.getBytes(read.get(0).content())).isEqualTo(text);
        assertThat(ByteBufUtil.getBytes(read.get(1).content())).isEqualTo(text);
        assertThat(read.get(2)).isInstanceOf(PingWebSocketFrame.class);
        assertThat(text).as("the caller's bytes were not masked").isEqualTo("{\"type\":\"x\"}".getBytes(StandardCharsets.US_ASCII));
        read.forEach(WebSocketFrame::release);
        client.finishAndReleaseAll();
    }

    @Test
    void theMaskCoversEveryBytePositionModuloFour() {
        ByteBuffer payload = ByteBuffer.allocate(21);
        ClientFrameEncoder.mask(payload, 0x01020304);
        for (int i = 0; i < 21; i++) {
            assertThat(payload.get(i)).as("byte %d", i).isEqualTo((byte) (i % 4 + 1));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 125, 126, 65_535, 65_536})
    void theHeadCarriesFinTextMaskBitLengthAndKey(int length) {
        ByteBuf head = Unpooled.buffer();
        ClientFrameEncoder.writeHead(head, length, 0x0A0B0C0D);
        assertThat(head.readableBytes()).isEqualTo(ClientFrameEncoder.headLength(length));
        assertThat(head.getByte(0)).isEqualTo((byte) 0x81);
        assertThat(head.getByte(1) & 0x80).isEqualTo(0x80);
        assertThat(head.getInt(head.writerIndex() - 4)).isEqualTo(0x0A0B0C0D);
    }
}
