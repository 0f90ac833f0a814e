package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReadGateTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final NettyFrameChannel wire = new NettyFrameChannel(channel, "c-1");

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    @Test
    void readingStopsWhenHighFramesWaitAndResumesAtLow() {
        ReadGate gate = new ReadGate(wire, 4, 1);
        for (int i = 0; i < 3; i++) {
            gate.queued();
        }
        assertThat(channel.config().isAutoRead()).isTrue();
        gate.queued();
        assertThat(channel.config().isAutoRead()).isFalse();
        assertThat(gate.paused()).isTrue();
        gate.done();
        gate.done();
        assertThat(channel.config().isAutoRead()).isFalse();
        gate.done();
        assertThat(channel.config().isAutoRead()).isTrue();
        assertThat(gate.paused()).isFalse();
        assertThat(gate.waiting()).isEqualTo(1);
    }

    @Test
    void framesArrivingWhilePausedKeepReadingOffUntilDrained() {
        ReadGate gate = new ReadGate(wire, 2, 0);
        gate.queued();
        gate.queued();
        gate.queued();      // a frame of the read batch in progress
        gate.done();
        gate.done();
        assertThat(channel.config().isAutoRead()).isFalse();
        gate.done();
        assertThat(channel.config().isAutoRead()).isTrue();
    }

    @Test
    void thresholdsOutOfOrderAreRejected() {
        assertThatThrownBy(() -> new ReadGate(wire, 4, 4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("low < high");
        assertThatThrownBy(() -> new ReadGate(wire, 4, -1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void racingProducerAndConsumerNeverLeaveReadingOff() throws Exception {
        ReadGate gate = new ReadGate(wire, 8, 2);
        Semaphore items = new Semaphore(0);
        int frames = 200_000;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        CountDownLatch finished = new CountDownLatch(2);
        try {
            pool.execute(() -> {
                for (int i = 0; i < frames; i++) {
                    gate.queued();
                    items.release();
                }
                finished.countDown();
            });
            pool.execute(() -> {
                for (int i = 0; i < frames; i++) {
                    items.acquireUninterruptibly();
                    gate.done();
                }
                finished.countDown();
            });
            assertThat(finished.await(60, TimeUnit.SECONDS)).isTrue();
        } finally {
            pool.shutdownNow();
        }
        assertThat(gate.waiting()).isZero();
        assertThat(gate.paused()).isFalse();
        assertThat(channel.config().isAutoRead()).isTrue();
    }
}
