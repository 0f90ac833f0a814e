package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.backend.daemon.WireChannel;
import org.vancetope.worktarget.backend.daemon.FrameExtension;

class FrameHandlerTest {
    private final AtomicLong now = new AtomicLong();
    private final List<String> messages = new ArrayList<>();
    private final List<String> extensionFrames = new ArrayList<>();
    private final List<EmbeddedChannel> channels = new ArrayList<>();

    /** A side that records what the pipeline hands it. */
    private final class Side extends FrameHandler {
        NettyFrameChannel frames;
        final List<String> lost = new ArrayList<>();
        final FrameExtension extension = new FrameExtension() {
            @Override
            public boolean handles(String type) {
                return type.startsWith("transfer_");
            }

            @Override
            public void onFrame(WireChannel channel, String type, String frame) {
                if (frame.contains("refuse")) {
                    throw new IllegalArgumentException("refused for a reason");
                }
                extensionFrames.add(type);
            }

            @Override
            public void onBinaryFrame(WireChannel channel, java.nio.ByteBuffer frame) {
                if (frame.remaining() == 0) {
                    throw new IllegalArgumentException("an empty binary frame");
                }
                extensionFrames.add("binary of " + frame.remaining() + " bytes");
            }
        };

        Side(ProtocolErrorBudget budget) {
            super(budget, 2);
        }

        @Override
        protected void onMessage(ChannelHandlerContext ctx, Message message) {
            if (message instanceof Message.Other o && handOff(ctx, extension, o)) {
                return;
            }
            messages.add(message.type());
        }

        @Override
        protected void close(ChannelHandlerContext ctx, int code, String reason) {
            writeClose(ctx, code, reason);
        }

        @Override
        protected NettyFrameChannel frames() {
            return frames;
        }

        @Override
        protected FrameExtension extension() {
            return extension;
        }

        @Override
        protected void silenceLimitReached(ChannelHandlerContext ctx, int intervals) {
            lost.add("after " + intervals);
        }

        @Override
        protected String binaryFrameRefusal() {
            return "no binary frames";
        }
    }

    private EmbeddedChannel channel(Side side) {
        return channel(side, java.util.Set.of());
    }

    private EmbeddedChannel channel(Side side, java.util.Set<String> capabilities) {
        EmbeddedChannel ch = new EmbeddedChannel(side);
        side.frames = new NettyFrameChannel(ch, "c-1", capabilities);
        channels.add(ch);
        return ch;
    }

    private static String nextText(EmbeddedChannel ch) {
        Object o = ch.readOutbound();
        assertThat(o).isInstanceOf(TextWebSocketFrame.class);
        TextWebSocketFrame f = (TextWebSocketFrame) o;
        try {
            return f.text();
        } finally {
            f.release();
        }
    }

    @AfterEach
    void closeChannels() {
        channels.forEach(EmbeddedChannel::finishAndReleaseAll);
    }

    @Test
    void aFrameOfTheBaseProtocolIsDecodedOnceAndHandedToTheSide() {
        EmbeddedChannel ch = channel(new Side(null));
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"client_tool_cancel\",\"correlationId\":\"dt-1\"}"));
        assertThat(messages).containsExactly(Wire.CANCEL);
        Object out = ch.readOutbound();
        assertThat(out).isNull();
    }

    @Test
    void anUndecodableFrameIsAnsweredWithBadFrame() {
        EmbeddedChannel ch = channel(new Side(null));
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"client_tool_cancel\"}"));
        assertThat(nextText(ch)).isEqualTo("{\"type\":\"error\",\"code\":\"bad_frame\",\"message\":\"The frame "
                + "'client_tool_cancel' needs a non-empty string field 'correlationId'.\"}");
        assertThat(messages).isEmpty();
    }

    @Test
    void theLastBadFrameTheBudgetAllowsClosesWith1008() {
        EmbeddedChannel ch = channel(new Side(new ProtocolErrorBudget(2, 10_000_000_000L, now::get)));
        ch.writeInbound(new TextWebSocketFrame("not json"));
        nextText(ch);
        ch.writeInbound(new TextWebSocketFrame("not json"));
        nextText(ch);
        Object close = ch.readOutbound();
        assertThat(close).isInstanceOfSatisfying(CloseWebSocketFrame.class, c -> {
            assertThat(c.statusCode()).isEqualTo(Wire.CLOSE_POLICY);
            c.release();
        });
    }

    @Test
    void withoutABudgetBadFramesNeverClose() {
        EmbeddedChannel ch = channel(new Side(null));
        for (int i = 0; i < 5; i++) {
            ch.writeInbound(new TextWebSocketFrame("not json"));
            assertThat(nextText(ch)).contains("bad_frame");
        }
        Object out = ch.readOutbound();
        assertThat(out).isNull();
        assertThat(ch.isActive()).isTrue();
    }

    @Test
    void aTextFrameThatIsNotUtf8ClosesWith1007() {
        EmbeddedChannel ch = channel(new Side(null));
        ch.writeInbound(new TextWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {'{', (byte) 0xc3, (byte) 0x28, '}'})));
        Object close = ch.readOutbound();
        assertThat(close).isInstanceOfSatisfying(CloseWebSocketFrame.class, c -> {
            assertThat(c.statusCode()).isEqualTo(Utf8.CLOSE_INVALID_PAYLOAD);
            c.release();
        });
        assertThat(messages).isEmpty();
    }

    @Test
    void aBinaryFrameIsAnsweredWithTheSidesRefusal() {
        EmbeddedChannel ch = channel(new Side(null));
        ch.writeInbound(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {1})));
        assertThat(nextText(ch)).contains("\"bad_frame\"", "no binary frames");
    }

    @Test
    void withTransferBinaryNegotiatedABinaryFrameGoesToTheExtension() {
        EmbeddedChannel ch = channel(new Side(null), java.util.Set.of("transfer.binary"));
        ch.writeInbound(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {1, 2, 3})));
        assertThat(extensionFrames).containsExactly("binary of 3 bytes");
        Object answer = ch.readOutbound();
        assertThat(answer).as("nothing is answered").isNull();
    }

    @Test
    void aBinaryFrameTheExtensionRefusesIsAnsweredWithItsReason() {
        EmbeddedChannel ch = channel(new Side(null), java.util.Set.of("transfer.binary"));
        ch.writeInbound(new BinaryWebSocketFrame(Unpooled.EMPTY_BUFFER));
        assertThat(nextText(ch)).contains("\"bad_frame\"", "an empty binary frame");
        assertThat(extensionFrames).isEmpty();
    }

    @Test
    void aFrameOfAnExtensionsTypeGoesToTheExtension() {
        EmbeddedChannel ch = channel(new Side(null));
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"transfer_finish\",\"transferId\":\"t\",\"ok\":true}"));
        assertThat(extensionFrames).containsExactly("transfer_finish");
        assertThat(messages).isEmpty();
    }

    @Test
    void aFrameTheExtensionRefusesIsAnsweredWithItsReason() {
        EmbeddedChannel ch = channel(new Side(null));
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"transfer_finish\",\"transferId\":\"refuse\"}"));
        assertThat(nextText(ch)).contains("\"bad_frame\"",
                "The 'transfer_finish' frame could not be handled: refused for a reason");
    }

    @Test
    void aFrameNoExtensionHandlesIsLeftToTheSide() {
        EmbeddedChannel ch = channel(new Side(null));
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"x_unknown\"}"));
        assertThat(messages).containsExactly("x_unknown");
    }

    @Test
    void silentIntervalsSendPingsUntilTheLimitIsReached() {
        Side side = new Side(null);
        EmbeddedChannel ch = channel(side);
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_READER_IDLE_STATE_EVENT);
        Object ping = ch.readOutbound();
        assertThat(ping).isInstanceOf(PingWebSocketFrame.class);
        ((PingWebSocketFrame) ping).release();
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
        assertThat(side.lost).containsExactly("after 2");
    }

    @Test
    void anyReadStartsTheSilenceOver() {
        Side side = new Side(null);
        EmbeddedChannel ch = channel(side);
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.FIRST_READER_IDLE_STATE_EVENT);
        ((PingWebSocketFrame) ch.readOutbound()).release();
        ch.writeInbound(new TextWebSocketFrame("{\"type\":\"client_tool_cancel\",\"correlationId\":\"dt-1\"}"));
        ch.pipeline().fireUserEventTriggered(IdleStateEvent.READER_IDLE_STATE_EVENT);
        ((PingWebSocketFrame) ch.readOutbound()).release();
        assertThat(side.lost).isEmpty();
    }
}
