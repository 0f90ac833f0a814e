package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.vancetope.worktarget.backend.daemon.CancelledCall;
import org.vancetope.worktarget.core.ToolCatalog;
import org.vancetope.worktarget.spi.BackendTool;
import org.vancetope.worktarget.spi.ToolContext;

/** The answering half of a connection's calls: each inbound call is answered once, a cancelled running one not at all. */
class PeerConnectionTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final ExecutorService workers = Executors.newSingleThreadExecutor();
    private final List<CancelledCall> hooked = new ArrayList<>();
    private final PeerConnection calls = new PeerConnection(new NettyFrameChannel(channel, "c-1"),
            new PeerConnection.Names("the server", "daemon", "st-"), new Ids(), true, 1 << 20, hooked::add);
    private static final ToolContext CONTEXT = new ToolContext("p-1", "s-1", "acme", "proj", null);

    @AfterEach
    void close() {
        workers.shutdownNow();
        channel.finishAndReleaseAll();
    }

    private static Message.Invoke invoke(String id) {
        return new Message.Invoke(id, "client_file_read", Map.of("path", "a"), 1000, CONTEXT);
    }

    private static BackendTool blockingUntilInterrupted(CountDownLatch started) {
        return BackendTool.of(ToolCatalog.backend("client_file_read").orElseThrow(), (p, c) -> {
            started.countDown();
            try {
                Thread.sleep(60_000);
                return Map.of("slept", true);
            } catch (InterruptedException e) {
                return Map.of("interrupted", true);     // a tool that returns normally after the interrupt
            }
        });
    }

    private List<String> sent() {
        List<String> frames = new ArrayList<>();
        for (Object o; (o = channel.readOutbound()) != null; ) {
            TextWebSocketFrame f = (TextWebSocketFrame) o;
            frames.add(f.text());
            f.release();
        }
        return frames;
    }

    private void awaitWorkers() throws InterruptedException {
        workers.shutdown();
        assertThat(workers.awaitTermination(30, TimeUnit.SECONDS)).as("the worker finished").isTrue();
    }

    @Test
    void aCallThatRunsToItsEndIsAnsweredWithItsResult() throws Exception {
        calls.answer(invoke("dt-1"), BackendTool.of(ToolCatalog.backend("client_file_read").orElseThrow(),
                (p, c) -> Map.of("content", "x")), CONTEXT, workers);
        awaitWorkers();
        assertThat(sent()).singleElement().asString().contains("\"client_tool_result\"", "\"dt-1\"", "\"ok\":true");
        assertThat(calls.runningCalls()).isZero();
    }

    @Test
    void aCallCancelledWhileItRunsIsInterruptedToldToTheHookAndNotAnswered() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        calls.answer(invoke("dt-2"), blockingUntilInterrupted(started), CONTEXT, workers);
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        calls.cancelled("dt-2");
        awaitWorkers();
        assertThat(sent()).as("no answer to a call the server forgot").isEmpty();
        assertThat(hooked).singleElement().satisfies(c -> assertThat(c.correlationId()).isEqualTo("dt-2"));
        assertThat(calls.runningCalls()).isZero();
    }

    @Test
    void aCallCancelledBeforeItStartedIsAnsweredCancelled() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        workers.execute(() -> {
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        calls.answer(invoke("dt-3"), blockingUntilInterrupted(new CountDownLatch(1)), CONTEXT, workers);
        calls.cancelled("dt-3");
        gate.countDown();
        awaitWorkers();
        assertThat(sent()).singleElement().asString().contains("\"dt-3\"", "\"cancelled\"", "before it started");
    }

    @Test
    void closingTheConnectionCancelsRunningCallsWithoutAnswers() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        calls.answer(invoke("dt-4"), blockingUntilInterrupted(started), CONTEXT, workers);
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        calls.close(org.vancetope.worktarget.spi.ErrorCode.OFFLINE, "closed");
        awaitWorkers();
        assertThat(sent()).isEmpty();
        assertThat(hooked).hasSize(1);
        assertThat(calls.isClosed()).isTrue();
        assertThat(calls.runningCalls()).isZero();
        assertThat(calls.pendingCalls()).isZero();
    }

    @Test
    void aSecondCallWithTheIdOfARunningOneIsRefusedAndTheFirstStillEndsWithItsCancel() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        calls.answer(invoke("dt-5"), blockingUntilInterrupted(started), CONTEXT, workers);
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();

        calls.answer(invoke("dt-5"), blockingUntilInterrupted(new CountDownLatch(1)), CONTEXT, workers);

        assertThat(sent()).singleElement().asString().contains("\"dt-5\"", "\"invalid_params\"",
                "is still running on this connection");
        assertThat(calls.runningCalls()).isEqualTo(1);
        calls.cancelled("dt-5");
        awaitWorkers();
        assertThat(hooked).singleElement().satisfies(c -> assertThat(c.correlationId()).isEqualTo("dt-5"));
        assertThat(calls.runningCalls()).isZero();
    }

    @Test
    void aCallBeyondTheQueueOfTheWorkersIsAnsweredSizeLimitWithoutRunning() throws Exception {
        java.util.concurrent.ThreadPoolExecutor one = new java.util.concurrent.ThreadPoolExecutor(1, 1, 30,
                TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>(1));
        try {
            CountDownLatch started = new CountDownLatch(1);
            calls.answer(invoke("dt-6"), blockingUntilInterrupted(started), CONTEXT, one);
            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            calls.answer(invoke("dt-7"), blockingUntilInterrupted(new CountDownLatch(1)), CONTEXT, one);

            calls.answer(invoke("dt-8"), blockingUntilInterrupted(new CountDownLatch(1)), CONTEXT, one);

            assertThat(sent()).singleElement().asString().contains("\"dt-8\"", "\"size_limit\"", "runs 1 calls",
                    "1 more waiting for a worker", "Retry when calls have ended");
            assertThat(calls.runningCalls()).isEqualTo(2);
        } finally {
            one.shutdownNow();
            assertThat(one.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aResultWaitsWhileThePeerDoesNotReadAndGoesOnceItDoes() throws Exception {
        NettyFrameChannel frames = new NettyFrameChannel(channel, "c-2");
        PeerConnection slowReader = new PeerConnection(frames, new PeerConnection.Names("the server", "daemon", "st-"),
                new Ids(), true, 1 << 20, hooked::add);
        BackendTool quick = BackendTool.of(ToolCatalog.backend("client_file_read").orElseThrow(),
                (p, c) -> Map.of("content", "x"));
        CountDownLatch warm = new CountDownLatch(1);
        workers.execute(() -> {
            try {
                // one answered call first, so the held one below does not spend its time loading classes
                slowReader.answer(invoke("dt-warm"), quick, CONTEXT, Runnable::run);
            } finally {
                warm.countDown();
            }
        });
        assertThat(warm.await(30, TimeUnit.SECONDS)).isTrue();
        channel.runPendingTasks();
        assertThat(sent()).singleElement().asString().contains("\"dt-warm\"");
        channel.unsafe().outboundBuffer().setUserDefinedWritability(1, false);     // the peer stopped reading
        assertThat(frames.isWritable()).isFalse();
        CountDownLatch ran = new CountDownLatch(1);

        slowReader.answer(invoke("dt-9"), BackendTool.of(ToolCatalog.backend("client_file_read").orElseThrow(),
                (p, c) -> {
                    ran.countDown();
                    return Map.of("content", "x".repeat(1000));
                }), CONTEXT, workers);

        assertThat(ran.await(30, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(500);      // time for a result that did not wait to be written
        channel.runPendingTasks();
        assertThat(sent()).as("held while the peer does not read").isEmpty();
        channel.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
        frames.writabilityChanged();
        awaitWorkers();
        assertThat(sent()).singleElement().asString().contains("\"dt-9\"", "\"ok\":true");
    }
}
