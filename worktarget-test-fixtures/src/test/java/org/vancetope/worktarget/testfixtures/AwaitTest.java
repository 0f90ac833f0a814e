package org.vancetope.worktarget.testfixtures;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {
    @Test
    void untilReturnsOnceTheConditionHolds() {
        AtomicInteger polls = new AtomicInteger();
        Await.until("the third poll", () -> polls.incrementAndGet() >= 3);
        assertThat(polls).hasValue(3);
    }

    @Test
    void processGoneReturnsForAProcessThatHasEnded() throws Exception {
        Process p = new ProcessBuilder("true").start();
        Await.processGone(p.pid());
        assertThat(p.isAlive()).isFalse();
    }
}
