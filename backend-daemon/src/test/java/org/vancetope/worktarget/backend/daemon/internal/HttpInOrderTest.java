package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link HttpGuards.InOrder}: requests a client sends back to back reach the server one at a time, each once
 * the previous one's answer (a whole response, or a stream that ended) has been written, so that answers go
 * out whole and in order; reading pauses while a request is held, and what is held is released when the
 * connection closes.
 */
class HttpInOrderTest {
    /** The requests that reached the server, whole; the test answers them. */
    private final List<FullHttpRequest> reached = new ArrayList<>();
    private final EmbeddedChannel channel = new EmbeddedChannel(new HttpServerCodec(), new HttpGuards.InOrder(),
            new HttpGuards.BodyLimit(1 << 20, () -> new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE)),
            new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    reached.add((FullHttpRequest) msg);
                }
            });

    @AfterEach
    void release() {
        reached.forEach(FullHttpRequest::release);
        channel.finishAndReleaseAll();
    }

    private static String post(String path, String body) {
        return "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    private void receive(String bytes) {
        channel.writeInbound(Unpooled.copiedBuffer(bytes, StandardCharsets.UTF_8));
        channel.runPendingTasks();
    }

    private void answer(String text) {
        DefaultFullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
        HttpUtil.setContentLength(r, r.content().readableBytes());
        channel.writeAndFlush(r);
        channel.runPendingTasks();
    }

    /** Everything the server wrote so far, as text. */
    private String written() {
        StringBuilder all = new StringBuilder();
        ByteBuf b;
        while ((b = channel.readOutbound()) != null) {
            all.append(b.toString(StandardCharsets.UTF_8));
            b.release();
        }
        return all.toString();
    }

    private List<String> reachedPaths() {
        return reached.stream().map(FullHttpRequest::uri).toList();
    }

    @Test
    void aSecondRequestSentBeforeTheFirstIsAnsweredWaitsForTheAnswer() {
        receive(post("/one", "{}") + post("/two", "{\"a\":1}"));

        assertThat(reachedPaths()).containsExactly("/one");
        assertThat(channel.config().isAutoRead()).as("reading pauses while a request is held").isFalse();

        answer("first");

        assertThat(reachedPaths()).containsExactly("/one", "/two");
        assertThat(reached.get(1).content().toString(StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
        assertThat(channel.config().isAutoRead()).as("reading resumes once nothing is held").isTrue();
    }

    @Test
    void answersGoOutInTheOrderOfTheirRequests() {
        receive(post("/one", "{}") + post("/two", "{}") + post("/three", "{}"));
        answer("first");
        answer("second");
        answer("third");

        String out = written();

        assertThat(out.indexOf("first")).isLessThan(out.indexOf("second"));
        assertThat(out.indexOf("second")).isLessThan(out.indexOf("third"));
        assertThat(reachedPaths()).containsExactly("/one", "/two", "/three");
    }

    @Test
    void aStreamedAnswerHoldsTheNextRequestUntilItsEnd() {
        receive(post("/stream", "{}") + post("/after", "{}"));
        DefaultHttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream");
        HttpUtil.setTransferEncodingChunked(head, true);
        channel.writeAndFlush(head);
        channel.writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer("data: 1\n\n", StandardCharsets.UTF_8)));
        channel.runPendingTasks();

        assertThat(reachedPaths()).containsExactly("/stream");

        channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
        channel.runPendingTasks();

        assertThat(reachedPaths()).containsExactly("/stream", "/after");
    }

    @Test
    void aRequestAfterTheAnswerPassesAtOnce() {
        receive(post("/one", "{}"));
        answer("first");

        receive(post("/two", "{}"));

        assertThat(reachedPaths()).containsExactly("/one", "/two");
        assertThat(channel.config().isAutoRead()).isTrue();
    }

    @Test
    void aContinueResponseIsNotTheAnswer() {
        receive("POST /big HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n");
        assertThat(written()).startsWith("HTTP/1.1 100");

        receive("{}" + post("/next", "{}"));

        assertThat(reachedPaths()).containsExactly("/big");
        answer("first");
        assertThat(reachedPaths()).containsExactly("/big", "/next");
    }

    @Test
    void heldRequestsAreReleasedWhenTheConnectionCloses() {
        receive(post("/one", "{}") + post("/two", "{}") + post("/three", "{}"));

        channel.close();
        channel.runPendingTasks();

        assertThat(reachedPaths()).containsExactly("/one");
        assertThat(channel.finishAndReleaseAll()).as("nothing left unreleased in the channel").isFalse();
    }
}
