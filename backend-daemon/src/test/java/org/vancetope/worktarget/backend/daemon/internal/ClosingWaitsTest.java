package org.vancetope.worktarget.backend.daemon.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultPromise;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.Promise;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A close step whose future never completes (its event loop thread died) is waited for only up to the
 * bound, so that closing goes on; one that completes is not waited for longer than it takes.
 */
class ClosingWaitsTest {
    @Test
    void aStepThatNeverEndsIsGivenUpAfterTheBound() {
        Promise<Void> never = new DefaultPromise<>(GlobalEventExecutor.INSTANCE);
        assertThat(ClosingWaits.await(never, Duration.ofMillis(50), "a step whose thread died")).isFalse();
        assertThat(never.isDone()).isFalse();
    }

    @Test
    void aStepThatEndsIsDoneAndSaysSo() {
        MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        assertThat(ClosingWaits.await(group.shutdownGracefully(0, 2, TimeUnit.SECONDS), "an event loop")).isTrue();
        assertThat(group.isTerminated()).isTrue();
    }

    @Test
    void anInterruptDoesNotCutTheWaitShortAndIsKept() {
        Promise<Void> done = new DefaultPromise<>(GlobalEventExecutor.INSTANCE);
        done.setSuccess(null);
        Thread.currentThread().interrupt();
        try {
            assertThat(ClosingWaits.await(done, Duration.ofMillis(50), "a finished step")).isTrue();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }
}
