package org.vancetope.worktarget.backend.daemon.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vancetope.worktarget.core.internal.LogLimiter;

/**
 * The guards of our HTTP/1.1 servers (serve's admin API, the MCP server's Streamable HTTP) against clients
 * that are slow, not allowed, or send too much: each a Netty handler placed after the {@code HttpServerCodec},
 * in the order {@link InOrder}, {@link RequestDeadline}, {@link HeadGate}, {@link BodyLimit}, so that requests
 * sent back to back (pipelined) are answered one after the other, a request is judged on its head before its
 * body is buffered, and a body is buffered only up to a limit. Every refusal answers with the
 * server's own response (its format, its message saying what to do) and closes the connection. Before all
 * of them, on the listening channel, {@link ConnectionCap} bounds how many connections a server holds at once.
 */
public final class HttpGuards {
    private static final Logger LOG = LoggerFactory.getLogger(HttpGuards.class);

    private HttpGuards() {
    }

    /**
     * Bounds the connections one server holds at once, so that a client that opens sockets and sends nothing
     * cannot use up the process's file descriptors, which the server's jobs, files and other ports need as
     * well (without it, a few thousand idle sockets make file tools, jobs and even the admin API fail with
     * "Too many open files" until the upgrade deadline closes them). It is the handler of the listening
     * channel ({@code ServerBootstrap.handler}), so it sees each accepted connection on the accepting thread,
     * before it is handed to an I/O thread: a connection over the cap is closed there and then, before
     * anything is read from it or a TLS handshake is made, so the sockets a burst of connections holds never
     * exceed the cap by more than the one being accepted; one WARN per 10 s says how many were refused.
     * Thread-safe.
     */
    @ChannelHandler.Sharable
    public static final class ConnectionCap extends ChannelInboundHandlerAdapter {
        /** The release of a connection's place among its address's untrusted connections, until it is trusted. */
        private static final AttributeKey<Runnable> UNTRUSTED = AttributeKey.valueOf("worktarget.connectionCap.untrusted");

        private final String server;
        private final int max;
        private final int maxUntrustedPerAddress;
        private final AtomicInteger open = new AtomicInteger();
        /** Each address's connections that are not trusted yet, oldest first. */
        private final Map<InetAddress, ArrayDeque<Channel>> untrusted = new HashMap<>();
        private final LogLimiter evictions = new LogLimiter(Duration.ofSeconds(10).toNanos(), System::nanoTime);
        private final LogLimiter refusals = new LogLimiter(Duration.ofSeconds(10).toNanos(), System::nanoTime);

        /**
         * A cap on connections, none on addresses.
         *
         * @param server what the log calls the server, e.g. "the WebSocket server" and the option that sets it
         * @param max the most connections at once, at least 1
         */
        public ConnectionCap(String server, int max) {
            this(server, max, 0);
        }

        /**
         * A cap on connections and on the connections of one address that are not trusted yet.
         *
         * @param server what the log calls the server, e.g. "the WebSocket server" and the option that sets it
         * @param max the most connections at once, at least 1
         * @param maxUntrustedPerAddress the most connections of one remote address that were not yet
         *                               {@link #trusted} (for a WebSocket server: not yet authenticated), so that
         *                               one host cannot take every place; one more closes the oldest of them,
         *                               so that sockets which send nothing cannot keep a client that
         *                               authenticates at once out; 0 for no such cap
         */
        public ConnectionCap(String server, int max, int maxUntrustedPerAddress) {
            if (max < 1) {
                throw new IllegalArgumentException("the connection cap must be at least 1, got " + max);
            }
            if (maxUntrustedPerAddress < 0) {
                throw new IllegalArgumentException("the cap per address must be 0 (no cap) or more, got "
                        + maxUntrustedPerAddress);
            }
            this.server = Objects.requireNonNull(server, "server");
            this.max = max;
            this.maxUntrustedPerAddress = maxUntrustedPerAddress;
        }

        /**
         * Marks a connection as trusted (its peer authenticated): it no longer counts against its address's
         * untrusted connections. Does nothing for a connection that is trusted already or not under a cap.
         *
         * @param channel the connection
         */
        public static void trusted(Channel channel) {
            Runnable release = channel.attr(UNTRUSTED).getAndSet(null);
            if (release != null) {
                release.run();
            }
        }

        /**
         * A default cap: {@code ceiling}, or a {@code share}-th of this process's limit of open files when that
         * is lower (read from {@code /proc/self/limits} where there is one), and at least 16.
         *
         * @param ceiling the cap where file descriptors are plentiful
         * @param share the part of the file-descriptor limit the server may take: 2 for a half
         * @return the cap
         */
        public static int defaultMax(int ceiling, int share) {
            long fds = FileLimits.maxOpenFiles();
            long cap = fds > 0 ? Math.min(ceiling, fds / share) : ceiling;
            return (int) Math.max(16, cap);
        }

        /**
         * How many connections are open now.
         *
         * @return the count
         */
        public int open() {
            return open.get();
        }

        /**
         * Puts {@link AcceptFailures} at the end of the listening channel's pipeline, behind the acceptor that
         * {@code ServerBootstrap} adds after this handler (by a task it queued before this event; a task queued
         * now runs after it).
         */
        @Override
        public void channelRegistered(ChannelHandlerContext ctx) throws Exception {
            ctx.channel().eventLoop().execute(() -> {
                if (ctx.pipeline().get(AcceptFailures.NAME) == null) {
                    ctx.pipeline().addLast(AcceptFailures.NAME, new AcceptFailures(server));
                }
            });
            super.channelRegistered(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof Channel child)) {
                ctx.fireChannelRead(msg);
                return;
            }
            if (open.incrementAndGet() > max) {
                open.decrementAndGet();
                refuse(child, max + " connections are open, the most it holds at once");
                return;
            }
            InetAddress address = child.remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
            boolean perAddress = maxUntrustedPerAddress > 0 && address != null;
            child.closeFuture().addListener(f -> open.decrementAndGet());
            Channel evicted = null;
            if (perAddress) {
                // trusted() takes the release off the channel atomically, so it runs once: on trust or on close
                child.attr(UNTRUSTED).set(() -> leaveUntrusted(address, child));
                child.closeFuture().addListener(f -> trusted(child));
                evicted = enterUntrusted(address, child);
            }
            ctx.fireChannelRead(child);
            if (evicted != null) {
                // the address holds as many unauthenticated connections as it may: the one that has waited
                // longest goes, not the new one. A client that authenticates at once (every real one) thus gets
                // in even when sockets that send nothing fill its address's places: on a loopback bind, or
                // behind a proxy, every client has the same address.
                long folded = evictions.tryLoud();
                if (folded >= 0) {
                    LOG.warn("Closed the oldest of the {} connections to {} from {} that have not authenticated yet, to let "
                            + "a new one in (the most one address may have){}", maxUntrustedPerAddress, server,
                            address.getHostAddress(), folded > 0 ? " (and " + folded + " more since the last report, at "
                            + "DEBUG)" : "");
                } else {
                    LOG.debug("Closed the oldest unauthenticated connection to {} from {}", server, address.getHostAddress());
                }
                evicted.close();
            }
        }

        /** Counts a connection among its address's untrusted ones; returns the oldest one to close, when over. */
        private synchronized Channel enterUntrusted(InetAddress address, Channel child) {
            ArrayDeque<Channel> waiting = untrusted.computeIfAbsent(address, a -> new ArrayDeque<>());
            Channel oldest = waiting.size() >= maxUntrustedPerAddress ? waiting.pollFirst() : null;
            waiting.addLast(child);
            return oldest;
        }

        private synchronized void leaveUntrusted(InetAddress address, Channel child) {
            ArrayDeque<Channel> waiting = untrusted.get(address);
            if (waiting != null) {
                waiting.remove(child);
                if (waiting.isEmpty()) {
                    untrusted.remove(address);
                }
            }
        }

        /**
         * How many connections of an address have not been trusted yet.
         *
         * @param address the remote address
         * @return the count
         */
        public synchronized int untrusted(InetAddress address) {
            ArrayDeque<Channel> waiting = untrusted.get(address);
            return waiting == null ? 0 : waiting.size();
        }

        private void refuse(Channel child, String why) {
            long folded = refusals.tryLoud();
            if (folded >= 0) {
                LOG.warn("Refused a connection to {} from {}: {}{}", server, child.remoteAddress(), why,
                        folded > 0 ? " (and " + folded + " more refused since the last report, at DEBUG)" : "");
            } else {
                LOG.debug("Refused a connection to {} from {}: {}", server, child.remoteAddress(), why);
            }
            child.unsafe().closeForcibly();     // not registered yet: closes the socket, here and now
        }
    }

    /**
     * The last handler of a listening channel: says in one WARN per 10 s, without a stack trace, why accepting
     * connections failed (Netty pauses accepting for a second and tries again), where Netty's own pipeline end
     * would log a WARN with the stack trace on every attempt. The usual cause is the process's limit of open
     * files, so the message names it.
     */
    static final class AcceptFailures extends ChannelInboundHandlerAdapter {
        static final String NAME = "accept-failures";
        private final String server;
        /** Read now: when accepting fails for want of file descriptors, there is none to read it with. */
        private final long fileLimit = FileLimits.maxOpenFiles();
        private final LogLimiter failures = new LogLimiter(Duration.ofSeconds(10).toNanos(), System::nanoTime);

        AcceptFailures(String server) {
            this.server = server;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            long folded = failures.tryLoud();
            String brief = PeerFailures.brief(cause);
            if (folded >= 0) {
                LOG.warn("Accepting a connection to {} failed: {}{}; accepting pauses for a second.{}", server, brief,
                        folded > 0 ? " (and " + folded + " more failures since the last report, at DEBUG)" : "",
                        brief.contains("Too many open files") ? " The process is at its limit of open files (ulimit -n"
                                + (fileLimit > 0 ? ": " + fileLimit : "") + "): raise it, or lower the connection cap."
                                : "");
            } else {
                LOG.debug("Accepting a connection to {} failed: {}", server, brief);
            }
        }
    }

    /** A refusal as it is sent: with its {@code Content-Length} and {@code Connection: close}. */
    static FullHttpResponse closing(FullHttpResponse response) {
        HttpUtil.setContentLength(response, response.content().readableBytes());
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return response;
    }

    /** Writes a refusal and closes the connection once it is written. */
    static void refuseAndClose(ChannelHandlerContext ctx, FullHttpResponse response) {
        ctx.writeAndFlush(closing(response)).addListener(ChannelFutureListener.CLOSE);
    }

    /** Follows the answers written on one connection, to tell when one has been written whole. */
    private static final class Answers {
        private boolean answering;      // an answer's head is written, its end is not
        private boolean keepAlive = true;

        /**
         * Whether this message, about to be written, ends an answer (read before the write, which may release
         * it). A 100 Continue is no answer.
         */
        boolean ends(Object msg) {
            if (msg instanceof HttpResponse r && r.status().code() >= 200) {
                answering = true;
                keepAlive = HttpUtil.isKeepAlive(r);
            }
            if (answering && msg instanceof LastHttpContent) {
                answering = false;
                return true;
            }
            return false;
        }

        /** Whether the last answer keeps the connection open. */
        boolean keepAlive() {
            return keepAlive;
        }
    }

    /**
     * Passes on one request at a time: a request that arrives before the previous one's answer has been written
     * whole (a client that pipelines) is held, with everything after it, and reading from the connection
     * pauses, until that answer is written; then it is passed on. The answers of a connection thus go out whole
     * and in the order of their requests, as HTTP/1.1 requires, even when requests are answered on other
     * threads (the MCP server runs each call on its own) or an answer is a stream (server-sent events); and a
     * client cannot make the server buffer more than what it had read when it paused.
     */
    public static final class InOrder extends ChannelDuplexHandler {
        private final ArrayDeque<Object> held = new ArrayDeque<>();
        private final Answers answers = new Answers();
        private int unanswered;         // requests passed on whose answer is not written whole

        /** A handler for one connection. */
        public InOrder() {
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!held.isEmpty() || (msg instanceof HttpRequest && unanswered > 0)) {
                held.add(msg);
                ctx.channel().config().setAutoRead(false);
                return;
            }
            if (msg instanceof HttpRequest) {
                unanswered++;
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            boolean answered = answers.ends(msg);
            ctx.write(msg, promise);
            if (answered) {
                unanswered = Math.max(0, unanswered - 1);
                if (unanswered == 0 && !held.isEmpty()) {
                    // not from inside the write: the next request may be answered at once, by another write
                    ctx.executor().execute(() -> passOn(ctx));
                }
            }
        }

        /** Passes on the held messages up to the next request that must wait; reads on once none is held. */
        private void passOn(ChannelHandlerContext ctx) {
            while (!held.isEmpty()) {
                if (!ctx.channel().isActive()) {
                    drop();
                    return;
                }
                if (held.peek() instanceof HttpRequest && unanswered > 0) {
                    return;
                }
                Object next = held.poll();
                if (next instanceof HttpRequest) {
                    unanswered++;
                }
                ctx.fireChannelRead(next);
            }
            ctx.fireChannelReadComplete();
            ctx.channel().config().setAutoRead(true);
        }

        private void drop() {
            Object m;
            while ((m = held.poll()) != null) {
                ReferenceCountUtil.release(m);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            drop();
            ctx.fireChannelInactive();
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            drop();
        }
    }

    /**
     * The request deadline: armed from the accept, and again when an answer has been written whole and no
     * other complete request waits; disarmed while a whole request is being answered (a call then takes the
     * time it needs, and a streamed answer, such as server-sent events, stays open as long as it lasts). When
     * it expires, the connection gets the server's timeout response and closes.
     */
    public static final class RequestDeadline extends ChannelDuplexHandler {
        private final long timeoutNanos;
        private final Supplier<FullHttpResponse> expiredResponse;
        private ScheduledFuture<?> timer;
        private final Answers answers = new Answers();
        private int waiting;    // complete requests not answered whole yet
        private boolean expired;

        /**
         * A deadline.
         *
         * @param timeout how long a whole request may take to arrive
         * @param expiredResponse the answer when it did not (it should say the limit and what to do)
         */
        public RequestDeadline(Duration timeout, Supplier<FullHttpResponse> expiredResponse) {
            this.timeoutNanos = timeout.toNanos();
            this.expiredResponse = Objects.requireNonNull(expiredResponse, "expiredResponse");
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            arm(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (expired) {
                ReferenceCountUtil.release(msg);
                return;
            }
            if (msg instanceof LastHttpContent) {
                waiting++;
                disarm();
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            boolean answered = answers.ends(msg);
            ctx.write(msg, promise);
            if (answered && !expired) {
                waiting = Math.max(0, waiting - 1);
                if (!answers.keepAlive()) {
                    disarm();
                } else if (waiting == 0) {
                    arm(ctx);
                }
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            disarm();
            ctx.fireChannelInactive();
        }

        private void arm(ChannelHandlerContext ctx) {
            disarm();
            timer = ctx.executor().schedule(() -> expired(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
        }

        private void disarm() {
            if (timer != null) {
                timer.cancel(false);
                timer = null;
            }
        }

        private void expired(ChannelHandlerContext ctx) {
            timer = null;
            if (!ctx.channel().isActive()) {
                return;
            }
            expired = true;
            refuseAndClose(ctx, expiredResponse.get());
        }
    }

    /**
     * Judges each request on its head, before its body is read on: a refused request gets the server's
     * response, the rest of it is dropped unread, and the connection closes. A head the decoder could not read
     * is refused as malformed.
     */
    public abstract static class HeadGate extends ChannelInboundHandlerAdapter {
        private boolean discarding;

        /** For subclasses. */
        protected HeadGate() {
        }

        /**
         * The answer to a head that is not valid HTTP/1.1.
         *
         * @param why what the decoder found
         * @return the response (a 400)
         */
        protected abstract FullHttpResponse malformed(String why);

        /**
         * Whether to refuse a request, judged on its head.
         *
         * @param ctx the connection
         * @param head the request's head
         * @return the response that refuses it, or null to let it through
         */
        protected abstract FullHttpResponse refuse(ChannelHandlerContext ctx, HttpRequest head);

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest head) {
                discarding = false;
                if (!ctx.channel().isActive()) {
                    // the rest of a request cut short by the peer's close (the decoder's last word): nobody to answer
                    discarding = true;
                    ReferenceCountUtil.release(msg);
                    return;
                }
                FullHttpResponse refusal = head.decoderResult().isFailure()
                        ? malformed(PeerFailures.brief(head.decoderResult().cause())) : refuse(ctx, head);
                if (refusal != null) {
                    discarding = true;
                    ReferenceCountUtil.release(msg);
                    refuseAndClose(ctx, refusal);
                    return;
                }
            } else if (discarding) {
                ReferenceCountUtil.release(msg);
                return;
            }
            ctx.fireChannelRead(msg);
        }
    }

    /**
     * Joins a request's head and body into one {@code FullHttpRequest}, up to a limit: a body over it gets the
     * server's 413 and the connection closes, before the body is sent when the client announced its length
     * with {@code Expect: 100-continue}, else as soon as its length is known to be over (the rest is not read).
     */
    public static final class BodyLimit extends HttpObjectAggregator {
        private final Supplier<FullHttpResponse> tooLarge;

        /**
         * A limit.
         *
         * @param maxBytes the largest body joined
         * @param tooLarge the 413 response for a larger one (it should name the limit and what to do instead)
         */
        public BodyLimit(int maxBytes, Supplier<FullHttpResponse> tooLarge) {
            super(maxBytes);
            this.tooLarge = Objects.requireNonNull(tooLarge, "tooLarge");
        }

        @Override
        protected Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
            Object r = super.newContinueResponse(start, maxContentLength, pipeline);
            if (r instanceof FullHttpResponse f && f.status().equals(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE)) {
                f.release();
                return closing(tooLarge.get());
            }
            return r;
        }

        @Override
        protected boolean closeAfterContinueResponse(Object msg) {
            return ignoreContentAfterContinueResponse(msg);     // a refusal (4xx) instead of 100 Continue
        }

        @Override
        protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
            if (oversized instanceof HttpRequest) {
                refuseAndClose(ctx, tooLarge.get());
            } else {
                ctx.close();
            }
        }
    }
}
