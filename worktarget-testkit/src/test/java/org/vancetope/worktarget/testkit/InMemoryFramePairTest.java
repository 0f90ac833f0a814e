package org.vancetope.worktarget.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InMemoryFramePairTest {

    @Test
    void framesArriveAtThePeerInOrderOnlyWhenDelivered() {
        List<String> got = new CopyOnWriteArrayList<>();
        try (InMemoryFramePair<String> pair = InMemoryFramePair.<String>builder().build()) {
            pair.right().onReceive(got::add);
            pair.left().send("a");
            pair.left().send("b");
            assertThat(got).isEmpty();
            assertThat(pair.deliverAll()).isEqualTo(2);
            assertThat(got).containsExactly("a", "b");
        }
    }

    @Test
    void channelIsNotWritableAtTheHighWaterMarkAndCallsBackAfterDraining() {
        try (InMemoryFramePair<String> pair = InMemoryFramePair.<String>builder().highWaterMark(2).lowWaterMark(0).build()) {
            AtomicInteger calls = new AtomicInteger();
            pair.left().send("1");
            pair.left().send("2");
            assertThat(pair.left().isWritable()).isFalse();
            pair.left().whenWritable(calls::incrementAndGet);
            pair.deliverNext(pair.left());
            assertThat(calls).hasValue(0);
            pair.deliverNext(pair.left());
            assertThat(calls).hasValue(1);
            assertThat(pair.left().isWritable()).isTrue();
        }
    }

    @Test
    void whenWritableRunsAtOnceWhenAlreadyWritable() {
        try (InMemoryFramePair<String> pair = InMemoryFramePair.<String>builder().build()) {
            AtomicInteger calls = new AtomicInteger();
            pair.left().whenWritable(calls::incrementAndGet);
            assertThat(calls).hasValue(1);
        }
    }

    @Test
    void closeFailsQueuedSendsAndRunsCloseListeners() {
        InMemoryFramePair<String> pair = InMemoryFramePair.<String>builder().build();
        AtomicInteger closed = new AtomicInteger();
        pair.left().onClose(closed::incrementAndGet);
        pair.right().onClose(closed::incrementAndGet);
        CompletableFuture<Void> sent = pair.left().send("x").toCompletableFuture();
        pair.close();
        assertThat(sent).isCompletedExceptionally();
        assertThat(closed).hasValue(2);
        assertThat(pair.left().isOpen()).isFalse();
        assertThat(pair.left().send("y").toCompletableFuture()).isCompletedExceptionally();
    }

    @Test
    void handlerExceptionsAreRecordedNotThrown() {
        try (InMemoryFramePair<String> pair = InMemoryFramePair.<String>builder().build()) {
            pair.right().onReceive(s -> {
                throw new IllegalStateException("boom");
            });
            pair.left().send("x");
            pair.deliverAll();
            assertThat(pair.failures()).singleElement().isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void wireHopEncodesOnSendAndDecodesOnDelivery() {
        List<String> got = new CopyOnWriteArrayList<>();
        try (InMemoryFramePair<String> pair = InMemoryFramePair.<String>builder()
                .wire(s -> s.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        (byte[] b) -> new String(b, java.nio.charset.StandardCharsets.UTF_8).toUpperCase()).build()) {
            pair.right().onReceive(got::add);
            pair.left().send("hi");
            pair.deliverAll();
            assertThat(got).containsExactly("HI");
        }
    }

    @Test
    void threadedModeDeliversOnItsOwnThread() throws Exception {
        CountDownLatch latch = new CountDownLatch(100);
        try (InMemoryFramePair<Integer> pair = InMemoryFramePair.<Integer>builder().threaded().build()) {
            pair.right().onReceive(i -> latch.countDown());
            for (int i = 0; i < 100; i++) {
                pair.left().send(i);
            }
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        }
    }
}
