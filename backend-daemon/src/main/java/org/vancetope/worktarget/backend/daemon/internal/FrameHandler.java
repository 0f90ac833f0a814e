package org.vancetope.worktarget.backend.daemon.internal;

import org.vancetope.worktarget.core.transfer.TransferCapability;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.backend.daemon.FrameExtension;
import org.vancetope.worktarget.spi.ErrorCode;

/**
 * The inbound frame pipeline both ends of a connection share, last in the Netty pipeline: every read
 * counts as traffic; a text frame is checked to be UTF-8 (else the connection closes with 1007),
 * decoded once, and handed to {@link #onMessage}; a frame that cannot be decoded, a binary frame and
 * a frame an extension refuses are answered with {@code error bad_frame}, counted against the
 * protocol-error budget when the side has one (its exhaustion closes with 1008); frames of other
 * types go to the {@link FrameExtension}; reader-idle intervals send a ping until too many passed in
 * silence; writability changes reach the connection's {@link NettyFrameChannel}.
 *
 * <p>The handshake and what each side does with its own frames stay in the side: the server's
 * {@link ServerConnectionHandler} and the client's connection in {@link ClientSession}.
 */
public abstract class FrameHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(FrameHandler.class);

    private final ProtocolErrorBudget budget;
    private final int silentIntervalsBeforeClose;
    private int silent;

    /**
     * A pipeline.
     *
     * @param budget the protocol errors a peer may make before the connection closes; null for no limit
     * @param silentIntervalsBeforeClose reader-idle intervals without traffic that end the connection
     */
    protected FrameHandler(ProtocolErrorBudget budget, int silentIntervalsBeforeClose) {
        this.budget = budget;
        this.silentIntervalsBeforeClose = silentIntervalsBeforeClose;
    }

    /**
     * A frame of the base protocol, or a frame of another type (a {@link Message.Other}), arrived.
     *
     * @param ctx the context
     * @param message the decoded frame
     */
    protected abstract void onMessage(ChannelHandlerContext ctx, Message message);

    /**
     * Closes the connection with a close frame.
     *
     * @param ctx the context
     * @param code the close code
     * @param reason the reason
     */
    protected abstract void close(ChannelHandlerContext ctx, int code, String reason);

    /**
     * The connection's frame channel, once it is open.
     *
     * @return the channel, or null before
     */
    protected abstract NettyFrameChannel frames();

    /**
     * Whether frames are read now; false while closing. Default: true.
     *
     * @return true to handle frames
     */
    protected boolean reading() {
        return true;
    }

    /**
     * Whether silent intervals count now (not before the handshake). Default: true.
     *
     * @return true to count them
     */
    protected boolean watchingSilence() {
        return true;
    }

    /**
     * Called with the intervals passed in silence: 0 on every read, and on each silent interval.
     *
     * @param intervals the count
     */
    protected void silentIntervals(int intervals) {
    }

    /**
     * Too many intervals passed in silence: end the connection.
     *
     * @param ctx the context
     * @param intervals the count
     */
    protected abstract void silenceLimitReached(ChannelHandlerContext ctx, int intervals);

    /**
     * What a binary frame is answered with (they are not negotiated).
     *
     * @return the {@code bad_frame} message
     */
    protected abstract String binaryFrameRefusal();

    /**
     * A close frame arrived (when the protocol handler passes them on). Default: ignored.
     *
     * @param ctx the context
     * @param close the frame; released by the caller
     */
    protected void onCloseFrame(ChannelHandlerContext ctx, CloseWebSocketFrame close) {
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        silent = 0;
        silentIntervals(0);
        if (!(msg instanceof WebSocketFrame frame)) {
            LOG.debug("Ignoring {} on {}", msg.getClass().getSimpleName(), ctx.channel());
            ReferenceCountUtil.release(msg);
            return;
        }
        try {
            if (!reading()) {
                return;
            }
            if (frame instanceof TextWebSocketFrame text) {
                onText(ctx, text);
            } else if (frame instanceof CloseWebSocketFrame close) {
                onCloseFrame(ctx, close);
            } else if (frame instanceof BinaryWebSocketFrame binary) {
                onBinary(ctx, binary);
            }
            // pong (and ping, answered by the protocol handler) only count as traffic
        } finally {
            frame.release();
        }
    }

    /**
     * The frame extension of this side, which binary frames go to.
     *
     * @return the extension, or null for none
     */
    protected abstract FrameExtension extension();

    /**
     * A binary frame goes to the extension when the connection negotiated binary frames
     * ({@code transfer.binary}); otherwise, or when the extension refuses it, it is a bad frame.
     */
    private void onBinary(ChannelHandlerContext ctx, BinaryWebSocketFrame binary) {
        NettyFrameChannel frames = frames();
        FrameExtension extension = extension();
        if (frames == null || extension == null
                || !frames.capabilities().contains(TransferCapability.BINARY.wire())) {
            badFrame(ctx, binaryFrameRefusal());
            return;
        }
        try {
            extension.onBinaryFrame(frames, binary.content().nioBuffer().asReadOnlyBuffer());
        } catch (IllegalArgumentException e) {
            LOG.debug("The frame extension refused a binary frame of connection {}: {}", frames.id(), e.getMessage());
            badFrame(ctx, "The binary frame could not be handled: " + e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("The frame extension failed on a binary frame of connection {}", frames.id(), e);
            badFrame(ctx, "The binary frame could not be handled.");
        }
    }

    private void onText(ChannelHandlerContext ctx, TextWebSocketFrame text) {
        if (!admitText(ctx, text.content().readableBytes())) {
            return;
        }
        if (!Utf8.isValid(text.content())) {
            LOG.info("Closing {}: a text frame is not valid UTF-8", ctx.channel());
            close(ctx, Utf8.CLOSE_INVALID_PAYLOAD, "invalid UTF-8");
            return;
        }
        Message m;
        try {
            m = Wire.decode(text.content());
        } catch (BadFrameException e) {
            undecodable(ctx, e.getMessage());
            return;
        }
        onMessage(ctx, m);
    }

    /**
     * Sees the size of every text frame before it is checked and decoded. Default: every frame is admitted.
     *
     * @param ctx the context
     * @param bytes the frame's payload size
     * @return false when the side refused the frame (it answered or closed); it is then not decoded
     */
    protected boolean admitText(ChannelHandlerContext ctx, int bytes) {
        return true;
    }

    /**
     * A text frame could not be decoded. Default: answered as a {@link #badFrame bad frame}.
     *
     * @param ctx the context
     * @param problem what is wrong with it
     */
    protected void undecodable(ChannelHandlerContext ctx, String problem) {
        badFrame(ctx, problem);
    }

    /**
     * Answers a frame with {@code error bad_frame} and counts it against the budget; the last error the
     * budget allows closes the connection with 1008.
     *
     * @param ctx the context
     * @param message what was wrong, for the peer
     */
    protected final void badFrame(ChannelHandlerContext ctx, String message) {
        LOG.debug("Protocol error on {}: {}", ctx.channel(), message);
        ctx.write(new TextWebSocketFrame(Wire.encode(new Message.ErrorFrame(ErrorCode.BAD_FRAME.wire(), message),
                ctx.alloc())));
        if (budget != null && budget.record()) {
            LOG.info("Closing {}: {}", ctx.channel(), budget);
            close(ctx, Wire.CLOSE_POLICY, "too many protocol errors");
        } else {
            ctx.flush();
        }
    }

    /**
     * Hands a frame of another type to the extension that handles it; a failure of the extension is
     * answered as a bad frame (with its message when it refused the frame).
     *
     * @param ctx the context
     * @param extension the extension, may be null
     * @param frame the frame
     * @return false when no extension handles the type (the side answers it)
     */
    protected final boolean handOff(ChannelHandlerContext ctx, FrameExtension extension, Message.Other frame) {
        NettyFrameChannel frames = frames();
        if (extension == null || frames == null || !extension.handles(frame.type())) {
            return false;
        }
        try {
            frame.handTo(extension, frames);
        } catch (IllegalArgumentException e) {
            // the extension refused the frame: the peer's doing, answered below, not a failure of this side
            LOG.debug("The frame extension refused a '{}' frame of connection {}: {}", frame.type(), frames.id(),
                    e.getMessage());
            badFrame(ctx, "The '" + frame.type() + "' frame could not be handled: " + e.getMessage());
        } catch (RuntimeException e) {
            LOG.warn("The frame extension failed on a '{}' frame of connection {}", frame.type(), frames.id(), e);
            badFrame(ctx, "The '" + frame.type() + "' frame could not be handled.");
        }
        return true;
    }

    /**
     * Announces the open connection to the extension ({@link FrameExtension#onOpen}); a failure of the
     * extension is logged and the connection stays open.
     *
     * @param extension the extension, may be null
     */
    protected final void opened(FrameExtension extension) {
        NettyFrameChannel frames = frames();
        if (extension == null || frames == null) {
            return;
        }
        try {
            extension.onOpen(frames);
        } catch (RuntimeException e) {
            LOG.warn("The frame extension failed on the opening of connection {}", frames.id(), e);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent e && e.state() == IdleState.READER_IDLE) {
            if (watchingSilence()) {
                silent++;
                silentIntervals(silent);
                if (silent >= silentIntervalsBeforeClose) {
                    silenceLimitReached(ctx, silent);
                } else {
                    ctx.writeAndFlush(new PingWebSocketFrame());
                }
            }
        } else {
            super.userEventTriggered(ctx, evt);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        NettyFrameChannel frames = frames();
        if (frames != null) {
            frames.writabilityChanged();
        }
        super.channelWritabilityChanged(ctx);
    }

    /**
     * Writes a close frame and closes the channel once it is written.
     *
     * @param ctx the context
     * @param code the close code
     * @param reason the reason
     */
    protected static void writeClose(ChannelHandlerContext ctx, int code, String reason) {
        ctx.writeAndFlush(new CloseWebSocketFrame(code, reason)).addListener(ChannelFutureListener.CLOSE);
    }
}
